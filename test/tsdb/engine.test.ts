// The engine below HTTP: a "crash" is closing LevelDB without the engine's final
// checkpoint, then opening a new engine over the same directory.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/db.js';
import { CommitQueue } from '../../src/store/commit.js';
import { Engine, type EngineOptions } from '../../src/tsdb/engine.js';
import { createLogger } from '../../src/log.js';
import { captureLog } from '../helpers/capture-log.js';
import { ValueRows, valueSample, type TagPairs } from '../../src/tsdb/sample.js';

const log = createLogger('silent');

async function open(dir: string, opts: Partial<EngineOptions> = {}, logger = log) {
  const store = await Store.open(dir, { sync: false });
  const commit = new CommitQueue(store.db, false);
  const engine = await Engine.open(store, commit, logger, { checkpointMs: 3_600_000, checkpointWalBytes: 64 * 1024 * 1024, sealIdleMs: 3_600_000, ...opts });
  const crash = async () => { await commit.idle(); await store.close(); };
  return { store, commit, engine, crash };
}

const tags = Object.freeze([Object.freeze(['host', 'a'] as const)]);

/**
 * Rewrites one raw window of a series the way the engine stored it before incremental
 * checkpoints, when the window was on whole minutes: the raw part empty, meaning "read the
 * 60 s part numbered one higher".
 */
async function toOldLayout(pts: Engine['chunks'], account: number, series: number, window: number): Promise<void> {
  const { MINUTE_RAW, chunkKey, seriesRange } = await import('../../src/tsdb/keys.js');
  const { decodeChunk, encodeChunk } = await import('../../src/tsdb/chunk.js');
  const { sortMerge } = await import('../../src/tsdb/points.js');
  const ops: ({ type: 'put'; key: string; value: Buffer } | { type: 'del'; key: string })[] = [];
  const parts = [];
  // (points on whole minutes are stored today as MINUTE_RAW parts, their own 60 s rollup)
  for (const tier of [0, MINUTE_RAW, 60] as const) {
    for (const key of await pts.keys(seriesRange(account, tier, series)).all()) {
      if (parseInt(key.slice(-20, -12), 16) !== window) continue;
      if (tier !== 0) parts.push(decodeChunk((await pts.get(key))!, window));
      ops.push({ type: 'del', key });
    }
  }
  const part = 0xfff000 + (window / 60) % 4096 * 2;
  ops.push({ type: 'put', key: chunkKey(account, 0, series, window, part), value: Buffer.alloc(0) });
  ops.push({ type: 'put', key: chunkKey(account, 60, series, window, part + 1), value: encodeChunk(sortMerge(parts), window) });
  await pts.batch(ops);
}

t.test('a checkpoint triggered by an append never drops that append\'s WAL record early', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const base = Math.floor(Date.now() / 1000 / 3600) * 3600 - 3 * 86400;
  // a tiny WAL threshold: every append triggers a checkpoint
  const a = await open(dir, { checkpointWalBytes: 65536 / 1024 });
  for (let i = 0; i < 50; i++) await a.engine.append(1, [valueSample('m', tags, base + i * 3600, i)]);
  await a.crash();
  const b = await open(dir);
  const ref = b.engine.select(1, 'm', { op: 'all' })[0]!;
  const p = (await b.engine.read(1, [ref.id], 0, base, base + 50 * 3600))[0]!;
  t.same(p.t.length, 50);
  t.ok(p.count.every((c) => c === 1), 'every point counted once after replay');
  t.same(p.sum, Array.from({ length: 50 }, (_, i) => i));
  await b.engine.close();
  await b.crash();
});

