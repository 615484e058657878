// Scraping real exporters on loopback, end to end: config -> scheduler -> fetch -> parse
// -> the ingest path -> tagged queries, the targets endpoint, health series and alerts.
import t from 'tap';
import { writeFileSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { poll } from '../helpers/poll.js';
import { listener } from '../helpers/listener.js';
import { startExporter, appMetrics } from './exporter.js';
import { startLogged } from '../helpers/capture-log.js';

const scrapeNow = (s: TestServer) => s.server.rt.scrape.scrapeAll();
type Target = { job: string; url: string; health: string; last_error: string | null; labels: Record<string, string>; samples_scraped: number; samples_stored: number };
const targets = async (s: TestServer, query = ''): Promise<Target[]> => (await s.get(`/v1/scrape/targets${query}`)).body.targets;
const series = async (s: TestServer, metric: string, extra = '') => {
  const r = await s.get(`/v1/measurements/${metric}?duration=3600&resolution=1${extra}`);
  return r.status === 200 ? (r.body.series as { tags: Record<string, string>; measurements: { value: number }[] }[]) : [];
};

function job(name: string, address: string, more = ''): string {
  return [`  - job_name: ${name}`, '    scrape_interval: 1h', '    scrape_timeout: 2s', `    static_configs: [{targets: ["${address}"]}]`, more].filter(Boolean).join('\n');
}

t.test('a prom-client registry: every type stored with job and instance tags, counters as counters', async (t) => {
  const exp = await startExporter(t);
  appMetrics(exp.registry);
  const s = await startTestServer(t, `scrape:\n  scrape_configs:\n${job('app', exp.address)}`);
  await scrapeNow(s);
  const [target] = await targets(s);
  t.match(target, { job: 'app', url: `http://${exp.address}/metrics`, health: 'up', last_error: null, labels: { instance: exp.address, job: 'app' } });
  t.ok(target!.samples_scraped > 10, 'every sample of the exposition counted');
  t.equal(target!.samples_stored, target!.samples_scraped, 'and stored');
  t.match(exp.requests[0], { accept: /application\/openmetrics-text;version=1\.0\.0/, 'accept-encoding': 'gzip', 'x-prometheus-scrape-timeout-seconds': '2' }, 'asks as Prometheus does');

  const requests = await series(s, 'app_requests_total');
  t.same(requests.map((x) => [x.tags, x.measurements.at(-1)!.value]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))), [
    [{ code: '200', instance: exp.address, job: 'app', method: '?get' }, 7],
    [{ code: '500', instance: exp.address, job: 'app', method: 'post' }, 2],
  ], 'labels become tags; an upper-case value is mapped reversibly');
  t.equal((await s.get('/v1/metrics/app_requests_total')).body.type, 'counter');
  t.equal((await s.get('/v1/metrics/app_temperature_celsius')).body.type, 'gauge');
  const filtered = await series(s, 'app_temperature_celsius', '&tags[room]=lab');
  t.equal(filtered[0]!.measurements.at(-1)!.value, 21.5, 'a tag filter on a scraped label');
  const buckets = await series(s, 'app_latency_seconds_bucket');
  t.same(buckets.map((b) => [b.tags.le, b.measurements.at(-1)!.value]).sort(), [['0.1', 1], ['1.0', 2], ['inf', 3]], 'histogram buckets with an le tag in canonical form (+Inf as inf)');
  t.equal((await series(s, 'app_latency_seconds_count'))[0]!.measurements.at(-1)!.value, 3);
  t.same((await series(s, 'app_response_bytes')).map((q) => q.tags.quantile).sort(), ['0.5', '0.9'], 'summary quantiles');

  const up = await series(s, 'up');
  t.same(up.map((u) => [u.tags, u.measurements.at(-1)!.value]), [[{ instance: exp.address, job: 'app' }, 1]], 'up = 1');
  t.equal((await series(s, 'scrape_samples_scraped'))[0]!.measurements.at(-1)!.value, target!.samples_scraped);
  t.equal((await series(s, 'scrape_series_added'))[0]!.measurements.at(-1)!.value, target!.samples_stored, 'every series new in the first scrape');
  t.ok((await series(s, 'scrape_duration_seconds'))[0]!.measurements.at(-1)!.value >= 0);
  await scrapeNow(s);
  t.equal((await s.get('/v1/measurements/scrape_series_added?duration=3600&resolution=1&summary_function=min')).body.series[0].measurements.some((m: { value: number }) => m.value === 0), true, 'none new in the next');
  const self = await s.get('/metrics');
  t.match(self.text, /gaugeway_scrapes_total\{job="app",result="ok"\} [1-9]/, 'self-metrics per job');
  t.match(self.text, /gaugeway_scrape_targets\{job="app",health="up"\} 1/);
});

