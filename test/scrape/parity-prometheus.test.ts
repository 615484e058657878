// Gaugeway and Prometheus 2.42 side by side on loopback, scraping the same targets: the
// series each stores (names and labels, mapped to tags as Gaugeway maps them) and their
// latest values must be the same. Targets: a Pushgateway-like exposition under
// honor_labels (`instance=""`), an OpenMetrics exposition with every type, `_created`,
// an exemplar and a timestamp in seconds, and a target repeating a cached timestamp
// whose value changes at every request (Prometheus keeps the first).
// Skipped, with the reason printed, where the prometheus binary is missing.
import t from 'tap';
import http from 'node:http';
import net from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { poll } from '../helpers/poll.js';
import { tagsOf } from '../../src/scrape/labels.js';
import { canonicalFloat } from '../../src/scrape/parse.js';

const PROMETHEUS = '/usr/bin/prometheus';
const OM = 'application/openmetrics-text; version=1.0.0; charset=utf-8';
const cachedAt = Date.now() - 120_000;

/** Bodies by path; `n` is how many requests this scraper made for the path so far. */
const targets: Record<string, (n: number) => [string, string]> = {
  pushgateway: () => ['text/plain; version=0.0.4', 'pushed{instance="",job="batch"} 1\nmine{job="",x="1"} 2\nboth{instance="i",job="j"} 3\n'],
  om: () => [OM, [
    '# TYPE c counter', `c_total 3 # {trace_id="x"} 1 ${(Date.now() / 1000).toFixed(3)}`, 'c_created 1700000000.5',
    '# TYPE i info', 'i_info{version="1"} 1', '# TYPE s stateset', 's{s="a"} 1', 's{s="b"} 0',
    '# TYPE gh gaugehistogram', 'gh_bucket{le="1"} 1', 'gh_bucket{le="+Inf"} 2', 'gh_gcount 2', 'gh_gsum 3',
    '# TYPE u unknown', 'u 4', '# TYPE h histogram', 'h_bucket{le="1"} 1', 'h_bucket{le="+Inf"} 1', 'h_count 1', 'h_sum 0.5', 'h_created 1700000000',
    `stamped 5 ${((Date.now() - 30_000) / 1000).toFixed(3)}`, '# EOF', ''].join('\n')],
  cached: (n) => ['text/plain', `cached_value ${n} ${cachedAt}\n`],
};

const freePort = () => new Promise<number>((resolve) => {
  const s = net.createServer();
  s.listen(0, '127.0.0.1', () => { const { port } = s.address() as net.AddressInfo; s.close(() => resolve(port)); });
});

/** Prometheus on a free loopback port, retried if another process took the port first. */
async function startPrometheus(t: Test, config: string): Promise<number> {
  const dir = tempDir(t, 'gw-prom-');
  writeFileSync(join(dir, 'prometheus.yml'), config);
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child: ChildProcess = spawn(PROMETHEUS, [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, `data${attempt}`)}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr!.on('data', (d) => { log += d; });
    const ready = await new Promise<boolean>((resolve) => {
      child.once('exit', () => resolve(false));
      const check = setInterval(() => { if (log.includes('Server is ready')) { clearInterval(check); resolve(true); } }, 50);
      child.once('exit', () => clearInterval(check));
    });
    if (ready) {
      t.teardown(() => new Promise<void>((r) => { child.once('exit', () => r()); child.kill('SIGTERM'); }));
      return port;
    }
    if (attempt === 2) throw new Error(`prometheus did not start: ${log.slice(-500)}`);
  }
}
type Test = Parameters<Parameters<typeof t.test>[1]>[0];

/** One series: its metric and its tags, as a sortable string. */
const key = (metric: string, tags: Iterable<readonly [string, string]>) => `${metric}${JSON.stringify([...tags].sort())}`;

t.test('the same targets scraped by both: the same series, the same latest values', { skip: existsSync(PROMETHEUS) ? false : `${PROMETHEUS} is not installed` }, async (t) => {
  const requests = new Map<string, number>();
  const exporter = http.createServer((req, res) => {
    const path = req.url!.slice(1);
    const who = `${req.headers['user-agent']?.startsWith('Prometheus') ? 'prometheus' : 'gaugeway'} ${path}`;
    const n = (requests.get(who) ?? 0) + 1;
    requests.set(who, n);
    const body = targets[path]?.(n);
    if (!body) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': body[0] });
    res.end(body[1]);
  });
  await new Promise<void>((r) => exporter.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { exporter.closeAllConnections(); exporter.close(() => r()); }));
  const address = `127.0.0.1:${(exporter.address() as net.AddressInfo).port}`;
  const jobs = (interval: string) => Object.keys(targets).map((name) => [
    `  - job_name: ${name}`, `    scrape_interval: ${interval}`, '    scrape_timeout: 1s', `    metrics_path: /${name}`,
    ...(name === 'pushgateway' ? ['    honor_labels: true'] : []), `    static_configs: [{targets: ["${address}"]}]`,
  ].join('\n')).join('\n');

  const promPort = await startPrometheus(t, `scrape_configs:\n${jobs('1s')}\n`);
  const s: TestServer = await startTestServer(t, `scrape:\n  scrape_configs:\n${jobs('1h')}`);
  for (let i = 0; i < 3; i++) await s.server.rt.scrape.scrapeAll();
  // a fourth request of each path means Prometheus has committed at least three scrapes of it
  await poll(async () => (Object.keys(targets).every((p) => (requests.get(`prometheus ${p}`) ?? 0) >= 4) ? true : undefined));

  const promApi = async (path: string) => ((await (await fetch(`http://127.0.0.1:${promPort}${path}`)).json()) as { data: any }).data;
  const promLatest = new Map<string, number>();
  const jobMatch = `{job=~"${Object.keys(targets).join('|')}|batch|j",__name__!~"scrape_.*"}`;
  for (const r of (await promApi(`/api/v1/query?query=${encodeURIComponent(jobMatch)}`)).result as { metric: Record<string, string>; value: [number, string] }[]) {
    const { __name__: name, ...labels } = r.metric;
    if (labels.le !== undefined) labels.le = canonicalFloat(labels.le); // Gaugeway writes le as Prometheus 3 does
    promLatest.set(key(name!, tagsOf(Object.entries(labels))), Number(r.value[1]));
  }
  // series without a job (honor_labels, job="") are not matched by a job filter
  for (const r of (await promApi(`/api/v1/query?query=${encodeURIComponent('mine')}`)).result as { metric: Record<string, string>; value: [number, string] }[]) {
    const { __name__: name, ...labels } = r.metric;
    promLatest.set(key(name!, tagsOf(Object.entries(labels))), Number(r.value[1]));
  }

  const gwLatest = new Map<string, number>();
  const metrics: { name: string }[] = (await s.get('/v1/metrics?length=100')).body.metrics;
  for (const { name } of metrics) {
    if (name.startsWith('scrape_')) continue;
    const r = await s.get(`/v1/measurements/${name}?duration=3600&resolution=1`);
    for (const series of r.body.series as { tags: Record<string, string>; measurements: { value: number }[] }[]) {
      gwLatest.set(key(name, Object.entries(series.tags)), series.measurements.at(-1)!.value);
    }
  }
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  t.same(sorted(gwLatest), sorted(promLatest), 'the same series with the same latest values');
  t.equal(promLatest.get(key('cached_value', [['instance', address], ['job', 'cached']])), 1, 'Prometheus kept the first value of the cached timestamp');
  t.ok(promLatest.has(key('pushed', [['job', 'batch']])), 'and stored the pushed series without an instance');
});
