// The side-by-side bench (issue 14): the same logical workload as bench/run.js, sent to
// VictoriaMetrics (InfluxDB line protocol) or Prometheus (remote write) on this machine in
// the same run, each from its Debian package, with its data in a temp dir on a loopback
// port, started and stopped by pid. Each system is measured as Gaugeway is: samples/s,
// server CPU seconds per million samples, cores used, peak RSS, disk bytes a sample as
// the system leaves it and after its own compaction, and Q1-Q4 through its own query API
// (PromQL), on live data right after ingest and again after a restart.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import http from 'node:http';
import { replayLoad, rssMb, cpuSeconds } from './server.js';
import { PEER_METRIC } from './workload.js';

/** How each peer is found, started, fed, told to flush and compact. */
export const PEERS = {
  'victoria-metrics': {
    binary: '/usr/bin/victoria-metrics',
    package: 'victoria-metrics',
    format: 'influx',
    args: (dir, port, scrapeConfig) => [
      `-storageDataPath=${dir}`, `-httpListenAddr=127.0.0.1:${port}`, '-retentionPeriod=10y', '-loggerLevel=ERROR',
      // live data is queryable at once, and every repeat of a query is computed again
      '-search.latencyOffset=0s', '-search.disableCache',
      ...(scrapeConfig ? [`-promscrape.config=${writeConfig(dir, 'promscrape.yml', scrapeConfig)}`] : []),
    ],
    /** samples its scrapes stored, in its own /metrics */
    scrapedSamples: /^vm_promscrape_scraped_samples_sum (\S+)$/gm,
    ready: '/health',
    flush: async (port) => { await httpGet(port, '/internal/force_flush'); },
    compact: async (port, { start, end }) => {
      const months = new Set([start, end].map((t) => new Date(t * 1000).toISOString().slice(0, 7).replace('-', '_')));
      for (const m of months) await httpGet(port, `/internal/force_merge?partition_prefix=${m}`);
      await settle(port, /^vm_active_merges\{[^}]*\} (\S+)$/gm);
    },
  },
  prometheus: {
    binary: '/usr/bin/prometheus',
    package: 'prometheus',
    format: 'remote-write',
    args: (dir, port, scrapeConfig) => [
      `--config.file=${writeConfig(dir, 'prometheus.yml', scrapeConfig ?? 'global: {}\n')}`, `--storage.tsdb.path=${dir}`,
      `--web.listen-address=127.0.0.1:${port}`, '--web.enable-remote-write-receiver', '--storage.tsdb.retention.time=10y', '--log.level=error',
    ],
    scrapedSamples: /^prometheus_tsdb_head_samples_appended_total(?:\{[^}]*\})? (\S+)$/gm,
    ready: '/-/ready',
    flush: async () => {},
    // Prometheus compacts its head on its own, once a minute, when it spans more than 1.5
    // block ranges; there is no call to make it: wait until its compactions stop.
    compact: async (port) => { await settle(port, /^prometheus_tsdb_compactions_total (\S+)$/gm, { changing: true }); },
  },
};

/** Writes a peer's config file beside its data dir; its path. */
function writeConfig(dataDir, name, text) {
  const file = join(dataDir, '..', name);
  writeFileSync(file, text);
  return file;
}

/** The peers named on a command line: `--peer NAME` or `--peer=NAME`, as often as wanted. */
export function peerNames(argv) {
  return argv.flatMap((a, i, all) => (a === '--peer' ? [all[i + 1]] : a.startsWith('--peer=') ? [a.slice(7)] : []));
}

