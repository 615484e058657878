// `node bench/read-wide.js [--series 10000] [--repeat 30] [--window-seconds 900] [--split] [--live]`: the wide
// soak's slowest read on its own, in process, no HTTP: a grouped 1-hour read at 60 s
// (group_by region, sum of means) over series with a point every 10 s, as the soak's
// data stands past a few window boundaries (every ended window one sealed part a tier,
// the current one in the head). --split: the current window's points written too but the
// last three, so its last minute is split between a part and the head, as a checkpoint
// mid-minute leaves most series in the soak. --live: no part of the current window is
// written, so with --window-seconds 21600 the whole hour is read from the head, as the
// push benchmark's live Q3 reads it right after ingest. Prints the read's p50 / p90 / max in ms. Run it with
// `node --cpu-prof --cpu-prof-dir=DIR` for the profile of the reads (the set-up is the
// first seconds). Build first (`npm run build`): it uses dist/.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: opt } = parseArgs({ options: { series: { type: 'string', default: '10000' }, repeat: { type: 'string', default: '30' }, 'window-seconds': { type: 'string', default: '900' }, split: { type: 'boolean', default: false }, live: { type: 'boolean', default: false } } });
process.env.GW_TEST_WINDOW_SECONDS = opt['window-seconds'];
const { Store } = await import('../dist/store/db.js');
const { CommitQueue } = await import('../dist/store/commit.js');
const { Engine, COLUMN } = await import('../dist/tsdb/engine.js');
const { createLogger } = await import('../dist/log.js');
const { valueSample } = await import('../dist/tsdb/sample.js');
const { GroupFold, forEachValue } = await import('../dist/query/summary.js');
const { rollUp } = await import('../dist/tsdb/points.js');

const SERIES = Number(opt.series);
const dir = mkdtempSync(join(tmpdir(), 'gw-read-wide-'));
const store = await Store.open(dir, { sync: false });
const commit = new CommitQueue(store.db, false);
const engine = await Engine.open(store, commit, createLogger('silent'), { checkpointMs: 3_600_000, checkpointWalBytes: 1 << 30, sealIdleMs: 1, ...(opt.split ? { flushPoints: 1 } : {}), ...(opt.live ? { flushPoints: 1e9, headMaxAgeMs: 1e12 } : {}) });
const tags = Array.from({ length: SERIES }, (_, i) => Object.freeze([Object.freeze(['host', `host-${i}`]), Object.freeze(['region', `region-${Math.floor(i / (SERIES / 5))}`])]));
const now = Math.floor(Date.now() / 60000) * 60;
const started = performance.now();
const append = async (fromT, toT) => {
  for (let t = fromT; t < toT; t += 10) await engine.append(1, tags.map((tg, i) => valueSample('soak.m0', tg, t, (i * 7 + t) % 1000 / 10)));
};
const headFrom = opt.split ? now - 30 : now;
await append(now - 3600, headFrom);
// ended windows written (one part a tier each) and sealed; the current one stays in the
// head, or with --split is written too and the head gets the last three points
await engine.checkpoint();
await engine.checkpoint();
await append(headFrom, now);
console.log(`${SERIES} series x 360 points set up in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const refs = engine.select(1, 'soak.m0', { op: 'all' });
const region = (r) => r.tags.find(([k]) => k === 'region')[1];
const groups = [...new Set(refs.map(region))].sort();
const unitOf = refs.map((r) => groups.indexOf(region(r)));
const from = now - 3600;
const times = [];
const busy = [];
for (let k = 0; k < Number(opt.repeat); k++) {
  const t0 = performance.now();
  const elu = performance.eventLoopUtilization();
  const folds = groups.map(() => new GroupFold(from, 60, 60, 'sum'));
  await engine.readEach(1, refs.map((r) => r.id), 60, from, now, (n, p) => forEachValue(rollUp(p, 60), 'mean', from, false, folds[unitOf[n]].add), COLUMN.count);
  times.push(performance.now() - t0);
  // the request thread's own share: what a server busy with other work waits behind
  busy.push(performance.eventLoopUtilization(elu).active);
}
const at = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p + 0.5))].toFixed(0); };
console.log(`grouped 1-hour read of ${refs.length} series: p50 ${at(times, 0.5)} ms, p90 ${at(times, 0.9)} ms, max ${at(times, 1)} ms (${times.length} reads); the thread busy p50 ${at(busy, 0.5)} ms`);
await engine.close();
await commit.idle();
await store.close();
rmSync(dir, { recursive: true, force: true });
