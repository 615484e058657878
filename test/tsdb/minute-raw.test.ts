// Parts on whole minutes (keys.ts, MINUTE_RAW): raw points that all lie on whole minutes
// are their own 60 s rollup, so a checkpoint stores them once, for both tiers. Every tier
// must read exactly what it read before they were written, in windows that mix such parts
// with ordinary raw and 60 s parts, after merges, sealing, restarts and retention.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/db.js';
import { CommitQueue } from '../../src/store/commit.js';
import { Engine } from '../../src/tsdb/engine.js';
import { RetentionJob } from '../../src/tsdb/retention.js';
import { createLogger } from '../../src/log.js';
import { valueSample, type Sample } from '../../src/tsdb/sample.js';
import { MINUTE_RAW, WINDOW, parseChunkKey, windowOf, type PartTier } from '../../src/tsdb/keys.js';

const log = createLogger('silent');
const TIERS = [0, 60, 900, 3600] as const;

async function open(dir: string, sealIdleMs = 3_600_000) {
  const store = await Store.open(dir, { sync: false });
  const commit = new CommitQueue(store.db, false);
  const engine = await Engine.open(store, commit, log, { checkpointMs: 3_600_000, checkpointWalBytes: 1 << 30, sealIdleMs });
  const crash = async () => { await commit.idle(); await store.close(); };
  return { store, commit, engine, crash };
}

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-minute-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const tags = Object.freeze([Object.freeze(['host', 'a'] as const)]);

/** Where the parts of a store are kept, sorted (a tier once per part). */
async function storedTiers(engine: Engine): Promise<PartTier[]> {
  return (await engine.chunks.keys().all()).map((k) => parseChunkKey(k).tier).sort((x, y) => x - y);
}

/** Every tier of one series over [from, to), as JSON (exact to the bit). */
async function readAll(engine: Engine, from: number, to: number, tiers: readonly (typeof TIERS)[number][] = TIERS): Promise<Record<number, string>> {
  const id = engine.select(1, 'm', { op: 'all' })[0]!.id;
  const out: Record<number, string> = {};
  for (const tier of tiers) {
    const p = (await engine.read(1, [id], tier, from, to))[0]!;
    out[tier] = JSON.stringify([p.t, p.count, p.sum, p.min, p.max, p.last, p.sumsq]);
  }
  return out;
}

t.test('points on whole minutes are stored once, for the raw and the 60 s tier', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  await a.engine.append(1, Array.from({ length: 120 }, (_, i) => valueSample('m', tags, base + i * 60, i * 1.5)));
  const before = await readAll(a.engine, base, base + WINDOW);
  await a.engine.checkpoint();
  t.same(await storedTiers(a.engine), [MINUTE_RAW, 900, 3600], 'one part on whole minutes, one a coarse tier');
  t.same(await readAll(a.engine, base, base + WINDOW), before, 'every tier reads what the head gave');
  // one point off the minute: that checkpoint stores raw and 60 s parts as before
  await a.engine.append(1, [valueSample('m', tags, base + 120 * 60 + 1, 7)]);
  await a.engine.checkpoint();
  t.same(await storedTiers(a.engine), [0, MINUTE_RAW, 60, 900, 900, 3600, 3600]);
  await a.engine.close();
  await a.crash();
});

t.test('a window of parts on whole minutes and ordinary parts, sharing minutes and times, reads as the head did', async (t) => {
  const dir = tempDir(t);
  const oracleDir = tempDir(t);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  const at = (minute: number, second = 0) => base + minute * 60 + second;
  // The checkpoints of one window, in order: on the minute; mixed (a time the first holds,
  // a second point in its last minute, new minutes); on the minute again (a time the
  // second holds, new minutes), and after a restart (a time the third holds). The last
  // two must not be stored on whole minutes any more: merged with the first, such a part
  // would be newer than the ordinary ones and win their shared buckets' `last`. Each
  // bucket's points come later in time in later checkpoints, so the head (which orders
  // by time) and the parts (by write) agree on every summary.
  const rounds: Sample[][] = [
    Array.from({ length: 60 }, (_, m) => valueSample('m', tags, at(m), m + 0.25)),
    [valueSample('m', tags, at(59), 100), valueSample('m', tags, at(59, 30), -3), ...Array.from({ length: 10 }, (_, m) => valueSample('m', tags, at(60 + m), 1 / (m + 3)))],
    [valueSample('m', tags, at(69), 200), ...Array.from({ length: 10 }, (_, m) => valueSample('m', tags, at(70 + m), m * 1e9 + 0.5))],
    [valueSample('m', tags, at(79), -7)],
  ];
  // the oracle: one engine that keeps every point in its head, in the same order
  const oracle = await open(oracleDir);
  for (const r of rounds.slice(0, 3)) await oracle.engine.append(1, r);
  const wantBefore = await readAll(oracle.engine, base, base + WINDOW);
  // (cut at whole minutes: the coarse tiers cut the head's points, but whole stored buckets)
  const wantCut = await readAll(oracle.engine, at(4), at(64), [0, 60]);
  await oracle.engine.append(1, rounds[3]!);
  const want = await readAll(oracle.engine, base, base + WINDOW);
  await oracle.engine.close();
  await oracle.crash();

  const a = await open(dir);
  for (const r of rounds.slice(0, 3)) {
    await a.engine.append(1, r);
    await a.engine.checkpoint();
  }
  await a.engine.compacted();
  t.same(await storedTiers(a.engine), [0, 0, MINUTE_RAW, 60, 60, 900, 900, 900, 3600, 3600, 3600], 'on whole minutes first, ordinary parts after');
  const before = rounds.slice(0, 3).flat().length;
  t.same(await readAll(a.engine, base, base + WINDOW), wantBefore, `every tier as the head read it, from the parts (${before} points)`);
  t.same(await readAll(a.engine, at(4), at(64), [0, 60]), wantCut, 'and a range cut inside the window');
  await a.engine.close();
  await a.crash();
  // one more point after a restart, then the window is sealed: one part a place is left
  const b = await open(dir, 0);
  await b.engine.append(1, rounds[3]!);
  await b.engine.checkpoint();
  await b.engine.compacted();
  t.same(await storedTiers(b.engine), [0, MINUTE_RAW, 60, 900, 3600], 'sealed: one part a place');
  t.same(await readAll(b.engine, base, base + WINDOW), want, 'and every tier as the head read it');
  await b.engine.close();
  await b.crash();
  const c = await open(dir);
  t.same(await readAll(c.engine, base, base + WINDOW), want, 'and after a restart');
  await c.engine.close();
  await c.crash();
});