t.test('failing targets are down with the reason, and never stop the others', async (t) => {
  const good = await startExporter(t);
  appMetrics(good.registry);
  const broken = await startExporter(t);
  broken.answer = (_req, res) => { res.writeHead(500); res.end('oops'); };
  const garbage = await startExporter(t);
  garbage.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }); res.end('metric_without_value\n'); };
  const html = await startExporter(t);
  html.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<html>login</html>'); };
  const slow = await startExporter(t);
  slow.answer = () => { /* never answers */ };
  const huge = await startExporter(t);
  huge.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(Array.from({ length: 2000 }, (_, i) => `big_${i} ${i}`).join('\n')); };
  const many = await startExporter(t);
  many.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(Array.from({ length: 20 }, (_, i) => `many{i="${i}"} ${i}`).join('\n') + '\nnan_metric NaN\n'); };
  const s = await startTestServer(t, ['scrape:', '  scrape_configs:',
    job('good', good.address), job('broken', broken.address), job('garbage', garbage.address), job('html', html.address),
    job('slow', slow.address).replace('scrape_timeout: 2s', 'scrape_timeout: 300ms'),
    job('huge', huge.address, '    body_size_limit: 1KB'),
    job('limited', many.address, '    sample_limit: 10'),
  ].join('\n'));
  await scrapeNow(s);
  const byJob = Object.fromEntries((await targets(s)).map((x) => [x.job, x]));
  t.match(byJob.good, { health: 'up', last_error: null });
  t.match(byJob.broken, { health: 'down', last_error: 'server returned HTTP status 500 Internal Server Error' });
  t.match(byJob.garbage, { health: 'down', last_error: /^line 1: / });
  t.match(byJob.html, { health: 'down', last_error: /unsupported Content-Type "text\/html"/ });
  t.match(byJob.slow, { health: 'down', last_error: 'timeout after 300 ms' });
  t.match(byJob.huge, { health: 'down', last_error: 'body size limit exceeded (1024 bytes)' });
  t.match(byJob.limited, { health: 'down', last_error: 'sample_limit exceeded (more than 10 samples)' });
  t.same(await series(s, 'many'), [], 'a failed scrape stores nothing of its samples');
  const up = Object.fromEntries((await series(s, 'up')).map((u) => [u.tags.job, u.measurements.at(-1)!.value]));
  t.same(up, { good: 1, broken: 0, garbage: 0, html: 0, slow: 0, huge: 0, limited: 0 }, 'up says which');
  t.same((await targets(s, '?health=down')).length, 6, 'filter by health');
  t.equal((await s.get('/v1/scrape/targets?health=sideways')).status, 400);
  t.same((await s.get('/v1/scrape/targets?health=up&health=down')).body, { errors: { params: { health: ['must be given once'] } } });
  t.same((await s.get('/v1/scrape/targets?job=a&job=b')).body, { errors: { params: { job: ['must be given once'] } } });

  // the limit lifted by a reload: NaN is skipped and counted, the rest stored
  const file = join(s.dataDir, 'config.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('    sample_limit: 10', ''));
  t.equal(await s.server.reload(), true);
  await scrapeNow(s);
  t.match((await targets(s, '?job=limited'))[0], { health: 'up', samples_scraped: 21, samples_stored: 20 });
  t.equal((await series(s, 'many')).length, 20);
  t.match((await s.get('/metrics')).text, /gaugeway_scrape_samples_refused_total\{job="limited",reason="not_finite"\} 1/);
});