export function peerMissing(name) {
  const p = PEERS[name];
  if (!p) return `unknown peer "${name}" (known: ${Object.keys(PEERS).join(', ')})`;
  if (!existsSync(p.binary)) return `${p.binary} is not installed: apt-get install ${p.package}`;
  return null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

export function httpGet(port, path, timeoutMs = 600_000) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.get({ host: '127.0.0.1', port, path, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString(), ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: timeout`)));
    req.on('error', reject);
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until a metric of the peer's own /metrics settles: its sum is 0 (work in
 * progress), or with `changing`, it has not changed for 30 s (work done so far), at most 10 min.
 */
async function settle(port, re, { changing = false } = {}) {
  const read = async () => [...(await httpGet(port, '/metrics')).text.matchAll(re)].reduce((a, m) => a + Number(m[1]), 0);
  const deadline = Date.now() + 600_000;
  let last = await read();
  let since = Date.now();
  while (Date.now() < deadline) {
    await sleep(2000);
    const v = await read();
    if (!changing && v === 0) return;
    if (v !== last) { last = v; since = Date.now(); } else if (changing && Date.now() - since >= 30_000) return;
  }
}

export async function startPeer(name, dataDir, scrapeConfig) {
  const p = PEERS[name];
  const port = await freePort();
  const child = spawn(p.binary, p.args(dataDir, port, scrapeConfig), { stdio: ['ignore', 'ignore', 'inherit'] });
  let exited = null;
  child.once('exit', (code) => { exited = code; });
  for (let i = 0; i < 600; i++) {
    if (exited !== null) throw new Error(`${name} exited with ${exited} at start`);
    try { if ((await httpGet(port, p.ready, 2000)).status === 200) return { child, port }; } catch { /* not yet */ }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not become ready`);
}

export function stopPeer(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) { resolve(); return; }
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

const du = (dir) => Number(execFileSync('du', ['-sb', dir]).toString().split('\t')[0]);

/** Q1-Q4 of bench/run.js in PromQL, over the same spans and steps. */
export function peerQueries(end) {
  const m = PEER_METRIC;
  const range = (query, span, step) => `/api/v1/query_range?query=${encodeURIComponent(query)}&start=${end - span}&end=${end}&step=${step}`;
  return {
    Q1: range(`${m}{host="host-7"}`, 86400, 60),
    Q2: range(`avg_over_time(${m}{host="host-7"}[1h])`, 86400, 3600),
    Q3: range(`sum by (region) (${m})`, 3600, 60),
    Q4: range(`sum by (region) (avg_over_time(${m}[1h]))`, 86400, 3600),
  };
}

/**
 * The small queries also measured after WARM_UP more of the same: Node's first few hundred
 * run code V8 has not optimised yet, and every system's caches warm as well (docs/
 * benchmarks.md, "Q1 and Q2 warm"). Q3 and Q4 start that much later after ingest.
 */
export const WARM_QUERIES = ['Q1', 'Q2'];
export const WARM_UP = Number(process.env.BENCH_WARM_UP ?? 1000);

/** The median of `repeat` timed runs of `once` (resolving to ms) after WARM_UP untimed ones. */
export async function warmMedian(once, repeat) {
  for (let i = 0; i < WARM_UP; i++) await once();
  const ms = [];
  for (let i = 0; i < repeat; i++) ms.push(await once());
  ms.sort((a, b) => a - b);
  return ms[Math.min(ms.length - 1, Math.floor((ms.length - 1) * 0.5 + 0.5))];
}

async function timeQueries(port, end, repeat) {
  const pct = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((s.length - 1) * q + 0.5))]; };
  const out = {};
  for (const [name, path] of Object.entries(peerQueries(end))) {
    const check = await httpGet(port, path);
    if (check.status !== 200) throw new Error(`${name}: HTTP ${check.status} ${check.text.slice(0, 300)}`);
    const result = JSON.parse(check.text).data.result;
    const ms = [];
    for (let i = 0; i < repeat; i++) ms.push((await httpGet(port, path)).ms);
    out[name] = { p50: pct(ms, 0.5), p99: pct(ms, 0.99), series: result.length, points: result.reduce((a, r) => a + r.values.length, 0) };
    if (WARM_QUERIES.includes(name)) out[name].warm = await warmMedian(async () => (await httpGet(port, path)).ms, repeat);
  }
  return out;
}

/**
 * One run of the workload into a peer: ingest from bench/load.js (its own process, the
 * peer's wire format), then disk and queries live, compaction, a restart and queries again.
 */
export async function runPeer(name, { series, points, batch, concurrency, end, repeat }) {
  const p = PEERS[name];
  const dir = mkdtempSync(join(tmpdir(), `gw-bench-${name}-`));
  const dataDir = join(dir, 'data');
  try {
    let { child, port } = await startPeer(name, dataDir);
    const ingest = await replayLoad(child.pid, [port, '-', '-', series, points, batch, concurrency, end, p.format]);
    const rss = rssMb(child.pid, 'VmHWM');
    await p.flush(port);
    const live = await timeQueries(port, end, repeat);
    // as the system leaves it 30 s after ingest (Gaugeway's figure is taken the same way)
    await sleep(30_000);
    const bytesLive = du(dataDir);
    await p.compact(port, { start: end - points * 60, end });
    const bytesCompacted = du(dataDir);
    await stopPeer(child);
    ({ child, port } = await startPeer(name, dataDir));
    const restarted = await timeQueries(port, end, repeat);
    await stopPeer(child);
    return {
      peer: name,
      samplesPerSecond: ingest.samples / ingest.seconds,
      cpuPerMillion: ingest.cpu / (ingest.samples / 1e6),
      cores: ingest.cpu / ingest.seconds,
      rssMb: rss,
      bytesPerSampleLive: bytesLive / ingest.samples,
      bytesPerSample: bytesCompacted / ingest.samples,
      live,
      restarted,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The scrape workload of bench/scrape.js into a peer: it scrapes the same targets at the
 * same interval. After a warm-up of two rounds of every target (series created, then
 * steady), its CPU seconds per million samples its scrapes stored over `seconds`, and its
 * peak RSS meanwhile.
 */
export async function scrapePeer(name, { targets, series, interval, seconds }) {
  const p = PEERS[name];
  const dir = mkdtempSync(join(tmpdir(), `gw-bench-scrape-${name}-`));
  const config = [
    'global:', `  scrape_interval: ${interval}s`, `  scrape_timeout: ${interval - 1}s`,
    'scrape_configs:', '  - job_name: gen', `    static_configs: [{targets: [${targets.map((t) => `"${t}"`).join(', ')}]}]`, '',
  ].join('\n');
  try {
    const { child, port } = await startPeer(name, join(dir, 'data'), config);
    const scraped = async () => [...(await httpGet(port, '/metrics')).text.matchAll(p.scrapedSamples)].reduce((a, m) => a + Number(m[1]), 0);
    const deadline = Date.now() + 180_000;
    for (let n = await scraped(); n < 2 * targets.length * series; n = await scraped()) {
      if (Date.now() > deadline) throw new Error(`${name}: warm-up did not end (${n} samples scraped)`);
      await sleep(1000);
    }
    const c0 = cpuSeconds(child.pid);
    const s0 = await scraped();
    const t0 = Date.now();
    let peak = 0;
    while (Date.now() - t0 < seconds * 1000) {
      await sleep(1000);
      peak = Math.max(peak, rssMb(child.pid));
    }
    const cpu = cpuSeconds(child.pid) - c0;
    const samples = (await scraped()) - s0;
    const measured = (Date.now() - t0) / 1000;
    await stopPeer(child);
    return { peer: name, samples, seconds: measured, cpu, perMillion: cpu / (samples / 1e6), rssMb: peak };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
