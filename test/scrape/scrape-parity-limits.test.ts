// Label limits as Prometheus applies them (scrape.go, verifyLabelLimits): on the series a
// scrape stores, after honor_labels and metric_relabel_configs and without external
// labels (which Prometheus does not store with a series); a series past a limit fails
// the whole scrape. label_name_length_limit and label_value_length_limit count bytes, as
// Go's len() does, on every label including __name__.
import t from 'tap';
import { parseExposition } from '../../src/scrape/parse.js';
import { convertScrape, ScrapeLimitError } from '../../src/scrape/samples.js';
import { startTestServer } from '../helpers/server.js';
import { startExporter } from './exporter.js';

const target = { labels: [['instance', 'h:1'], ['job', 'j']] as const };
const job = { honorLabels: false, honorTimestamps: true, metricRelabelConfigs: [], externalLabels: [], sampleLimit: 0, labelLimit: 0 };
const limits = { oldest: 1_000, newest: 2_000_000_000, now: 1_700_000_000, tagsPerMeasurement: 10 };
const NOW = 1_700_000_000_000;
const parse = (text: string) => parseExposition(text, 'text');

t.test('label_limit does not count external labels', async (t) => {
  const external = { ...job, externalLabels: [['region', 'eu'], ['zone', 'a']] as [string, string][], labelLimit: 3 };
  const c = convertScrape(parse('a 1'), target, external, NOW, limits);
  t.equal(c.rows.length, 1, '__name__, job and instance: 3 labels, within the limit');
  t.throws(() => convertScrape(parse('a{x="1"} 1'), target, external, NOW, limits), /label_limit exceeded \(4 labels on a, limit 3\)/, 'one more fails the scrape');
});

t.test('label_name_length_limit and label_value_length_limit fail the scrape', async (t) => {
  t.throws(() => convertScrape(parse('a{abcdefghijk="1"} 1'), target, { ...job, labelNameLengthLimit: 10 }, NOW, limits), /label_name_length_limit exceeded \(metric a, label name abcdefghijk: 11 bytes, limit 10\)/);
  t.equal(convertScrape(parse('a{abcdefghij="1"} 1'), target, { ...job, labelNameLengthLimit: 10 }, NOW, limits).rows.length, 1, 'at the limit');
  t.throws(() => convertScrape(parse('a{v="ééé"} 1'), target, { ...job, labelValueLengthLimit: 5 }, NOW, limits), /label_value_length_limit exceeded \(metric a, label v: 6 bytes, limit 5\)/, 'bytes, not characters');
  t.throws(() => convertScrape(parse('a_long_metric_name 1'), target, { ...job, labelValueLengthLimit: 10 }, NOW, limits), ScrapeLimitError, '__name__ is a label too');
  t.throws(() => convertScrape(parse('a 1'), { labels: [['instance', 'h:1'], ['job', 'a-long-job-name']] }, { ...job, labelValueLengthLimit: 10 }, NOW, limits), ScrapeLimitError, 'target labels count');
  t.equal(convertScrape(parse('a 1'), target, { ...job, labelValueLengthLimit: 3, externalLabels: [['region', 'europe']] }, NOW, limits).rows.length, 1, 'external labels do not');
});

t.test('end to end: the keys of a pasted job are read, and a series past them fails the scrape', async (t) => {
  const exp = await startExporter(t);
  exp.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }); res.end('ok_metric 1\n'); };
  const long = await startExporter(t);
  long.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }); res.end('ok_metric{path="/a/rather/long/path"} 1\n'); };
  const job = (name: string, address: string) => [
    `    - job_name: ${name}`, '      scrape_interval: 1h', '      scrape_timeout: 2s', '      label_limit: 4',
    '      label_name_length_limit: 20', '      label_value_length_limit: 16', `      static_configs: [{targets: ["${address}"]}]`,
  ].join('\n');
  const s = await startTestServer(t, ['scrape:', '  global:', '    external_labels: {region: eu, zone: a}', '  scrape_configs:', job('short', exp.address), job('long', long.address)].join('\n'));
  await s.server.rt.scrape.scrapeAll();
  const targets: { job: string; health: string; last_error: string | null }[] = (await s.get('/v1/scrape/targets')).body.targets;
  t.match(targets.find((x) => x.job === 'short'), { health: 'up', last_error: null }, '__name__, job, instance and two external labels are within label_limit 4');
  t.match(targets.find((x) => x.job === 'long'), { health: 'down', last_error: /label_value_length_limit exceeded \(metric ok_metric, label path: 19 bytes, limit 16\)/ }, 'a value of 19 bytes fails the scrape');
});