t.test('a crash after a checkpoint of points on whole minutes: replay adds each later point once', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  await a.engine.append(1, Array.from({ length: 30 }, (_, m) => valueSample('m', tags, base + m * 60, m)));
  await a.engine.checkpoint();
  // only in the WAL: a time the part holds already, and new ones
  await a.engine.append(1, [valueSample('m', tags, base, 1000), ...Array.from({ length: 30 }, (_, m) => valueSample('m', tags, base + (30 + m) * 60, 30 + m))]);
  await a.crash();
  const b = await open(dir);
  const id = b.engine.select(1, 'm', { op: 'all' })[0]!.id;
  for (const tier of [0, 60] as const) {
    const p = (await b.engine.read(1, [id], tier, base, base + WINDOW))[0]!;
    t.equal(p.t.length, 60, `${tier}: every minute once`);
    t.same([p.count[0], p.sum[0], p.last[0]], [2, 1000, 1000], `${tier}: the minute written twice holds both points`);
    t.ok(p.count.slice(1).every((c) => c === 1), `${tier}: no other point doubled`);
  }
  await b.engine.close();
  await b.crash();
});

t.test('retention keeps parts on whole minutes while the raw or the 60 s tier keeps its points', async (t) => {
  const dir = tempDir(t);
  const day = 86400;
  const base = Math.floor(Date.now() / 1000 / day) * day - 3 * day;
  const a = await open(dir, 0);
  // a day three days ago: every 10 minutes on the minute, and one point a day off it
  for (let i = 0; i < 1440; i += 10) await a.engine.append(1, [valueSample('m', tags, base + i * 60, i)]);
  await a.engine.checkpoint();
  await a.engine.append(1, [valueSample('m', tags, base + 7, -1)]);
  await a.engine.checkpoint();
  await a.engine.compacted();
  const id = a.engine.select(1, 'm', { op: 'all' })[0]!.id;
  const read = async (tier: 0 | 60) => (await a.engine.read(1, [id], tier, base, base + day))[0]!;
  const minutes = await read(60);
  t.equal(minutes.t.length, 144);
  const retention = (raw: number, sixty: number) => new RetentionJob(a.store, new CommitQueue(a.store.db, false), a.engine, () => ({
    sync: false, min_free_disk_bytes: 0, retention_schedule: '0 0 1 1 *',
    retention: { raw: raw * day, '60': sixty * day, '900': 365 * day, '3600': 365 * day },
    checkpoint: { interval_seconds: 60, wal_bytes: 1 << 20, seal_idle_seconds: 1, head_max_age_seconds: 1800 },
  }), log);
  // raw kept 2 days (this day is past it), 60 s kept 8
  const r = await retention(2, 8).run();
  t.ok(r.expired > 0, `the raw parts off the minute expired (${r.expired})`);
  t.same(await read(60), minutes, 'the 60 s tier is whole: its points on whole minutes stay');
  const left = await a.engine.chunks.keys().all();
  t.ok(left.some((k) => k.includes('!m')) && !left.some((k) => k.includes('!r')), 'parts on whole minutes stay, raw parts off it are gone');
  // the 60 s tier expires too: nothing of either is left
  await retention(2, 2).run();
  t.equal((await read(60)).t.length, 0, 'past both retentions the points are gone');
  t.ok((await a.engine.chunks.keys().all()).every((k) => !k.includes('!m') && !k.includes('!a')), 'and so are their parts');
  await a.engine.close();
  await a.crash();
});

t.test('deleting a metric deletes its parts on whole minutes', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  await a.engine.append(1, Array.from({ length: 10 }, (_, m) => valueSample('m', tags, base + m * 60, m)));
  await a.engine.checkpoint();
  t.ok((await a.engine.chunks.keys().all()).some((k) => parseChunkKey(k).tier === MINUTE_RAW));
  await a.commit.write((await a.engine.purge(1, ['m'])).ops);
  t.same(await a.engine.chunks.keys().all(), [], 'no part left');
  await a.engine.close();
  await a.crash();
});