t.test('a metric deleted before a crash stays deleted: replay skips its WAL samples, and no part is written for its series', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const base = Math.floor(Date.now() / 1000 / 3600) * 3600 - 3600;
  const a = await open(dir);
  for (let i = 0; i < 20; i++) await a.engine.append(1, [valueSample('gone', tags, base + i * 60, i), valueSample('kept', tags, base + i * 60, 100 + i)]);
  const goneId = a.engine.select(1, 'gone', { op: 'all' })[0]!.id;
  await a.commit.write((await a.engine.purge(1, ['gone'])).ops);
  await a.crash(); // the WAL still holds both metrics' samples
  const recovered = captureLog();
  const b = await open(dir, {}, recovered.logger);
  const replayed = recovered.lines().find((l) => l.msg === 'storage engine recovered its head');
  t.equal(replayed?.walSamples, 20, 'only the kept metric\'s samples replayed');
  t.same(b.engine.select(1, 'gone', { op: 'all' }), [], 'the deleted metric has no series after the restart');
  const kept = b.engine.select(1, 'kept', { op: 'all' })[0]!;
  t.same((await b.engine.read(1, [kept.id], 0, base, base + 20 * 60))[0]!.sum, Array.from({ length: 20 }, (_, i) => 100 + i));
  // a new series of the same name starts empty
  await b.engine.append(1, [valueSample('gone', tags, base + 30 * 60, 7)]);
  const fresh = b.engine.select(1, 'gone', { op: 'all' })[0]!;
  t.not(fresh.id, goneId);
  t.equal(b.engine.seriesTotal(), 2, 'the kept series and the fresh one');
  t.same((await b.engine.read(1, [fresh.id], 0, base, base + 40 * 60))[0]!.sum, [7]);
  await b.engine.close(); // its checkpoint writes what the head holds
  const { parseChunkKey } = await import('../../src/tsdb/keys.js');
  const series = new Set((await b.engine.chunks.keys().all()).map((k) => parseChunkKey(k).series));
  t.ok(series.has(kept.id) && series.has(fresh.id), 'parts of the live series written');
  t.notOk(series.has(goneId), 'no part written for the deleted series');
  await b.crash();
});

t.test('reads merge stored parts and the head; rollups match raw', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const base = Math.floor(Date.now() / 1000 / 86400) * 86400 - 2 * 86400;
  const a = await open(dir);
  // two windows in order, then a late point into the first (a second part of it)
  for (let i = 0; i < 720; i++) await a.engine.append(1, [valueSample('m', tags, base + i * 60, 1)]);
  await a.engine.checkpoint();
  await a.engine.append(1, [valueSample('m', tags, base + 30, 5)]);
  const ref = a.engine.select(1, 'm', { op: 'all' })[0]!;
  const raw = (await a.engine.read(1, [ref.id], 0, base, base + 43200))[0]!;
  t.equal(raw.t.length, 721);
  const hourly = (await a.engine.read(1, [ref.id], 3600, base, base + 43200))[0]!;
  t.same(hourly.t.length, 12);
  t.same(hourly.count[0], 61);
  t.same(hourly.sum[0], 65);
  t.same(hourly.max[0], 5);
  await a.engine.close();
  await a.crash();
  const b = await open(dir);
  const again = (await b.engine.read(1, [ref.id], 3600, base, base + 43200))[0]!;
  t.same(again, hourly, 'the same after a clean restart');
  await b.engine.close();
  await b.crash();
});

