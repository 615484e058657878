// Targets that misbehave, end to end: a gzip bomb is cut at the body ceiling even with
// body_size_limit 0, and a target over the new-series limit still has its `up` stored and
// leaves no metric behind for the series refused.
import t from 'tap';
import { createGzip } from 'node:zlib';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startExporter } from './exporter.js';
import { MAX_SCRAPE_BODY_BYTES } from '../../src/scrape/fetch.js';
import { SCRAPE_SLICE_ROWS } from '../../src/scrape/sink.js';

type Target = { job: string; health: string; last_error: string | null };
const targets = async (s: TestServer): Promise<Target[]> => (await s.get('/v1/scrape/targets')).body.targets;

function job(name: string, address: string): string {
  return [`  - job_name: ${name}`, '    scrape_interval: 1h', '    scrape_timeout: 10s', `    static_configs: [{targets: ["${address}"]}]`].join('\n');
}

/** A small gzip body that expands to `bytes` of exposition lines. */
async function bomb(bytes: number): Promise<Buffer> {
  const line = Buffer.from('bomb_metric{label="' + 'x'.repeat(100) + '"} 1\n');
  const chunk = Buffer.concat(Array.from({ length: Math.ceil(65536 / line.length) }, () => line));
  const gzip = createGzip();
  const out: Buffer[] = [];
  gzip.on('data', (c: Buffer) => out.push(c));
  const done = new Promise<void>((r) => gzip.on('end', r));
  for (let written = 0; written < bytes; written += chunk.length) {
    if (!gzip.write(chunk)) await new Promise((r) => gzip.once('drain', r));
  }
  gzip.end();
  await done;
  return Buffer.concat(out);
}

t.test('a gzip bomb with body_size_limit 0 is cut at the ceiling, and the others are scraped', async (t) => {
  const body = await bomb(MAX_SCRAPE_BODY_BYTES + 16 * 1024 * 1024);
  t.ok(body.length < 4 * 1024 * 1024, `the bomb is small on the wire (${body.length} bytes)`);
  const evil = await startExporter(t);
  evil.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', 'content-encoding': 'gzip' }); res.end(body); };
  const good = await startExporter(t);
  good.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('fine 1\n'); };
  const s = await startTestServer(t, ['scrape:', '  scrape_configs:', job('evil', evil.address), job('good', good.address)].join('\n'));
  await s.server.rt.scrape.scrapeAll();
  const byJob = Object.fromEntries((await targets(s)).map((x) => [x.job, x]));
  t.match(byJob.evil, { health: 'down', last_error: `body size limit exceeded (${MAX_SCRAPE_BODY_BYTES} bytes: Gaugeway's ceiling, which body_size_limit 0 or larger means)` });
  t.match(byJob.good, { health: 'up', last_error: null });
});

t.test('over the new-series limit: up is still stored, and refused series leave no metric', async (t) => {
  const wide = await startExporter(t);
  wide.answer = (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(Array.from({ length: 20 }, (_, i) => `wide_${i} ${i}`).join('\n') + '\n');
  };
  const s = await startTestServer(t, ['limits:', '  new_series_per_hour: 10', 'scrape:', '  scrape_configs:', job('wide', wide.address)].join('\n'));
  await s.server.rt.scrape.scrapeAll();
  const up = await s.get('/v1/measurements/up?duration=3600&resolution=1');
  t.equal(up.status, 200, 'up exists');
  t.equal(up.body.series[0].measurements.at(-1).value, 1);
  // the 5 health series first, then the first 5 exposed as far as the hour has room
  t.equal((await s.get('/v1/metrics/wide_4')).status, 200, 'the series the hour had room for are stored');
  t.equal((await s.get('/v1/metrics/wide_5')).status, 404, 'no metric for a series that was refused');
  t.match((await s.get('/metrics')).text, /gaugeway_scrape_samples_refused_total\{job="wide",reason="series_limit"\} 15/);
});

t.test('sample_limit cuts the parse itself: a target far past it is not parsed to the end', async (t) => {
  const big = await startExporter(t);
  // the broken last line is never reached when the parse stops at the limit
  big.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(Array.from({ length: 50 }, (_, i) => `s_${i} 1`).join('\n') + '\nbroken\n'); };
  const s = await startTestServer(t, ['scrape:', '  scrape_configs:', job('big', big.address), '    sample_limit: 5'].join('\n'));
  await s.server.rt.scrape.scrapeAll();
  const [target] = await targets(s);
  t.match(target, { health: 'down', last_error: 'sample_limit exceeded (more than 5 samples)' });
});

t.test('a wide target is stored in pieces, every sample exactly once', async (t) => {
  const n = 10_000;
  const wide = await startExporter(t);
  wide.answer = (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(Array.from({ length: n }, (_, i) => `piece{i="${i}"} ${i}`).join('\n') + '\n');
  };
  const s = await startTestServer(t, ['limits:', '  new_series_per_hour: 0', 'scrape:', '  scrape_configs:', job('wide', wide.address)].join('\n'));
  const engine = s.server.rt.engine;
  const append = engine.appendValues.bind(engine);
  let appends = 0;
  engine.appendValues = (account, values) => { appends++; return append(account, values); };
  await s.server.rt.scrape.scrapeAll();
  t.ok(appends >= Math.ceil(n / SCRAPE_SLICE_ROWS), `${appends} appends of at most ${SCRAPE_SLICE_ROWS} rows`);
  const sum = await s.get('/v1/measurements/piece?duration=600&resolution=60&group_by=job&group_by_function=sum');
  t.equal(sum.status, 200, JSON.stringify(sum.body));
  t.equal(sum.body.series[0].measurements.at(-1).value, (n * (n - 1)) / 2, 'the sum of every value, each once');
});