t.test('samples the store refuses (a metric of another type, new series past the hourly limit) are counted, the rest stored', async (t) => {
  const exp = await startExporter(t);
  const at = (secondsAgo: number) => Date.now() - secondsAgo * 1000; // two scrapes within a second: the samples' own times
  let body = `kept 1 ${at(10)}\n`;
  exp.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(body); };
  // the first scrape creates 6 series: kept and the 5 health series
  const s = await startTestServer(t, ['limits:', '  new_series_per_hour: 8', 'scrape:', '  scrape_configs:', job('mixed', exp.address)].join('\n'));
  t.equal((await s.request('PUT', '/v1/metrics/temp', { json: { type: 'counter' } })).status, 201);
  await scrapeNow(s);
  t.match((await targets(s))[0], { health: 'up', samples_scraped: 1, samples_stored: 1 });
  body = `kept 2 ${at(5)}\ntemp 5\nfresh{i="0"} 1\nfresh{i="1"} 1\nfresh{i="2"} 1\n`;
  await scrapeNow(s);
  t.match((await targets(s))[0], { health: 'up', samples_scraped: 5, samples_stored: 3 }, 'kept and the two new series the hour has room for');
  t.same((await series(s, 'kept'))[0]!.measurements.map((m) => m.value), [1, 2]);
  t.same((await series(s, 'fresh')).map((x) => x.tags.i).sort(), ['0', '1'], 'the third new series waits for the limit');
  t.equal((await s.get('/v1/metrics/temp')).body.type, 'counter', 'the counter stays a counter');
  const scraped = await s.get('/v1/measurements/scrape_samples_scraped?duration=3600&resolution=1&summary_function=max');
  t.equal(scraped.body.series[0].measurements.at(-1).value, 5, 'the health series written with the second scrape');
  const self = (await s.get('/metrics')).text;
  t.match(self, /gaugeway_scrape_samples_refused_total\{job="mixed",reason="type_conflict"\} 1\n/);
  t.match(self, /gaugeway_scrape_samples_refused_total\{job="mixed",reason="series_limit"\} 1\n/);
});

