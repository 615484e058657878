// honor_timestamps compared with Prometheus 2.42: an exposition timestamp that a series
// has stored already is a duplicate, and one older than its last is out of order; both
// are refused as Prometheus refuses them, instead of being written again (Gaugeway keeps
// one point a second, so each repeat was merged into the stored point: a target repeating
// a cached timestamp read 5.5 after exposing 5, 5, 5 and 7). Samples without a timestamp,
// and every sample with honor_timestamps false, take the scrape's time as before.
import t from 'tap';
import { parseExposition } from '../../src/scrape/parse.js';
import { convertScrape, SeriesCache } from '../../src/scrape/samples.js';
import { samplesOf } from '../../src/tsdb/sample.js';
import { startTestServer } from '../helpers/server.js';
import { startExporter } from './exporter.js';

const target = { labels: [['instance', 'h:1'], ['job', 'j']] as const };
const job = { honorLabels: false, honorTimestamps: true, metricRelabelConfigs: [], externalLabels: [], sampleLimit: 0, labelLimit: 0 };
const limits = { oldest: 1_000, newest: 2_000_000_000, now: 1_700_000_000, tagsPerMeasurement: 10 };
const NOW = 1_700_000_000_000;
const T = 1_699_999_000_000; // an exposition timestamp before NOW

t.test('across scrapes: the same timestamp again is a duplicate, an older one out of order', async (t) => {
  const cache = new SeriesCache();
  const scrape = (text: string, at: number) => {
    const c = convertScrape(parseExposition(text, 'text'), target, job, at, limits, cache);
    return { stored: samplesOf(c.rows.columns(cache.numbering.metrics, cache.numbering.tagSets)).map((s) => [s.metric, s.time, s.sum]), refused: Object.fromEntries(c.refused) };
  };
  t.same(scrape(`g 5 ${T}\nfree 1`, NOW), { stored: [['g', T / 1000, 5], ['free', NOW / 1000, 1]], refused: {} });
  t.same(scrape(`g 7 ${T}\nfree 2`, NOW + 15_000), { stored: [['free', NOW / 1000 + 15, 2]], refused: { duplicate: 1 } }, 'the same timestamp: not written again');
  t.same(scrape(`g 7 ${T - 60_000}\nfree 3`, NOW + 30_000), { stored: [['free', NOW / 1000 + 30, 3]], refused: { out_of_order: 1 } }, 'an older one: not written into the past');
  t.same(scrape(`g 8 ${T + 60_000}`, NOW + 45_000), { stored: [['g', T / 1000 + 60, 8]], refused: {} }, 'a later one is stored');
  t.same(scrape(`g 9 ${T + 60_000 + 999}`, NOW + 60_000), { stored: [], refused: { duplicate: 1 } }, 'a later millisecond of the same second is the same point');
});

t.test('in one scrape: a series repeated with an older timestamp is out of order', async (t) => {
  const c = convertScrape(parseExposition(`g 1 ${T}\ng 2 ${T - 5000}\ng 3 ${T}`, 'text'), target, job, NOW, limits);
  t.same(Object.fromEntries(c.refused), { out_of_order: 1, duplicate: 1 });
  t.equal(c.rows.length, 1);
});

t.test('honor_timestamps false: every scrape writes at its own time', async (t) => {
  const cache = new SeriesCache();
  const off = { ...job, honorTimestamps: false };
  for (const at of [NOW, NOW + 15_000]) t.equal(convertScrape(parseExposition(`g 5 ${T}`, 'text'), target, off, at, limits, cache).rows.length, 1);
});

t.test('end to end: a target repeating a cached timestamp keeps its first value', async (t) => {
  const exp = await startExporter(t);
  const ts = Date.now() - 120_000;
  let body = `# TYPE c counter\nc_total 10 ${ts}\ng 5 ${ts}\n`;
  exp.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }); res.end(body); };
  const s = await startTestServer(t, `scrape:\n  scrape_configs:\n  - job_name: cached\n    scrape_interval: 1h\n    static_configs: [{targets: ["${exp.address}"]}]`);
  for (let i = 0; i < 3; i++) await s.server.rt.scrape.scrapeAll();
  body = `# TYPE c counter\nc_total 12 ${ts}\ng 7 ${ts}\n`;
  await s.server.rt.scrape.scrapeAll();
  body = `# TYPE c counter\nc_total 12 ${ts - 60_000}\ng 7 ${ts - 60_000}\n`;
  await s.server.rt.scrape.scrapeAll();
  const points = async (metric: string) => (await s.get(`/v1/measurements/${metric}?duration=3600&resolution=1`)).body.series[0].measurements.map((m: { time: number; value: number }) => [m.time, m.value]);
  t.same(await points('g'), [[Math.floor(ts / 1000), 5]], 'one point, the first value, as Prometheus stores it');
  t.same(await points('c_total'), [[Math.floor(ts / 1000), 10]]);
  const [target] = (await s.get('/v1/scrape/targets')).body.targets;
  t.match(target, { health: 'up', samples_scraped: 2, samples_stored: 0 }, 'the last scrape stored none, and stays up');
  t.match((await s.get('/metrics')).text, /gaugeway_scrape_samples_refused_total\{job="cached",reason="out_of_order"\} 2/);
});