t.test('old-layout raw parts stored as their 60 s twin read through it; retention merges parts without losing any', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const base = Math.floor(Date.now() / 1000 / 86400) * 86400 - 2 * 86400;
  const w = await open(dir, { sealIdleMs: 0 });
  for (let i = 0; i < 720; i++) await w.engine.append(1, [valueSample('m', tags, base + i * 60, i % 7)]);
  await w.engine.close();
  const ref = w.engine.select(1, 'm', { op: 'all' })[0]!;
  await toOldLayout(w.engine.chunks, 1, ref.id, base);
  await toOldLayout(w.engine.chunks, 1, ref.id, base + 21600);
  await w.crash();
  const a = await open(dir, { sealIdleMs: 0 });
  await a.engine.append(1, [valueSample('m', tags, base + 30, 100)]);
  await a.engine.checkpoint();
  const keys = await a.engine.chunks.keys().all();
  const values = await a.engine.chunks.getMany(keys);
  t.ok(values.some((v) => v?.length === 0), 'some raw part is stored as its 60 s twin');
  const raw = (await a.engine.read(1, [ref.id], 0, base, base + 43200))[0]!;
  const minute = (await a.engine.read(1, [ref.id], 60, base, base + 43200))[0]!;
  t.equal(raw.t.length, 721);
  t.equal(raw.sum[1], 100, 'the late point sits between the first two');
  t.equal(minute.t.length, 720);
  t.same(minute.sum[0], 100, 'the late point merged into the first minute');

  const { RetentionJob } = await import('../../src/tsdb/retention.js');
  const job = new RetentionJob(a.store, new CommitQueue(a.store.db, false), a.engine, () => ({
    sync: false, min_free_disk_bytes: 0, retention_schedule: '0 0 1 1 *',
    retention: { raw: 30 * 86400, '60': 30 * 86400, '900': 30 * 86400, '3600': 30 * 86400 },
    checkpoint: { interval_seconds: 60, wal_bytes: 1 << 20, seal_idle_seconds: 1, head_max_age_seconds: 1800 },
  }), log);
  const r = await job.run();
  t.ok(r.merged >= 2, `raw parts merged (${r.merged})`);
  t.same((await a.engine.read(1, [ref.id], 0, base, base + 43200))[0], raw, 'raw reads the same after merging');
  t.same((await a.engine.read(1, [ref.id], 60, base, base + 43200))[0], minute, '60 s reads the same');
  await a.engine.close();
  await a.crash();
  const b = await open(dir);
  t.same((await b.engine.read(1, [ref.id], 0, base, base + 43200))[0], raw, 'and after a restart');
  await b.engine.close();
  await b.crash();
});

t.test('the retention pass deletes chunks past their tier\'s retention, and only those', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const day = 86400;
  const base = Math.floor(Date.now() / 1000 / day) * day - 3 * day;
  const a = await open(dir, { sealIdleMs: 0 });
  // a whole day, three days ago, at whole minutes: raw, 60 s, 900 s and 3600 s parts
  for (let i = 0; i < 1440; i += 10) await a.engine.append(1, [valueSample('m', tags, base + i * 60, i)]);
  await a.engine.checkpoint();
  const ref = a.engine.select(1, 'm', { op: 'all' })[0]!;
  const read = async (tier: 0 | 60 | 900 | 3600) => (await a.engine.read(1, [ref.id], tier, base, base + day))[0]!.t.length;
  t.equal(await read(0), 144);
  t.equal(await read(3600), 24);
  const { RetentionJob } = await import('../../src/tsdb/retention.js');
  const job = new RetentionJob(a.store, new CommitQueue(a.store.db, false), a.engine, () => ({
    sync: false, min_free_disk_bytes: 0, retention_schedule: '0 0 1 1 *',
    // raw and 60 s keep 2 days (so this day is gone), 900 s and 3600 s keep a year
    retention: { raw: 2 * day, '60': 2 * day, '900': 365 * day, '3600': 365 * day },
    checkpoint: { interval_seconds: 60, wal_bytes: 1 << 20, seal_idle_seconds: 1, head_max_age_seconds: 1800 },
  }), log);
  const r = await job.run();
  t.ok(r.expired > 0, `chunks expired (${r.expired})`);
  t.equal(await read(0), 0, 'raw points are gone');
  t.equal(await read(60), 0, '60 s points are gone');
  t.equal(await read(900), 96, '900 s points stay');
  t.equal(await read(3600), 24, '3600 s points stay');
  const left = await a.engine.chunks.keys().all();
  t.ok(left.every((k) => !k.includes('!r') && !k.includes('!m') && !k.includes('!a')), 'no raw or 60 s key is left in LevelDB');
  await a.engine.close();
  await a.crash();
});

