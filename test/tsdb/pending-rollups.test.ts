// A series' current window writes raw and 60 s parts at its checkpoints and its 900 s and
// 3600 s parts once, at its seal (src/tsdb/pending-rollups.ts): until then coarse reads
// roll its 60 s parts up, through restarts, crashes, retention passes and purges, and give
// exactly what rolling the raw points up gives.
import t, { type Test } from 'tap';
import { openEngine, engineDir } from '../helpers/engine.js';
import { valueSample } from '../../src/tsdb/sample.js';
import { rollUp, type Points } from '../../src/tsdb/points.js';
import { MINUTE_RAW, WINDOW, parseChunkKey, windowOf, type PartTier } from '../../src/tsdb/keys.js';
import { CommitQueue } from '../../src/store/commit.js';
import { RetentionJob, type Retention } from '../../src/tsdb/retention.js';
import { createLogger } from '../../src/log.js';

const log = createLogger('silent');
const DAY = 86400;
const tags = Object.freeze([Object.freeze(['host', 'a'] as const)]);
const tempDir = (t: Test) => engineDir(t, 'gw-pending-');

// The next window: open for hours whatever the clock, so a test never races its end.
const nextWindow = () => windowOf(Math.floor(Date.now() / 1000)) + WINDOW;

type Engine = Awaited<ReturnType<typeof openEngine>>['engine'];

async function tiersStored(engine: Engine): Promise<PartTier[]> {
  return [...new Set((await engine.chunks.keys().all()).map((k) => parseChunkKey(k).tier))].sort((x, y) => x - y);
}

/** Appends `rounds` checkpoints of 100 points every 7 s (never on a whole minute at i = 0). */
async function fill(engine: Engine, base: number, rounds: number, from = 0): Promise<void> {
  for (let k = from; k < from + rounds; k++) {
    await engine.append(1, Array.from({ length: 100 }, (_, i) => valueSample('m', tags, base + 7 + (k * 100 + i) * 7, k * 1000 + i * 0.25)));
    await engine.checkpoint();
  }
}

async function readAll(engine: Engine, base: number): Promise<Record<0 | 60 | 900 | 3600, Points>> {
  const id = engine.select(1, 'm', { op: 'all' })[0]!.id;
  const one = async (tier: 0 | 60 | 900 | 3600) => (await engine.read(1, [id], tier, base, base + WINDOW))[0]!;
  return { 0: await one(0), 60: await one(60), 900: await one(900), 3600: await one(3600) };
}

function sameRollups(t: Test, got: Record<0 | 60 | 900 | 3600, Points>, raw: Points, what: string): void {
  for (const tier of [60, 900, 3600] as const) t.same(got[tier], rollUp(raw, tier), `${what}: the ${tier} s tier is raw rolled up`);
}

t.test('an open window writes no coarse parts until its seal, and coarse reads roll its 60 s parts up', async (t) => {
  const dir = tempDir(t);
  const base = nextWindow();
  const a = await openEngine(dir, { flushPoints: 1 });
  await fill(a.engine, base, 6);
  await a.engine.compacted();
  t.same(await tiersStored(a.engine), [0, 60], 'only raw and 60 s parts');
  t.equal(a.engine.stats().pendingRollups, 1, 'the window is listed');
  const raw = (await readAll(a.engine, base))[0];
  t.equal(raw.t.length, 600);
  sameRollups(t, await readAll(a.engine, base), raw, 'pending, from the parts');
  // points in the head and in parts at once: a coarse bucket split between them
  await a.engine.append(1, [valueSample('m', tags, base + 7 + 600 * 7, 5)]);
  const withHead = await readAll(a.engine, base);
  t.equal(withHead[0].t.length, 601);
  sameRollups(t, withHead, withHead[0], 'pending, parts and head');
  await a.engine.close();
  await a.crash();

  const b = await openEngine(dir, { flushPoints: 1 });
  sameRollups(t, await readAll(b.engine, base), withHead[0], 'after a restart, still pending');
  t.equal(b.engine.stats().pendingRollups, 1, 'the marker survived the restart');
  t.equal(b.engine.sealPendingLeft(base + WINDOW - 1), 0, 'a window that has not ended is not sealed');
  t.equal(b.engine.sealPendingLeft(base + WINDOW), 1, 'an ended window out of the head is sealed');
  await b.engine.compacted();
  t.equal(b.engine.stats().pendingRollups, 0, 'and no longer listed');
  t.same(await tiersStored(b.engine), [0, 60, 900, 3600], 'its coarse parts are written');
  const keys = await b.engine.chunks.keys().all();
  for (const tier of [0, 60, 900, 3600]) t.equal(keys.filter((k) => parseChunkKey(k).tier === tier).length, 1, `one ${tier || 'raw'} part`);
  const sealed = await readAll(b.engine, base);
  t.same(sealed[0], withHead[0], 'raw points as they were');
  sameRollups(t, sealed, withHead[0], 'sealed');
  await b.engine.close();
  await b.crash();

  const c = await openEngine(dir, { flushPoints: 1 });
  t.equal(c.engine.stats().pendingRollups, 0, 'the marker is gone from the store too');
  sameRollups(t, await readAll(c.engine, base), withHead[0], 'sealed, after a restart');
  await c.engine.close();
  await c.crash();
});