t.test('a target\'s connection is kept between scrapes, and one it closed meanwhile is retried once', async (t) => {
  // A plain-socket exporter, so the test decides what each connection does: the first
  // answers one request, then closes when the next arrives (as a target whose idle
  // timeout fired just as the scrape went out); later connections answer every request.
  const connections: net.Socket[] = [];
  let requests = 0;
  const body = 'kept_alive 1\n';
  const server = net.createServer((socket) => {
    const n = connections.push(socket);
    let seen = '';
    let answered = 0;
    socket.on('data', (chunk) => {
      seen += chunk.toString('latin1');
      for (let end = seen.indexOf('\r\n\r\n'); end >= 0; end = seen.indexOf('\r\n\r\n')) {
        seen = seen.slice(end + 4);
        requests++;
        if (n === 1 && answered === 1) { socket.destroy(); return; }
        answered++;
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/plain; version=0.0.4\r\ncontent-length: ${body.length}\r\nconnection: keep-alive\r\n\r\n${body}`);
      }
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { for (const c of connections) c.destroy(); server.close(() => r()); }));
  const address = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const s = await startTestServer(t, `scrape:\n  scrape_configs:\n${job('kept', address)}`);
  for (let i = 1; i <= 3; i++) {
    await scrapeNow(s);
    t.match((await targets(s))[0], { health: 'up', last_error: null }, `scrape ${i} is up`);
  }
  t.equal(requests, 4, 'three scrapes and one retry');
  t.equal(connections.length, 2, 'the first connection served two requests (one closed under it), the second the rest');
  // one point, or two when the scrapes straddle a second: never a 0
  const ups = (await series(s, 'up'))[0]!.measurements.map((m) => m.value);
  t.ok(ups.length >= 1 && ups.every((v) => v === 1), `up never 0 for a connection the target closed (${ups.join(', ')})`);
});

t.test('basic auth, bearer tokens from a file, and TLS with a CA file', async (t) => {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec', curve: 'P-256', algorithm: 'sha256',
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }],
  });
  const dir = mkdtempSync(join(tmpdir(), 'gw-scrape-auth-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'ca.pem'), pems.cert);
  writeFileSync(join(dir, 'token'), 'sekrit\n');
  const guarded = (expected: string) => async () => {
    const e = await startExporter(t);
    appMetrics(e.registry);
    const serve = e.answer;
    e.answer = (req, res) => {
      if (req.headers.authorization !== expected) { res.writeHead(401); res.end(); return; }
      e.answer = null;
      // answer through the registry once more
      void e.registry.metrics().then((text) => { res.writeHead(200, { 'content-type': e.registry.contentType }); res.end(text); e.answer = serve ?? e.answer; });
      e.answer = (rq, rs) => { if (rq.headers.authorization !== expected) { rs.writeHead(401); rs.end(); return; } void e.registry.metrics().then((text) => { rs.writeHead(200, { 'content-type': e.registry.contentType }); rs.end(text); }); };
    };
    return e;
  };
  const basic = await guarded('Basic ' + Buffer.from('scraper:pw').toString('base64'))();
  const bearer = await guarded('Bearer sekrit')();
  const secure = await startExporter(t, { tls: { key: pems.private, cert: pems.cert } });
  appMetrics(secure.registry);
  const s = await startTestServer(t, ['scrape:', '  scrape_configs:',
    job('basic', basic.address, '    basic_auth: {username: scraper, password: pw}'),
    job('basic-wrong', basic.address, '    basic_auth: {username: scraper, password: nope}'),
    job('bearer', bearer.address, `    authorization: {credentials_file: ${join(dir, 'token')}}`),
    job('tls', secure.address, `    scheme: https\n    tls_config: {ca_file: ${join(dir, 'ca.pem')}, server_name: localhost}`),
    job('tls-untrusted', secure.address, '    scheme: https'),
  ].join('\n'));
  await scrapeNow(s);
  const byJob = Object.fromEntries((await targets(s)).map((x) => [x.job, x]));
  t.match(byJob.basic, { health: 'up' });
  t.match(byJob['basic-wrong'], { health: 'down', last_error: /HTTP status 401/ });
  t.match(byJob.bearer, { health: 'up' }, 'the token read from its file, the type Bearer by default');
  t.match(byJob.tls, { health: 'up', url: `https://${secure.address}/metrics` });
  t.match(byJob['tls-untrusted'], { health: 'down', last_error: /certificate/ });
});

t.test('relabelling, file_sd add and remove, and SIGHUP add, change and remove', async (t) => {
  const a = await startExporter(t);
  appMetrics(a.registry);
  const b = await startExporter(t);
  appMetrics(b.registry);
  const dir = mkdtempSync(join(tmpdir(), 'gw-file-sd-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const s = await startTestServer(t, ['scrape:', '  scrape_configs:',
    job('relabelled', a.address, [
      '    relabel_configs:',
      '      - {source_labels: [__address__], regex: "127\\\\.0\\\\.0\\\\.1:(.*)", target_label: port, replacement: "p$1"}',
      '    metric_relabel_configs:',
      '      - {source_labels: [__name__], regex: "app_latency.*|app_response.*", action: drop}',
      '      - {regex: "code", action: labeldrop}',
    ].join('\n')),
    '  - job_name: discovered',
    '    scrape_interval: 1h',
    '    file_sd_configs:',
    `      - files: ["${join(dir, '*.json')}"]`,
    '        refresh_interval: 1h',
  ].join('\n'));
  await scrapeNow(s);
  t.same((await targets(s, '?job=relabelled'))[0]!.labels, { instance: a.address, job: 'relabelled', port: `p${a.address.split(':')[1]}` }, 'relabel_configs made a label');
  t.same(await series(s, 'app_latency_seconds_count'), [], 'metric_relabel_configs dropped a family');
  t.same((await series(s, 'app_requests_total')).map((x) => Object.keys(x.tags).sort()), [['instance', 'job', 'method', 'port'], ['instance', 'job', 'method', 'port']], 'and a label');
  t.same(await targets(s, '?job=discovered'), [], 'no file yet');

  writeFileSync(join(dir, 'one.json'), JSON.stringify([{ targets: [b.address], labels: { team: 'blue' } }]));
  const found = await poll(async () => { const x = await targets(s, '?job=discovered'); return x.length ? x : undefined; });
  t.same(found[0]!.labels, { instance: b.address, job: 'discovered', team: 'blue' }, 'a new file_sd file adds its targets');
  rmSync(join(dir, 'one.json'));
  await poll(async () => ((await targets(s, '?job=discovered')).length === 0 ? true : undefined));
  t.pass('removing the file removes them');

  // SIGHUP: `relabelled` changed (a new label), `discovered` removed, `added` new
  const file = join(s.dataDir, 'config.yaml');
  const before = readFileSync(file, 'utf8');
  const after = before.slice(0, before.indexOf('  - job_name: discovered')).replace('target_label: port', 'target_label: portnum') + job('added', b.address) + '\n';
  writeFileSync(file, after);
  t.equal(await s.server.reload(), true);
  const jobs = (await targets(s)).map((x) => [x.job, Object.keys(x.labels).sort()]);
  t.same(jobs.sort(), [['added', ['instance', 'job']], ['relabelled', ['instance', 'job', 'portnum']]]);
});

t.test('SIGHUP changing a job\'s interval and timeout: its kept targets are scheduled and bounded by the new ones', async (t) => {
  const exp = await startExporter(t);
  appMetrics(exp.registry);
  const s = await startTestServer(t, ['scrape:', '  scrape_configs:', job('paced', exp.address)].join('\n'));
  await scrapeNow(s);
  type Timed = Target & { scrape_interval_seconds: number; scrape_timeout_seconds: number; last_scrape: number | null };
  const first = (await targets(s))[0] as Timed;
  t.equal(first.scrape_interval_seconds, 3600);
  const file = join(s.dataDir, 'config.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('scrape_interval: 1h', 'scrape_interval: 1s').replace('scrape_timeout: 2s', 'scrape_timeout: 1s'));
  t.equal(await s.server.reload(), true);
  const now = (await targets(s))[0] as Timed;
  t.same([now.scrape_interval_seconds, now.scrape_timeout_seconds], [1, 1], 'the targets list shows the new settings');
  // an hourly target scraped again on its own: the loop follows the new interval
  const samples = async () => (await series(s, 'up')).reduce((n, x) => n + x.measurements.length, 0);
  const before = await samples();
  await poll(async () => ((await samples()) >= before + 2 ? true : undefined));
  t.pass('scraped every second after the reload, without being asked');
});

t.test('with external_labels, the health series carry them, and an exposed up is still refused as the target\'s own', async (t) => {
  const exp = await startExporter(t);
  exp.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('up 5\nwork 1\n'); };
  const s = await startTestServer(t, ['scrape:', '  global: {external_labels: {region: eu}}', '  scrape_configs:', job('ext', exp.address)].join('\n'));
  await scrapeNow(s);
  const up = await series(s, 'up');
  t.same(up.map((x) => x.tags), [{ instance: exp.address, job: 'ext', region: 'eu' }], 'one up series, with the external label');
  t.same(up[0]!.measurements.map((m) => m.value), [1], 'Gaugeway\'s value, not the exposed 5');
  t.same((await series(s, 'work')).map((x) => x.tags), [{ instance: exp.address, job: 'ext', region: 'eu' }]);
  // a reload changing the external labels: the health series follow
  const file = join(s.dataDir, 'config.yaml');
  writeFileSync(file, readFileSync(file, 'utf8').replace('region: eu', 'region: us'));
  t.equal(await s.server.reload(), true);
  await scrapeNow(s);
  t.same((await series(s, 'up', '&tags[region]=us')).map((x) => x.measurements.map((m) => m.value)), [[1]], 'the next up has the new label, and is still Gaugeway\'s');
});

t.test('targets are scraped on their own timer, and an above alert on a scraped gauge fires', async (t) => {
  const hook = await listener(t); // a webhook receiver: the alert needs a service
  const exp = await startExporter(t);
  const m = appMetrics(exp.registry);
  m.temperature.set({ room: 'lab' }, 95);
  const s = await startTestServer(t, ['scrape:', '  global: {scrape_interval: 1s, scrape_timeout: 1s}', '  scrape_configs:', `  - job_name: timed\n    static_configs: [{targets: ["${exp.address}"]}]`].join('\n'));
  const service = await s.request('POST', '/v1/services', { json: { title: 'hook', type: 'webhook', settings: { url: hook.url } } });
  t.equal(service.status, 201, JSON.stringify(service.body));
  const alert = await s.request('POST', '/v1/alerts', { json: { name: 'lab.hot', services: [service.body.id], conditions: [{ type: 'above', metric_name: 'app_temperature_celsius', threshold: 90, tags: [{ name: 'room', values: ['lab'] }] }] } });
  t.equal(alert.status, 201, JSON.stringify(alert.body));
  const up = await poll(async () => { const [x] = await targets(s); return x?.health === 'up' ? x : undefined; });
  t.equal(up.job, 'timed', 'scraped without being asked');
  const firing = await poll(async () => { const st = (await s.get('/v1/alerts/status')).body; return st.firing.length ? st.firing : undefined; });
  t.equal(firing[0].id, alert.body.id, 'the alert fired on scraped data');
});

t.test('a prometheus.yml named in scrape.config_files works unchanged', async (t) => {
  const exp = await startExporter(t);
  appMetrics(exp.registry);
  const dir = mkdtempSync(join(tmpdir(), 'gw-promyml-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'prometheus.yml'), [
    '# my global config',
    'global:',
    '  scrape_interval: 1h',
    '  evaluation_interval: 15s',
    '  external_labels:',
    '    monitor: codelab',
    'alerting:',
    '  alertmanagers:',
    '    - static_configs:',
    '        - targets: []',
    'rule_files: []',
    'scrape_configs:',
    '  - job_name: "prometheus"',
    '    static_configs:',
    `      - targets: ["${exp.address}"]`,
    '        labels:',
    '          app: "prometheus"',
  ].join('\n'));
  const s = await startTestServer(t, `scrape:\n  config_files: [${join(dir, 'prometheus.yml')}]`);
  await scrapeNow(s);
  const [target] = await targets(s);
  t.match(target, { job: 'prometheus', health: 'up', labels: { app: 'prometheus', instance: exp.address, job: 'prometheus' } });
  t.match((await series(s, 'app_temperature_celsius'))[0]!.tags, { monitor: 'codelab', app: 'prometheus' }, 'external labels added');
});

t.test('targets are visible to their account and to admins only', async (t) => {
  const exp = await startExporter(t);
  appMetrics(exp.registry);
  const s = await startTestServer(t, `scrape:\n  scrape_configs:\n${job('mine', exp.address)}`);
  const viewer = await s.newAccount('admin@localhost', 'viewer');
  const other = await s.newAccount('other@example.com', 'recorder');
  t.equal((await s.get('/v1/scrape/targets', { auth: viewer })).body.targets.length, 1, 'any role of the owning account');
  t.equal((await s.get('/v1/scrape/targets', { auth: other })).body.targets.length, 0, 'not another account');
  const otherAdmin = await s.newAccount('boss@example.com', 'admin');
  t.equal((await s.get('/v1/scrape/targets', { auth: otherAdmin })).body.targets.length, 1, 'an admin sees all');
});

t.test('real exporters\' output from fixtures: node_exporter text format and OpenMetrics', async (t) => {
  const fixtures = { node: 'node-exporter-1.5.0.prom', om: 'prom-client-15.om.txt' };
  const node = await startExporter(t);
  node.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }); res.end(readFileSync(`test/fixtures/scrape/${fixtures.node}`)); };
  const om = await startExporter(t);
  om.answer = (_req, res) => { res.writeHead(200, { 'content-type': 'application/openmetrics-text; version=1.0.0; charset=utf-8' }); res.end(readFileSync(`test/fixtures/scrape/${fixtures.om}`)); };
  const s = await startTestServer(t, `scrape:\n  scrape_configs:\n${job('node', node.address)}\n${job('om', om.address)}`);
  await scrapeNow(s);
  const byJob = Object.fromEntries((await targets(s)).map((x) => [x.job, x]));
  t.match(byJob.node, { health: 'up', last_error: null });
  t.ok(byJob.node!.samples_stored > 400, `node_exporter: ${byJob.node!.samples_stored} samples stored`);
  t.equal((await series(s, 'node_load1'))[0]!.measurements.at(-1)!.value, 1.18);
  t.match(byJob.om, { health: 'up', last_error: null });
  const requests = await series(s, 'http_requests_total');
  t.same(requests.map((r) => r.tags.path).sort(), ['/\\c3\\bcber', '/api/v1/items\\3fx\\3d\\221\\22'], 'values outside the tag charset are escaped reversibly');
  t.same((await series(s, 'queue_depth')).map((r) => r.tags.queue).sort(), ['?r?eports', 'emails']);
});

t.test('Debian\'s prometheus-node-exporter, scraped live', async (t) => {
  const { existsSync } = await import('node:fs');
  const bin = ['/usr/bin/prometheus-node-exporter', '/usr/sbin/prometheus-node-exporter'].find((p) => existsSync(p));
  if (!bin) { t.skip('prometheus-node-exporter is not installed (apt-get install prometheus-node-exporter)'); return; }
  const { spawn } = await import('node:child_process');
  const net = await import('node:net');
  const port = await new Promise<number>((resolve) => { const srv = net.createServer(); srv.listen(0, '127.0.0.1', () => { const p = (srv.address() as { port: number }).port; srv.close(() => resolve(p)); }); });
  const child = spawn(bin, [`--web.listen-address=127.0.0.1:${port}`, '--collector.disable-defaults', '--collector.loadavg', '--collector.meminfo', '--collector.cpu'], { stdio: 'ignore' });
  t.teardown(() => { child.kill(); });
  const s = await startTestServer(t, `scrape:\n  scrape_configs:\n${job('node', `127.0.0.1:${port}`)}`);
  const up = await poll(async () => { await scrapeNow(s); const [x] = await targets(s); return x?.health === 'up' ? x : undefined; }, 100, 200);
  t.ok(up.samples_stored > 10, `${up.samples_stored} samples stored`);
  t.ok((await series(s, 'node_memory_memtotal_bytes'))[0]!.measurements.at(-1)!.value > 0, 'MemTotal read');
  t.equal((await s.get('/v1/metrics/node_cpu_seconds_total')).body.type, 'counter');
});

t.test('a series that vanishes from its target ends: an absent alert on it fires, one on a series still exposed does not', async (t) => {
  const hook = await listener(t); // a webhook receiver: the alerts need a service
  const exp = await startExporter(t);
  const m = appMetrics(exp.registry);
  m.temperature.set({ room: 'office' }, 19);
  // the engine's schedule once a year: evaluations happen when the test asks, at a chosen time
  const s = await startTestServer(t, `alerts:\n  check_schedule: "0 0 1 1 *"\nscrape:\n  scrape_configs:\n${job('rooms', exp.address)}`);
  const service = await s.request('POST', '/v1/services', { json: { title: 'hook', type: 'webhook', settings: { url: hook.url } } });
  const absent = async (name: string, room: string) => {
    const r = await s.request('POST', '/v1/alerts', { json: { name, services: [service.body.id], conditions: [{ type: 'absent', metric_name: 'app_temperature_celsius', duration: 60, tags: [{ name: 'room', values: [room] }] }] } });
    t.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.id as number;
  };
  const lab = await absent('lab.gone', 'lab');
  const office = await absent('office.gone', 'office');
  const first = Date.now() / 1000;
  await scrapeNow(s);
  m.temperature.remove({ room: 'lab' }); // the lab sensor disappears from the exposition
  await poll(async () => (Date.now() / 1000 >= first + 3 ? true : undefined), 100, 100);
  await scrapeNow(s);
  t.same((await series(s, 'app_temperature_celsius', '&tags[room]=lab'))[0]!.measurements.length, 1, 'no point stored for the lab after it vanished');
  t.ok((await series(s, 'app_temperature_celsius', '&tags[room]=office'))[0]!.measurements.length >= 2, 'the office kept reporting');
  // 61 s after the first scrape: the lab has been silent for 61 s, the office for 58 s or less
  const rt = s.server.rt;
  await rt.alertEngine.evaluateAll(Math.floor(first) + 62);
  await rt.alertEngine.idle();
  const status = (await s.get('/v1/alerts/status')).body;
  t.same(status.firing.map((f: { id: number }) => f.id), [lab], 'only the vanished series is absent');
  t.notOk(status.firing.some((f: { id: number }) => f.id === office));
});

t.test('a job whose account does not exist is reported once, not again at every reload', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-orphan-job-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { server, log } = await startLogged(t, dir, ['scrape:', '  scrape_configs:', '  - job_name: orphan', '    account: nobody@example.com', '    static_configs: [{targets: ["127.0.0.1:9"]}]'].join('\n') + '\n');
  const said = () => log.lines().filter((l) => l.msg === 'scrape job not run: its account does not exist').length;
  t.equal(said(), 1);
  for (let i = 0; i < 3; i++) t.equal(await server.reload(), true);
  t.equal(said(), 1, 'three reloads later, still once');
});