t.test('retention changed across restarts: raw parts stored as their 60 s twin outlive the 60 s retention with raw', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const day = 86400;
  const base = Math.floor(Date.now() / 1000 / day) * day - 10 * day; // ten days ago
  const settings = (raw: number, minute: number) => () => ({
    sync: false, min_free_disk_bytes: 0, retention_schedule: '0 0 1 1 *',
    retention: { raw: raw * day, '60': minute * day, '900': 365 * day, '3600': 365 * day },
    checkpoint: { interval_seconds: 60, wal_bytes: 1 << 20, seal_idle_seconds: 1, head_max_age_seconds: 1800 },
  });
  const { RetentionJob } = await import('../../src/tsdb/retention.js');
  // first start (the old layout, with raw 2 days <= 60 s 8 days): whole-minute raw
  // windows were stored as their 60 s twin
  const a = await open(dir, { sealIdleMs: 0 });
  for (let i = 0; i < 360; i++) await a.engine.append(1, [valueSample('m', tags, base + i * 60, i)]);
  await a.engine.close();
  const id = a.engine.select(1, 'm', { op: 'all' })[0]!.id;
  await toOldLayout(a.engine.chunks, 1, id, base);
  const values = await a.engine.chunks.getMany(await a.engine.chunks.keys().all());
  t.ok(values.some((v) => v?.length === 0), 'raw parts stored as their 60 s twin');
  await a.crash();

  // restart with raw 30 days, 60 s 8 days: the points are inside raw retention
  const b = await open(dir, { sealIdleMs: 0 });
  const job = new RetentionJob(b.store, new CommitQueue(b.store.db, false), b.engine, settings(30, 8), log);
  await job.run();
  const raw = (await b.engine.read(1, [id], 0, base, base + day))[0]!;
  t.equal(raw.t.length, 360, 'every raw point ten days old is still there');
  t.equal(raw.sum[359], 359);
  await job.run();
  t.equal((await b.engine.read(1, [id], 0, base, base + day))[0]!.t.length, 360, 'and after a second pass');
  await b.engine.close();
  await b.crash();

  // restart with raw 2 days again: raw and the 60 s parts it kept both go, 900 s stays
  const c = await open(dir, { sealIdleMs: 0 });
  const job2 = new RetentionJob(c.store, new CommitQueue(c.store.db, false), c.engine, settings(2, 8), log);
  await job2.run();
  t.equal((await c.engine.read(1, [id], 0, base, base + day))[0]!.t.length, 0, 'raw expired');
  t.equal((await c.engine.read(1, [id], 60, base, base + day))[0]!.t.length, 0, '60 s expired');
  t.equal((await c.engine.read(1, [id], 900, base, base + day))[0]!.t.length, 24, '900 s kept');
  await c.engine.close();
  await c.crash();
});

t.test('a read whose signal is aborted stops before its next batch, with the signal\'s reason', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const base = Math.floor(Date.now() / 1000 / 3600) * 3600 - 3600;
  const a = await open(dir);
  const SERIES = 1300; // three batches of the read
  await a.engine.append(1, Array.from({ length: SERIES }, (_, i) => valueSample('m', Object.freeze([Object.freeze(['host', `h${i}`] as const)]), base, i)));
  const ids = a.engine.select(1, 'm', { op: 'all' }).map((r) => r.id);
  const ac = new AbortController();
  const reason = new Error('client gone');
  let visited = 0;
  const read = a.engine.readEach(1, ids, 0, base, base + 3600, () => {
    if (visited++ === 0) ac.abort(reason);
  }, undefined, { signal: ac.signal });
  t.equal(await read.then(() => null, (err: unknown) => err), reason);
  t.equal(visited, 512, 'the batch under way finishes, no later one starts');
  t.equal((await a.engine.read(1, ids, 0, base, base + 3600)).length, SERIES, 'the gate let go of its slot');
  await a.engine.close();
  await a.crash();
});

