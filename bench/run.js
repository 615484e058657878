// `npm run bench`: the issue-3 benchmark. Per run: start a server (child process, fresh
// data dir, sync on), let bench/load.js replay the workload, read the server's CPU time
// and peak RSS from /proc, stop it, compact, measure bytes on disk, restart it and time
// the four queries. Medians of the runs go to docs/benchmarks.md.
// `npm run bench -- --peer victoria-metrics --peer prometheus` also runs the same workload
// into each peer installed from its Debian package (bench/peers.js) and adds the
// side-by-side table with the ratios; a peer not installed is skipped with the reason.
// Env: BENCH_RUNS (3), BENCH_SERIES (10000), BENCH_POINTS (1440), BENCH_BATCH (1000),
// BENCH_QUERY_REPEAT (25), BENCH_WARM_UP (1000: Q1 and Q2 again after that many more), BENCH_OUT (docs/benchmarks.md), BENCH_PARSE_THREADS (http.parse_threads), BENCH_WAL_BYTES (storage.checkpoint.wal_bytes), BENCH_ALERTS (0: active alerts
// watching the workload's series during ingest, one per host; `npm run bench:alerts`
// compares), BENCH_NODE_FLAGS (server flags,
// e.g. --cpu-prof), BENCH_TRACE_MEM=1 (sample the server's memory figures), BENCH_KEEP_DIR=1 (keep each
// run's data dir, compacted, and print its path). The server
// runs with MALLOC_ARENA_MAX=2 and --max-semi-space-size=64, as the systemd unit sets them (override with the variables).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import http from 'node:http';
import { startServer as start, stopServer, replayLoad, rssMb, root } from './server.js';
import { METRIC } from './workload.js';
import { runPeer, peerMissing, peerNames, WARM_QUERIES, WARM_UP, warmMedian } from './peers.js';

const startServer = (config) => start(config, { flags: (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean) });
const peakRssMb = (pid) => rssMb(pid, 'VmHWM');
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SERIES = Number(process.env.BENCH_SERIES ?? 10000);
const POINTS = Number(process.env.BENCH_POINTS ?? 1440);
const BATCH = Number(process.env.BENCH_BATCH ?? 1000);
const REPEAT = Number(process.env.BENCH_QUERY_REPEAT ?? 25);
const ALERTS = Number(process.env.BENCH_ALERTS ?? 0);
const CONCURRENCY = 4;

function get(port, auth, path) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    https.get({ host: '127.0.0.1', port, path, rejectUnauthorized: false, headers: { authorization: auth } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (res.statusCode !== 200) reject(new Error(`${path}: HTTP ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`));
        else resolve({ ms, body: JSON.parse(Buffer.concat(chunks).toString()) });
      });
    }).on('error', reject);
  });
}

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p + 0.5))]; };
const median = (xs) => pct(xs, 0.5);

/** `count` active alerts on the workload's metric, one host each, notifying a local receiver. */
async function createAlerts(port, auth, count) {
  const receiver = http.createServer((req, res) => { req.resume(); req.on('end', () => res.end('ok')); });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  receiver.unref();
  const post = (path, body) => new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = https.request({ host: '127.0.0.1', port, method: 'POST', path, rejectUnauthorized: false, headers: { authorization: auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
      let b = ''; res.on('data', (c) => { b += c; }); res.on('end', () => (res.statusCode < 300 ? resolve(JSON.parse(b)) : reject(new Error(`${path}: ${res.statusCode} ${b}`))));
    });
    req.on('error', reject);
    req.end(text);
  });
  const service = await post('/v1/services', { title: 'bench', type: 'webhook', settings: { url: `http://127.0.0.1:${receiver.address().port}/` } });
  for (let i = 0; i < count; i++) {
    await post('/v1/alerts', {
      name: `bench.${i}`, services: [service.id],
      conditions: [{ type: 'above', metric_name: METRIC, threshold: 1e15, duration: 300, tags: [{ name: 'host', values: [`host-${i}`], grouped: false }] }],
    });
  }
}