t.test('a crash after a pending window\'s checkpoints loses no coarse point, and its next points stay pending', async (t) => {
  const dir = tempDir(t);
  const base = nextWindow();
  const a = await openEngine(dir, { flushPoints: 1 });
  await fill(a.engine, base, 3);
  await a.engine.append(1, [valueSample('m', tags, base + 5000, 1)]); // in the WAL only
  await a.crash(); // no shutdown checkpoint

  const b = await openEngine(dir, { flushPoints: 1 });
  await b.engine.checkpoint();
  await fill(b.engine, base, 2, 3);
  await b.engine.compacted();
  t.same(await tiersStored(b.engine), [0, 60], 'replayed and later points took no coarse parts either');
  const got = await readAll(b.engine, base);
  t.equal(got[0].t.length, 501);
  sameRollups(t, got, got[0], 'after the crash');
  await b.engine.close();
  await b.crash();
});

t.test('windows that are not open, or hold whole minutes, write their coarse parts at each checkpoint', async (t) => {
  const dir = tempDir(t);
  const a = await openEngine(dir, { flushPoints: 1 });
  const past = windowOf(Math.floor(Date.now() / 1000)) - 2 * WINDOW;
  await fill(a.engine, past, 1);
  t.same(await tiersStored(a.engine), [0, 60, 900, 3600], 'a window that has ended: coarse parts at once');
  t.equal(a.engine.stats().pendingRollups, 0);
  await a.engine.close();
  await a.crash();

  const dir2 = tempDir(t);
  const b = await openEngine(dir2, { flushPoints: 1 });
  const base = nextWindow();
  await b.engine.append(1, Array.from({ length: 30 }, (_, i) => valueSample('m', tags, base + i * 60, i)));
  await b.engine.checkpoint();
  t.same(await tiersStored(b.engine), [MINUTE_RAW, 900, 3600], 'points on whole minutes: one part for raw and 60 s, and coarse parts');
  // later points off the minute join the window as it began: with coarse parts
  await b.engine.append(1, [valueSample('m', tags, base + 1800 + 7, 1)]);
  await b.engine.checkpoint();
  t.equal(b.engine.stats().pendingRollups, 0, 'a window that began with coarse parts keeps them');
  const got = await readAll(b.engine, base);
  sameRollups(t, got, got[0], 'mixed');
  await b.engine.close();
  await b.crash();
});