t.test('a read of more series than a batch visits each once, in order, whole, while a checkpoint runs', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const base = Math.floor(Date.now() / 1000 / 3600) * 3600 - 3600;
  const a = await open(dir);
  const SERIES = 1300; // more than two batches of the read
  const host = (i: number) => Object.freeze([Object.freeze(['host', `h${i}`] as const)]);
  // ten points a series: five stored by a checkpoint, five in the head
  for (let k = 0; k < 10; k++) {
    await a.engine.append(1, Array.from({ length: SERIES }, (_, i) => valueSample('m', host(i), base + k * 30, i + k)));
    if (k === 4) await a.engine.checkpoint();
  }
  const ids = a.engine.select(1, 'm', { op: 'all' }).map((r) => r.id);
  t.equal(ids.length, SERIES);
  for (const tier of [0, 60] as const) {
    const seen: number[] = [];
    const wrong: number[] = [];
    const running = a.engine.checkpoint(); // lands while the read is under way
    await a.engine.readEach(1, ids, tier, base, base + 3600, (n, p) => {
      seen.push(n);
      const count = p.count.reduce((x, y) => x + y, 0);
      const sum = p.sum.reduce((x, y) => x + y, 0);
      const ref = a.engine.select(1, 'm', { op: 'all' }).find((r) => r.id === ids[n])!;
      const i = Number(ref.tags.find(([k]) => k === 'host')![1].slice(1));
      if (count !== 10 || sum !== 10 * i + 45) wrong.push(n);
    });
    await running;
    t.same(seen, Array.from({ length: SERIES }, (_, n) => n), `tier ${tier}: every series once, in order`);
    t.same(wrong, [], `tier ${tier}: every point once`);
  }
  await a.engine.close();
  await a.crash();
});

t.test('a read over windows of one part each joins them in time order, with the head after or merged into the last', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { COLUMN } = await import('../../src/tsdb/points.js');
  const base = Math.floor(Date.now() / 1000 / 86400) * 86400 - 2 * 86400;
  const a = await open(dir);
  const host = (h: string) => Object.freeze([Object.freeze(['host', h] as const)]);
  // three ended 6-hour windows, a point a minute, stored by one checkpoint: one part each
  for (let i = 0; i < 1080; i += 60) {
    await a.engine.append(1, ['a', 'b'].flatMap((h) => Array.from({ length: 60 }, (_, k) => valueSample('m', host(h), base + (i + k) * 60, i + k))));
  }
  await a.engine.checkpoint();
  // then, in the head: series a a point into the last stored minute (the bucket is split
  // between a part and the head) and one into a fourth window; series b the latter only
  const end = base + 1080 * 60;
  await a.engine.append(1, [valueSample('m', host('a'), end - 30, 1000), valueSample('m', host('a'), end + 10, 7), valueSample('m', host('b'), end + 10, 7)]);
  const ids = ['a', 'b'].map((h) => a.engine.select(1, 'm', { op: 'all' }).find((r) => r.tags[0]![1] === h)!.id);
  const minutes = Array.from({ length: 1080 }, (_, i) => base + i * 60);
  const [sa, sb] = await a.engine.read(1, ids, 60, base, base + 86400);
  t.same(sa!.t, [...minutes, end], 'series a: every minute once, in order, then the fourth window');
  t.same([sa!.count[1079], sa!.sum[1079], sa!.max[1079], sa!.last[1079]], [2, 1079 + 1000, 1079, 1000], 'the split bucket merged, the head\'s point the later write');
  t.same([sa!.count[1080], sa!.sum[1080]], [1, 7]);
  t.same(sb!.t, [...minutes, end], 'series b: the head\'s point appended after the stored windows');
  t.same(sb!.sum, [...minutes.map((_, i) => i), 7]);
  t.same(sb!.min, sb!.sum, 'plain points: min is the value');
  t.same(sb!.sumsq, sb!.sum.map((v) => v * v));
  const raw = (await a.engine.read(1, [ids[0]!], 0, base, base + 86400))[0]!;
  t.same(raw.t, [...minutes, end - 30, end + 10], 'raw: the head\'s points after the stored ones');
  // a mean reads count and sum only: the same counts and sums
  const means: number[][] = [];
  await a.engine.readEach(1, ids, 60, base, base + 86400, (_, p) => means.push([p.t.length, p.count.reduce((x, y) => x + y, 0), p.sum.reduce((x, y) => x + y, 0)]), COLUMN.count);
  const total = (1079 * 1080) / 2;
  t.same(means, [[1081, 1082, total + 1007], [1081, 1081, total + 7]], 'count and sum of a read asked for those only');
  await a.engine.close();
  await a.crash();
});

