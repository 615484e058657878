// `npm run bench:scrape-pipeline`: what a scrape costs after the fetch, without HTTP.
// The scrape benchmark's expositions (100 targets x 1,000 series, exposition.js) go
// through the service's own scrape loops (TargetLoop.accept: parse, convert, store with
// the health series) into a real engine on LevelDB in a temp dir, in this process, as
// fast as they are stored; each round is 5 s of scrape time later than the one before.
// CPU is counted only while rounds are stored (not while the bodies are generated), so
// the figure moves with the code, not with the machine's other load as much as the full
// benchmark's does (its HTTP client alone costs about 1 s per million on this machine).
// BENCH_PIPELINE_ROUNDS (30) rounds are measured after 2 that create every series. A
// checkpoint runs every 12 rounds (60 s of scrape time, the default interval; the engine's
// own timer is set far off) and counts: with BENCH_PIPELINE_ROUNDS=160 every series
// reaches its first part (120 points, spread 90-150 by series), which is what the
// full benchmark's 720 s run takes in, in about 40 s here. BENCH_PIPELINE_CONCURRENCY: how
// many targets are converted at once (default all 100). Run with --expose-gc (as the npm
// script does), it also reports the live heap a series after a full collection: what the
// service keeps for each scraped series (scrape caches, index, head), which, unlike the
// CPU figure, barely moves from run to run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exposition } from './exposition.js';

const TARGETS = 100;
const ROUNDS = Number(process.env.BENCH_PIPELINE_ROUNDS ?? 30);
const CHECKPOINT_ROUNDS = 12;
const CONCURRENCY = Number(process.env.BENCH_PIPELINE_CONCURRENCY ?? TARGETS);
const dist = new URL('../dist/', import.meta.url);
const { parseConfig } = await import(new URL('config/load.js', dist));
const { createRuntime, closeRuntime } = await import(new URL('runtime.js', dist));
const { createLogger } = await import(new URL('log.js', dist));
const { TargetLoop } = await import(new URL('scrape/loop.js', dist));
const { targetsOf } = await import(new URL('scrape/target.js', dist));

const dir = mkdtempSync(join(tmpdir(), 'gw-bench-pipeline-'));
const addresses = Array.from({ length: TARGETS }, (_, t) => `"127.0.0.1:${10000 + t}"`).join(', ');
const config = parseConfig([
  `data_dir: ${dir}`, 'storage:', '  sync: true', '  checkpoint:', '    interval_seconds: 3600', 'limits:', '  new_series_per_hour: 0',
  'scrape:', '  scrape_configs:', '    - job_name: gen', '      scrape_interval: 5s', '      scrape_timeout: 4s',
  `      static_configs: [{targets: [${addresses}]}]`,
].join('\n'), join(dir, 'config.yaml'), {});
const rt = await createRuntime(config, createLogger('silent'));
const job = config.scrapeJobs[0];
// the output the service's scheduler gives its own loops (runtime.ts)
const out = rt.scrape.out;
const loops = targetsOf(job, job.staticConfigs[0]).map((o) => new TargetLoop(o.target, job, 1, out));
// scrape times end 40 s before now, so every point is recent and none is in the future
const first = Date.now() - (ROUNDS + 2) * 5000 - 40_000;
let cpu = 0;
let samples = 0;
for (let r = 0; r < ROUNDS + 2; r++) {
  const bodies = loops.map((_, t) => Buffer.from(exposition(t, r + 1)));
  const started = first + r * 5000;
  const c0 = process.cpuUsage();
  const tallies = [];
  // BENCH_PIPELINE_CONCURRENCY targets at a time (all 100 by default); the service spreads
  // its targets over the interval, so only a few scrapes overlap there
  for (let t0 = 0; t0 < loops.length; t0 += CONCURRENCY) {
    tallies.push(...await Promise.all(loops.slice(t0, t0 + CONCURRENCY).map(async (loop, i) => {
      const tally = { scraped: 0, stored: 0, refused: new Map() };
      await loop.accept({ contentType: 'text/plain; version=0.0.4', body: bodies[t0 + i] }, started, performance.now(), tally);
      return tally;
    })));
  }
  if ((r + 1) % CHECKPOINT_ROUNDS === 0) await rt.engine.checkpoint();
  const used = process.cpuUsage(c0);
  if (r < 2) continue;
  cpu += (used.user + used.system) / 1e6;
  samples += tallies.reduce((n, tally) => n + tally.stored, 0);
}
const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
let live = '';
if (globalThis.gc) {
  globalThis.gc();
  globalThis.gc();
  const series = rt.engine.stats().series;
  // what one full collection of what the service keeps costs: marking is done per object
  // and reference, so this follows the number of objects a series holds, not their bytes
  const walls = [];
  const c1 = process.cpuUsage();
  for (let i = 0; i < 5; i++) {
    const w0 = performance.now();
    globalThis.gc();
    walls.push(performance.now() - w0);
  }
  const gcCpu = process.cpuUsage(c1);
  walls.sort((a, b) => a - b);
  live = `; live heap after a full collection ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1)} MB, ` +
    `${Math.round(process.memoryUsage().heapUsed / series).toLocaleString('en')} bytes a series (${series.toLocaleString('en')} series); ` +
    `a full collection ${walls[2].toFixed(0)} ms (median of 5), ${((gcCpu.user + gcCpu.system) / 5e3).toFixed(0)} ms of CPU each`;
}
await Promise.all(loops.map((loop) => loop.stop()));
await closeRuntime(rt);
rmSync(dir, { recursive: true, force: true });
console.log(`${samples.toLocaleString('en')} scraped samples stored in ${ROUNDS} rounds of ${TARGETS} targets: ` +
  `${(cpu / (samples / 1e6)).toFixed(2)} CPU s per million (parse, convert, store; no HTTP), JS heap ${heapMb.toFixed(0)} MB at the end${live}`);