async function oneRun(n) {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(config, [
    `data_dir: ${dir}`,
    'http:', '  listen: "127.0.0.1:0"',
    ...(process.env.BENCH_PARSE_THREADS !== undefined ? [`  parse_threads: ${Number(process.env.BENCH_PARSE_THREADS)}`] : []),
    'log:', '  level: info',
    'limits:', '  body_bytes: 16777216', '  new_series_per_hour: 0', '  rate_limit:', '    std:', '      limit: 0', '    agg:', '      limit: 0',
    'storage:', '  sync: true', ...(process.env.BENCH_WAL_BYTES ? ['  checkpoint:', `    wal_bytes: ${process.env.BENCH_WAL_BYTES}`] : []),
  ].join('\n'));
  let { child, port } = await startServer(config);
  const creds = readFileSync(join(dir, 'initial-credentials'), 'utf8');
  const user = /^email: (.*)$/m.exec(creds)[1];
  const pass = /^token: (.*)$/m.exec(creds)[1];
  const auth = 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');
  const end = Math.floor(Date.now() / 1000 / 60) * 60;
  if (ALERTS > 0) await createAlerts(port, auth, ALERTS);

  // BENCH_TRACE_MEM=1: sample the server's own memory figures while it ingests
  let memTrace = null;
  if (process.env.BENCH_TRACE_MEM) {
    const peak = {};
    memTrace = setInterval(async () => {
      try {
        const text = await new Promise((resolve, reject) => https.get({ host: '127.0.0.1', port, path: '/metrics', rejectUnauthorized: false }, (res) => {
          let b = ''; res.on('data', (c) => { b += c; }); res.on('end', () => resolve(b));
        }).on('error', reject));
        for (const name of ['process_resident_memory_bytes', 'nodejs_heap_size_total_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_external_memory_bytes']) {
          const m = new RegExp(`^(?:gaugeway_)?${name} (\\S+)`, 'm').exec(text);
          if (m) peak[name] = Math.max(peak[name] ?? 0, Number(m[1]) / 1048576);
        }
        console.error('mem', JSON.stringify(Object.fromEntries(Object.entries(peak).map(([k, v]) => [k, Math.round(v)]))));
      } catch { /* next time */ }
    }, 2000);
  }
  const ingest = await replayLoad(child.pid, [port, user, pass, SERIES, POINTS, BATCH, CONCURRENCY, end]);
  if (memTrace) clearInterval(memTrace);
  const rss = peakRssMb(child.pid);
  // live: the queries right after ingest, and the disk as the running service leaves it
  const live = await timeQueries(port, auth, end);
  await new Promise((r) => setTimeout(r, 30_000));
  const bytesLive = Number(execFileSync('du', ['-sb', join(dir, 'db')]).toString().split('\t')[0]);
  await stopServer(child);
  execFileSync(process.execPath, [join(root, 'bin/gaugeway.js'), 'store', 'compact', '--config', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  const bytes = Number(execFileSync('du', ['-sb', join(dir, 'db')]).toString().split('\t')[0]);

  ({ child, port } = await startServer(config));
  const latency = await timeQueries(port, auth, end);
  await stopServer(child);
  if (process.env.BENCH_KEEP_DIR) console.error(`data dir kept: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
  const r = {
    run: n,
    samplesPerSecond: ingest.samples / ingest.seconds,
    cpuPerMillion: ingest.cpu / (ingest.samples / 1e6),
    cores: ingest.cpu / ingest.seconds,
    rssMb: rss,
    bytesPerSampleLive: bytesLive / ingest.samples,
    bytesPerSample: bytes / ingest.samples,
    live,
    latency,
  };
  console.log(JSON.stringify(r));
  return r;
}

/** Q1-Q4 and the composites, each REPEAT times after two unmeasured runs. */
async function timeQueries(port, auth, end) {
  const base = `/v1/measurements/${METRIC}?end_time=${end}`;
  const queries = {
    Q1: `${base}&duration=86400&resolution=60&tags[host]=host-7`,
    Q2: `${base}&duration=86400&resolution=3600&summary_function=mean&tags[host]=host-7`,
    Q3: `${base}&duration=3600&resolution=60&group_by=region&group_by_function=sum`,
    Q4: `${base}&duration=86400&resolution=3600&group_by=region&group_by_function=sum&summary_function=mean`,
    // issue 13: each composite against the plain group_by query over the same series
    C1: `/v1/measurements?compose=${encodeURIComponent(`divide([sum(s("${METRIC}",{"region":"region-1"})), sum(s("${METRIC}","*"))])`)}&start_time=${end - 86400}&end_time=${end}&resolution=3600`,
    C2: `/v1/measurements?compose=${encodeURIComponent(`top(s("${METRIC}","*"),{count:"10",function:"max"})`)}&start_time=${end - 3600}&end_time=${end}&resolution=60`,
  };
  const latency = {};
  for (const [name, path] of Object.entries(queries)) {
    const check = await get(port, auth, path);
    const list = Array.isArray(check.body) ? check.body : check.body.series; // composites: a bare array
    const points = list.reduce((a, s) => a + s.measurements.length, 0);
    await get(port, auth, path);
    const ms = [];
    for (let i = 0; i < REPEAT; i++) ms.push((await get(port, auth, path)).ms);
    latency[name] = { p50: median(ms), p99: pct(ms, 0.99), series: list.length, points };
    if (WARM_QUERIES.includes(name)) latency[name].warm = await warmMedian(async () => (await get(port, auth, path)).ms, REPEAT);
  }
  return latency;
}

const peers = [];
for (const name of peerNames(process.argv)) {
  const missing = peerMissing(name);
  if (missing) console.error(`peer ${name} skipped: ${missing}`);
  else peers.push(name);
}
const runs = [];
for (let i = 1; i <= RUNS; i++) runs.push(await oneRun(i));
// each peer's runs right after ours, on the same machine with the same bodies' values
const peerRuns = {};
for (const name of peers) {
  peerRuns[name] = [];
  for (let i = 1; i <= RUNS; i++) {
    const end = Math.floor(Date.now() / 1000 / 60) * 60;
    const r = await runPeer(name, { series: SERIES, points: POINTS, batch: BATCH, concurrency: CONCURRENCY, end, repeat: REPEAT });
    console.log(JSON.stringify(r));
    peerRuns[name].push(r);
  }
}
const med = (f) => median(runs.map(f));
const summary = {
  samplesPerSecond: med((r) => r.samplesPerSecond),
  cpuPerMillion: med((r) => r.cpuPerMillion),
  rssMb: med((r) => r.rssMb),
  bytesPerSample: med((r) => r.bytesPerSample),
  q: Object.fromEntries(['Q1', 'Q2', 'Q3', 'Q4', 'C1', 'C2'].map((q) => [q, { p50: med((r) => r.latency[q].p50), p99: med((r) => r.latency[q].p99) }])),
};
const bar = { samplesPerSecond: 400000, cpuPerMillion: 2.5, rssMb: 400, bytesPerSample: 5, Q1: 15, Q2: 10, Q3: 300, Q4: 200 };
const ok = (v, limit, higher = false) => (higher ? v >= limit : v <= limit) ? 'met' : '**not met**';
const f = (x, d = 1) => x.toFixed(d);
const md = `# Benchmarks

Generated by \`npm run bench\` (bench/run.js) on ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}.
Workload: one metric, ${SERIES} series (host, region x5, svc), ${POINTS} points per series at 60 s = ${SERIES * POINTS} samples;
40 % counters, 40 % two-decimal gauges, 20 % full-precision floats; batches of ${BATCH}, ${CONCURRENCY} requests in flight over HTTPS keep-alive,
\`storage.sync: true\`. Load generator in its own process with pre-built bodies. Medians of ${RUNS} runs.

| figure | median | bar | |
|---|---|---|---|
| sustained ingest | ${Math.round(summary.samplesPerSecond).toLocaleString('en')} samples/s | >= 400,000 | ${ok(summary.samplesPerSecond, bar.samplesPerSecond, true)} |
| server CPU per million samples | ${f(summary.cpuPerMillion, 2)} s | <= 2.5 s | ${ok(summary.cpuPerMillion, bar.cpuPerMillion)} |
| peak server RSS | ${f(summary.rssMb, 0)} MB | <= 400 MB | ${ok(summary.rssMb, bar.rssMb)} |
| disk per sample, all tiers, after compaction | ${f(summary.bytesPerSample, 2)} bytes | <= 5 | ${ok(summary.bytesPerSample, bar.bytesPerSample)} |
| Q1 one series, 1 day, res 60 (p50 / p99) | ${f(summary.q.Q1.p50)} / ${f(summary.q.Q1.p99)} ms | p50 <= 15 ms | ${ok(summary.q.Q1.p50, bar.Q1)} |
| Q2 one series, 1 day, res 3600, mean | ${f(summary.q.Q2.p50)} / ${f(summary.q.Q2.p99)} ms | p50 <= 10 ms | ${ok(summary.q.Q2.p50, bar.Q2)} |
| Q3 all series, 1 h, res 60, group_by region sum | ${f(summary.q.Q3.p50)} / ${f(summary.q.Q3.p99)} ms | p50 <= 300 ms | ${ok(summary.q.Q3.p50, bar.Q3)} |
| Q4 all series, 1 day, res 3600, group_by region, sum of means | ${f(summary.q.Q4.p50)} / ${f(summary.q.Q4.p99)} ms | p50 <= 200 ms | ${ok(summary.q.Q4.p50, bar.Q4)} |
| C1 composite \`divide([sum(s(m,{region:region-1})), sum(s(m,"*"))])\`, 1 day, res 3600 | ${f(summary.q.C1.p50)} / ${f(summary.q.C1.p99)} ms | <= 2 x Q4 (${f(2 * summary.q.Q4.p50)} ms) | ${ok(summary.q.C1.p50, 2 * summary.q.Q4.p50)} (${f(summary.q.C1.p50 / summary.q.Q4.p50, 2)} x) |
| C2 composite \`top(s(m,"*"),{count:10,function:max})\`, 1 h, res 60 | ${f(summary.q.C2.p50)} / ${f(summary.q.C2.p99)} ms | <= 2 x Q3 (${f(2 * summary.q.Q3.p50)} ms) | ${ok(summary.q.C2.p50, 2 * summary.q.Q3.p50)} (${f(summary.q.C2.p50 / summary.q.Q3.p50, 2)} x) |

## Runs

| run | samples/s | CPU s / M | RSS MB | bytes/sample | Q1 p50 | Q2 p50 | Q3 p50 | Q4 p50 | C1 p50 | C2 p50 |
|---|---|---|---|---|---|---|---|---|---|---|
${runs.map((r) => `| ${r.run} | ${Math.round(r.samplesPerSecond).toLocaleString('en')} | ${f(r.cpuPerMillion, 2)} | ${f(r.rssMb, 0)} | ${f(r.bytesPerSample, 2)} | ${f(r.latency.Q1.p50)} | ${f(r.latency.Q2.p50)} | ${f(r.latency.Q3.p50)} | ${f(r.latency.Q4.p50)} | ${f(r.latency.C1.p50)} | ${f(r.latency.C2.p50)} |`).join('\n')}
`;
const sideBySide = peers.length ? sideBySideMd() : '';

/** The side-by-side table (issue 14): medians of each system's runs, and our ratios to each peer. */
function sideBySideMd() {
  const systems = [['Gaugeway', runs], ...peers.map((p) => [p, peerRuns[p]])];
  const m = (list, fn) => median(list.map(fn));
  const rows = [
    ['ingest samples/s', (l) => m(l, (r) => r.samplesPerSecond), (x) => Math.round(x).toLocaleString('en')],
    ['server CPU s per million samples', (l) => m(l, (r) => r.cpuPerMillion), (x) => f(x, 2)],
    ['server cores used while ingesting', (l) => m(l, (r) => r.cores), (x) => f(x, 2)],
    ['peak RSS MB', (l) => m(l, (r) => r.rssMb), (x) => f(x, 0)],
    ['disk bytes a sample, 30 s after ingest (as the service leaves it)', (l) => m(l, (r) => r.bytesPerSampleLive), (x) => f(x, 2)],
    ['disk bytes a sample, after its own compaction', (l) => m(l, (r) => r.bytesPerSample), (x) => f(x, 2)],
    ...['Q1', 'Q2', 'Q3', 'Q4'].flatMap((q) => [
      [`${q} p50 ms, live (right after ingest)`, (l) => m(l, (r) => r.live[q].p50), (x) => f(x, 1)],
      [`${q} p50 ms, after a restart`, (l) => m(l, (r) => (r.restarted ?? r.latency)[q].p50), (x) => f(x, 1)],
    ]),
    ...WARM_QUERIES.map((q) => [`${q} p50 ms, live, after ${WARM_UP.toLocaleString('en')} more of it`, (l) => m(l, (r) => r.live[q].warm), (x) => f(x, 2)]),
  ];
  const head = `| figure | ${systems.map(([n]) => n).join(' | ')} | ${peers.map((p) => `Gaugeway / ${p}`).join(' | ')} |`;
  const sep = `|---|${systems.map(() => '---').join('|')}|${peers.map(() => '---').join('|')}|`;
  const body = rows.map(([label, value, show]) => {
    const ours = value(runs);
    return `| ${label} | ${systems.map(([, l]) => show(value(l))).join(' | ')} | ${peers.map((p) => f(ours / value(peerRuns[p]), 2)).join(' | ')} |`;
  });
  const ratio = (p, fn) => fn(runs) / fn(peerRuns[p]);
  const bars = [];
  const bar = (text, value, limit, higher = false) => bars.push(`| ${text} | ${f(value, 2)} | ${higher ? '>=' : '<='} ${limit} | ${(higher ? value >= limit : value <= limit) ? 'met' : '**not met**'} |`);
  if (peers.includes('prometheus')) {
    bar('CPU per million, ours / Prometheus\'s', ratio('prometheus', (l) => m(l, (r) => r.cpuPerMillion)), 1);
    bar('ingest samples/s, ours / Prometheus\'s', ratio('prometheus', (l) => m(l, (r) => r.samplesPerSecond)), 0.75, true);
    bar('peak RSS, ours / Prometheus\'s', ratio('prometheus', (l) => m(l, (r) => r.rssMb)), 1);
  }
  if (peers.includes('victoria-metrics')) {
    bar('CPU per million, ours / VictoriaMetrics\'s (stretch)', ratio('victoria-metrics', (l) => m(l, (r) => r.cpuPerMillion)), 1);
    bar('disk a sample as left, ours / VictoriaMetrics\'s', ratio('victoria-metrics', (l) => m(l, (r) => r.bytesPerSampleLive)), 1.2);
    bar('disk a sample after compaction, ours / VictoriaMetrics\'s', ratio('victoria-metrics', (l) => m(l, (r) => r.bytesPerSample)), 1);
    for (const q of ['Q3', 'Q4']) bar(`${q} p50 live, ours / VictoriaMetrics's`, ratio('victoria-metrics', (l) => m(l, (r) => r.live[q].p50)), 1.5);
  }
  for (const p of peers) for (const q of ['Q1', 'Q2']) bar(`${q} p50 live, ours / ${p}'s`, ratio(p, (l) => m(l, (r) => r.live[q].p50)), 1);
  return `
## Side by side

Generated by \`npm run bench -- ${peers.map((p) => `--peer ${p}`).join(' ')}\` in the same run as the tables above: the same
${(SERIES * POINTS).toLocaleString('en')} samples (same series, values and times), ${CONCURRENCY} requests in flight, each system on loopback with its
data in a temp dir; ${peers.map((p) => `${p} from its Debian package (${peerVersion(p)})`).join(', ')}.
VictoriaMetrics receives InfluxDB line protocol, Prometheus remote write (protobuf, snappy); their
queries are PromQL over the same spans and steps (Q1 \`m{host="host-7"}\`, Q2 \`avg_over_time(m{host="host-7"}[1h])\`
step 1 h, Q3 \`sum by (region) (m)\` step 60 s over 1 h, Q4 \`sum by (region) (avg_over_time(m[1h]))\` step 1 h over
1 day); VictoriaMetrics runs with its response cache off. "After its own compaction": Gaugeway's
\`gaugeway store compact\`, VictoriaMetrics' /internal/force_merge, Prometheus's head compaction
(waited for until it stops). Medians of ${RUNS} runs each. On a shared machine the ratios mean
something; the absolute figures do not.

${head}
${sep}
${body.join('\n')}

| bar (issue 14) | ratio | bar | |
|---|---|---|---|
${bars.join('\n')}
`;
}

function peerVersion(name) {
  try {
    return execFileSync('dpkg-query', ['-W', '-f=${Version}', name === 'victoria-metrics' ? 'victoria-metrics' : 'prometheus']).toString();
  } catch {
    return 'version unknown';
  }
}

// the scrape workload (issue 12), in its own run: BENCH_SCRAPE=0 leaves it out
let scrapeMd = '';
if (process.env.BENCH_SCRAPE !== '0') {
  const file = join(tmpdir(), `gw-bench-scrape-${process.pid}.md`);
  execFileSync(process.execPath, [join(root, 'bench/scrape.js'), ...peers.flatMap((p) => ['--peer', p])], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, BENCH_SCRAPE_OUT: file } });
  scrapeMd = `\n${readFileSync(file, 'utf8')}`;
  rmSync(file, { force: true });
}
const out = process.env.BENCH_OUT ?? join(root, 'docs/benchmarks.md');
// the hand-written analysis (what falls short, what the profile shows) follows the figures
const notes = join(root, 'bench/notes.md');
writeFileSync(out, md + sideBySide + scrapeMd + (existsSync(notes) ? `\n${readFileSync(notes, 'utf8')}` : ''));
console.log(md + sideBySide);