t.test('a bucket split between two parts, between a part and the head, or between the head\'s two halves is one point', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { COLUMN } = await import('../../src/tsdb/points.js');
  const base = Math.floor(Date.now() / 1000 / 86400) * 86400 - 2 * 86400; // an ended window
  const a = await open(dir);
  const host = Object.freeze([Object.freeze(['host', 'a'] as const)]);
  const add = (from: number, to: number) => a.engine.append(1, Array.from({ length: to - from }, (_, k) => valueSample('m', host, base + (from + k) * 10, from + k)));
  // a point every 10 s, k = 0..65; checkpoints after k = 24 and k = 49 split minutes 4 and 8
  await add(0, 25);
  await a.engine.checkpoint();
  await add(25, 50);
  await a.engine.checkpoint();
  await add(50, 62);
  const id = a.engine.select(1, 'm', { op: 'all' })[0]!.id;
  // every minute of k = 0..n-1: its count and sum
  const want = (n: number) => {
    const t: number[] = [], count: number[] = [], sum: number[] = [];
    for (let k = 0; k < n; k++) {
      const m = base + Math.floor(k / 6) * 60;
      if (t[t.length - 1] !== m) { t.push(m); count.push(0); sum.push(0); }
      count[count.length - 1]!++;
      sum[sum.length - 1]! += k;
    }
    return { t, count, sum };
  };
  const check = async (n: number, what: string) => {
    const [p] = await a.engine.read(1, [id], 60, base, base + 3600);
    t.same({ t: p!.t, count: p!.count, sum: p!.sum }, want(n), `${what}: one point a minute, every sample once`);
    t.same([p!.min[0], p!.max[0], p!.last[0]], [0, 5, 5], `${what}: min, max and last`);
    const means: number[][] = [];
    await a.engine.readEach(1, [id], 60, base, base + 3600, (_, q) => means.push(q.t, q.count), COLUMN.count);
    t.same(means, [want(n).t, want(n).count], `${what}: a read of count and sum alone`);
    const [raw] = await a.engine.read(1, [id], 0, base, base + 3600);
    t.same(raw!.t, Array.from({ length: n }, (_, k) => base + k * 10), `${what}: raw, every point once`);
  };
  await check(62, 'two parts and the head');
  // a checkpoint takes the head's points and, before it lands, minute 10 gets more: the
  // read sees the minute in the half being written and in the half received since
  // series b: nothing stored, its minute split between the head's halves alone
  const hostB = Object.freeze([Object.freeze(['host', 'b'] as const)]);
  await a.engine.append(1, [valueSample('m', hostB, base + 600, 1), valueSample('m', hostB, base + 610, 2)]);
  const idB = a.engine.select(1, 'm', { op: 'all' }).find((r) => r.tags[0]![1] === 'b')!.id;
  const running = a.engine.checkpoint();
  const appended = Promise.all([add(62, 66), a.engine.append(1, [valueSample('m', hostB, base + 620, 4)])]);
  const readingB = a.engine.read(1, [idB], 60, base, base + 3600);
  const reading = check(66, 'the head being written and received since');
  await Promise.all([running, appended, reading]);
  const [b] = await readingB;
  t.same([b!.t, b!.count, b!.sum], [[base + 600], [3], [7]], 'series b: one point for its minute');
  await check(66, 'after the checkpoint landed');
  // a late point into the first minute, stored long ago: the head's point goes back in
  // time, and once written, so does its part; both are merged the slow way, exactly
  await a.engine.append(1, [valueSample('m', host, base + 5, 0.5)]);
  for (const what of ['a late point in the head', 'a late point in a part']) {
    const [p] = await a.engine.read(1, [id], 60, base, base + 3600);
    const w = want(66);
    w.count[0]!++;
    w.sum[0]! += 0.5;
    t.same({ t: p!.t, count: p!.count, sum: p!.sum }, w, `${what}: merged into its minute`);
    t.same([p!.min[0], p!.max[0], p!.last[0]], [0, 5, 5], `${what}: the minute's last is still its latest sample (at 50 s), not the late write`);
    const [raw] = await a.engine.read(1, [id], 0, base, base + 3600);
    t.same(raw!.t.slice(0, 3), [base, base + 5, base + 10], `${what}: raw, in time order`);
    await a.engine.checkpoint();
  }
  await a.engine.close();
  await a.crash();
});