t.test('the retention pass keeps a pending window\'s 60 s parts until its seal has written the coarse tiers', async (t) => {
  const dir = tempDir(t);
  const base = nextWindow();
  const a = await openEngine(dir, { flushPoints: 1 });
  await fill(a.engine, base, 4);
  const raw = (await readAll(a.engine, base))[0];
  await a.engine.close();
  await a.crash();

  const b = await openEngine(dir, { flushPoints: 1 });
  const retention: Retention = { raw: DAY, '60': DAY, '900': 365 * DAY, '3600': 365 * DAY };
  const job = new RetentionJob(b.store, new CommitQueue(b.store.db, false), b.engine, () => ({ retention, retention_schedule: '0 0 1 1 *' }), log);
  const later = base + 3 * DAY; // raw and 60 s parts of the window are past their retention
  const first = await job.run(later);
  t.equal(first.rollupsSealed, 1, 'the pass seals the pending window');
  await b.engine.compacted();
  t.equal(b.engine.stats().pendingRollups, 0);
  const id = b.engine.select(1, 'm', { op: 'all' })[0]!.id;
  for (const tier of [900, 3600] as const) t.same((await b.engine.read(1, [id], tier, base, base + WINDOW))[0], rollUp(raw, tier), `the ${tier} s tier kept every point`);
  const second = await job.run(later);
  t.ok(first.expired >= 1, 'the first pass expires the raw parts');
  t.ok(second.expired >= 1, 'the next pass the 60 s parts');
  t.same(await tiersStored(b.engine), [900, 3600]);
  for (const tier of [900, 3600] as const) t.same((await b.engine.read(1, [id], tier, base, base + WINDOW))[0], rollUp(raw, tier), `the ${tier} s tier still whole`);
  await b.engine.close();
  await b.crash();
});

t.test('deleting a metric deletes its pending markers', async (t) => {
  const dir = tempDir(t);
  const base = nextWindow();
  const a = await openEngine(dir, { flushPoints: 1 });
  await fill(a.engine, base, 2);
  t.equal(a.engine.stats().pendingRollups, 1);
  const ops = await a.engine.purge(1, ['m']);
  await a.commit.write(ops);
  t.equal(a.engine.stats().pendingRollups, 0);
  await a.engine.close();
  await a.crash();
  const b = await openEngine(dir, { flushPoints: 1 });
  t.equal(b.engine.stats().pendingRollups, 0, 'none is loaded at the next start');
  t.same(await b.engine.chunks.keys().all(), [], 'and no part is left');
  await b.engine.close();
  await b.crash();
});

t.test('a late point of a window whose seal is under way waits in the head until the seal has landed', async (t) => {
  const dir = tempDir(t);
  const base = nextWindow();
  const a = await openEngine(dir, { flushPoints: 1 });
  await fill(a.engine, base, 3);
  await a.engine.close();
  await a.crash();

  const b = await openEngine(dir, { flushPoints: 1 });
  let release!: () => void;
  const held = b.engine.exclusive(() => new Promise<void>((r) => { release = r; })); // no merge runs meanwhile
  t.equal(b.engine.sealPendingLeft(base + WINDOW), 1, 'the seal is queued');
  t.equal(b.engine.sealPendingLeft(base + WINDOW), 0, 'and not queued twice');
  await b.engine.append(1, [9, 11, 13].map((off) => valueSample('m', tags, base + off, off)));
  await b.engine.checkpoint();
  t.equal(b.engine.stats().headPoints, 3, 'the late points stayed in the head');
  const waiting = await readAll(b.engine, base);
  t.equal(waiting[0].t.length, 303);
  sameRollups(t, waiting, waiting[0], 'while the seal waits');
  release();
  await held;
  await b.engine.compacted();
  t.equal(b.engine.stats().pendingRollups, 0, 'the seal landed');
  await b.engine.checkpoint();
  await b.engine.compacted();
  const after = await readAll(b.engine, base);
  t.same(after[0], waiting[0], 'raw points as before');
  sameRollups(t, after, waiting[0], 'after the seal, with the late points');
  await b.engine.close();
  await b.crash();

  const c = await openEngine(dir, { flushPoints: 1 });
  t.equal(c.engine.stats().headPoints, 0, 'the late points were written (the shutdown checkpoint at the latest)');
  t.equal(c.engine.stats().pendingRollups, 0, 'and not as a pending window\'s');
  sameRollups(t, await readAll(c.engine, base), waiting[0], 'and after a restart, from the stored parts');
  await c.engine.close();
  await c.crash();
});