t.test('a new series keeps frozen tag pairs as they are, and copies pairs the caller could still change', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const a = await open(dir);
  const now = Math.floor(Date.now() / 1000);
  await a.engine.append(1, [valueSample('shared', tags, now, 1)]);
  t.equal(a.engine.select(1, 'shared', { op: 'all' })[0]!.tags, tags, 'frozen pairs (ingest caches them) are shared, not copied');
  const loose: [string, string][] = [['host', 'b']];
  await a.engine.append(1, [valueSample('copied', loose, now, 1)]);
  loose[0]![1] = 'changed';
  t.same(a.engine.select(1, 'copied', { op: 'all' })[0]!.tags, [['host', 'b']], 'unfrozen pairs are copied');
  await a.engine.close();
  await a.store.close();
});

t.test('series kept by tag-set number: found on first sight, trusted after, looked past when the number names another series or an index replaced', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const a = await open(dir);
  const now = Math.floor(Date.now() / 1000);
  const other = Object.freeze([Object.freeze(['host', 'z'] as const)]);
  const tagSets = [tags, other];
  const metrics = ['numbered', 'second'];
  const batch = (rows: [metric: number, tag: number, time: number, value: number][], sets: readonly TagPairs[] = tagSets) => {
    const r = new ValueRows(rows.length);
    for (const row of rows) r.add(...row);
    return r.columns(metrics, sets);
  };
  t.same(a.engine.unknownValueSeries(1, batch([[0, 0, now, 1], [0, 0, now + 1, 1]])), [{ metric: 'numbered', tags }], 'a new series, once');
  await a.engine.appendValues(1, batch([[0, 0, now, 1], [0, 1, now, 2]]));
  const [ref] = a.engine.select(1, 'numbered', { op: 'all' }).filter((r) => r.tags === tags);
  t.ok(ref, 'the series of number 0');
  t.same(a.engine.unknownValueSeries(1, batch([[0, 0, now + 1, 3], [0, 1, now + 1, 3]])), [], 'both numbers known now');
  t.equal(a.engine.select(1, 'numbered', { op: 'all' }).length, 2);

  // a number whose row names another metric or account is looked past
  await a.engine.appendValues(1, batch([[1, 0, now, 3]]));
  const second = a.engine.select(1, 'second', { op: 'all' })[0]!;
  t.not(second.id, ref!.id, 'another metric gets its own series');
  await a.engine.appendValues(2, batch([[1, 0, now, 4]]));
  t.equal(a.engine.select(2, 'second', { op: 'all' }).length, 1, 'another account gets its own series');

  // after the index is rebuilt from the store, the series kept from before are looked up again
  await a.engine.reload();
  t.ok(ref!.gone, 'the old index\'s series are retired');
  await a.engine.appendValues(2, batch([[1, 0, now + 1, 6]]));
  const rebuilt = a.engine.select(2, 'second', { op: 'all' });
  t.equal(rebuilt.length, 1, 'no second series');
  t.not(rebuilt[0], second, 'the rebuilt index\'s series');
  // a new list (a target's series numbered again) finds the same series by their tags
  await a.engine.appendValues(2, batch([[1, 0, now + 2, 7]], [tags]));
  t.equal(a.engine.select(2, 'second', { op: 'all' }).length, 1, 'still one series');
  const pts = (await a.engine.read(2, [rebuilt[0]!.id], 0, now - 10, now + 10))[0]!;
  t.same(Array.from(pts.sum), [4, 6, 7]);
  await a.engine.close();
  await a.store.close();
});
