// Incremental persistence (issue 9): a checkpoint writes what arrived since the last one
// and no more, parts are merged in the background, a closed window ends as one part per
// tier, and a checkpoint cut short between its batches loses and duplicates nothing.
import t, { type Test } from 'tap';
import { Store } from '../../src/store/db.js';
import { openEngine, engineDir } from '../helpers/engine.js';
import { valueSample } from '../../src/tsdb/sample.js';
import { decodeChunk, encodeChunk } from '../../src/tsdb/chunk.js';
import { rollUp } from '../../src/tsdb/points.js';
import { MINUTE_RAW, headKey, parseChunkKey, WINDOW, windowOf } from '../../src/tsdb/keys.js';
import { FANOUT } from '../../src/tsdb/compaction.js';
import { poll } from '../helpers/poll.js';

const HOUR = 3600;
const open = openEngine;
const tempDir = (t: Test) => engineDir(t, 'gw-incr-');

const tagsOf = (i: number) => Object.freeze([Object.freeze(['host', `h${i}`] as const)]);

t.test('a checkpoint writes the points received since the last one, and no more', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  const tags = tagsOf(0);
  const rounds = 3 * FANOUT;
  for (let k = 0; k < rounds; k++) {
    const before = new Set(await a.engine.chunks.keys().all());
    for (let i = 0; i < 100; i++) await a.engine.append(1, [valueSample('m', tags, base + k * 100 + i, k * 1000 + i)]);
    t.equal(a.engine.stats().headPoints, 100, `round ${k}: the head holds this round's points`);
    await a.engine.checkpoint();
    t.equal(a.engine.stats().headPoints, 0, `round ${k}: the checkpoint emptied the head`);
    const added = (await a.engine.chunks.keys().all()).filter((key) => !before.has(key));
    const raw = added.filter((key) => parseChunkKey(key).tier === 0);
    t.equal(raw.length, 1, `round ${k}: one new raw part`);
    t.equal(decodeChunk((await a.engine.chunks.get(raw[0]!))!, base).t.length, 100, `round ${k}: holding exactly this round's points`);
    t.equal(added.length, 4, `round ${k}: one part per tier`);
    await a.engine.compacted();
  }
  const rawParts = (await a.engine.chunks.keys().all()).filter((key) => parseChunkKey(key).tier === 0);
  t.ok(rawParts.length < FANOUT, `${rounds} checkpoints left ${rawParts.length} raw parts after compaction`);
  const id = a.engine.select(1, 'm', { op: 'all' })[0]!.id;
  const raw = (await a.engine.read(1, [id], 0, base, base + WINDOW))[0]!;
  t.equal(raw.t.length, rounds * 100);
  t.same(raw.sum, Array.from({ length: rounds * 100 }, (_, n) => Math.floor(n / 100) * 1000 + (n % 100)), 'every point once, in order');
  for (const tier of [60, 900, 3600] as const) {
    t.same((await a.engine.read(1, [id], tier, base, base + WINDOW))[0], rollUp(raw, tier), `the ${tier} s tier matches raw rolled up`);
  }
  await a.engine.close();
  await a.crash();
  const b = await open(dir);
  t.same((await b.engine.read(1, [id], 0, base, base + WINDOW))[0], raw, 'the same after a restart');
  await b.engine.close();
  await b.crash();
});

t.test('a window idle past its end is sealed into one part a place; a late point reopens it', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir, { sealIdleMs: 0 });
  const base = windowOf(Math.floor(Date.now() / 1000)) - 8 * WINDOW;
  const tags = tagsOf(0);
  // the points arrive over several checkpoints, so the window is first stored in parts
  for (let k = 0; k < 6; k++) {
    await a.engine.append(1, Array.from({ length: 60 }, (_, i) => valueSample('m', tags, base + (k * 60 + i) * 60, k * 60 + i)));
    await a.engine.checkpoint();
  }
  await a.engine.compacted();
  const keys = await a.engine.chunks.keys().all();
  t.same(keys.map((k) => parseChunkKey(k).tier).sort((x, y) => x - y), [MINUTE_RAW, 900, 3600], 'one part a place after sealing (the raw points, on whole minutes, serve the 60 s tier too)');
  const id = a.engine.select(1, 'm', { op: 'all' })[0]!.id;
  const before = (await a.engine.read(1, [id], 0, base, base + WINDOW))[0]!;
  t.equal(before.t.length, 360);
  await a.engine.append(1, [valueSample('m', tags, base + 30, -1)]);
  const live = (await a.engine.read(1, [id], 60, base, base + WINDOW))[0]!;
  t.equal(live.count[0], 2, 'the late point is read from the head, merged into its minute');
  await a.engine.checkpoint();
  await a.engine.compacted();
  const after = (await a.engine.read(1, [id], 60, base, base + WINDOW))[0]!;
  t.same(after, live, 'and the same once written and sealed again');
  t.same((await a.engine.chunks.keys().all()).map((k) => parseChunkKey(k).tier).sort((x, y) => x - y), [0, MINUTE_RAW, 60, 900, 3600], 'still one part a place: the late point, off the minute, in a raw and a 60 s part');
  await a.engine.close();
  await a.crash();
});

t.test('a checkpoint of several windows of a series writes one part a coarse window, and every tier reads as before', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir);
  // four past raw windows: three in one 900 s window, the fourth in the next; all four in one 3600 s window
  const span = windowOf(windowOf(Math.floor(Date.now() / 1000)) - 70 * WINDOW, 3600);
  const windows = [span, span + WINDOW, span + 2 * WINDOW, span + 16 * WINDOW];
  const SERIES = 40;
  for (const w of windows) {
    for (let k = 0; k < 30; k++) {
      // even series off the minute (raw and 60 s parts), odd ones on it (MINUTE_RAW parts)
      await a.engine.append(1, Array.from({ length: SERIES }, (_, i) => valueSample('m', tagsOf(i), w + k * 600 + (i % 2 ? 0 : 7), i * 100 + k + (k % 3) / 7)));
    }
  }
  const ids = a.engine.select(1, 'm', { op: 'all' }).map((r) => r.id);
  const from = span;
  const to = span + 17 * WINDOW;
  const read = async (engine: typeof a.engine) => Promise.all(([0, 60, 900, 3600] as const).map((tier) => engine.read(1, ids, tier, from, to)));
  const fromHead = await read(a.engine);
  await a.engine.checkpoint();
  t.equal(a.engine.stats().headPoints, 0, 'every window was due (their ends have passed)');
  const keys = (await a.engine.chunks.keys().all()).map((k) => parseChunkKey(k));
  const count = (tier: number) => keys.filter((k) => k.tier === tier).length;
  t.equal(count(3600), SERIES, 'one 3600 s part a series for its four windows');
  t.equal(count(900), 2 * SERIES, 'two 900 s parts a series: three windows in one, the fourth in the next');
  t.equal(count(MINUTE_RAW), 4 * SERIES / 2, 'a MINUTE_RAW part a window for the series on whole minutes');
  t.equal(count(0), 4 * SERIES / 2, 'a raw part a window for the others');
  t.equal(count(60), 4 * SERIES / 2, 'and a 60 s part a window');
  t.same(await read(a.engine), fromHead, 'every tier reads what it read from the head');
  t.equal(fromHead[3]![1]!.t.length, 4 * 5, 'five hourly buckets in each of four windows');
  await a.engine.close();
  await a.crash();
  const b = await open(dir);
  t.same(await read(b.engine), fromHead, 'and the same after a restart');
  await b.engine.close();
  await b.crash();
});

t.test('a checkpoint cut short between its batches: every point is read back exactly once', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  const SERIES = 1200; // 4 parts each: the checkpoint needs three batches
  for (let r = 0; r < 3; r++) {
    await a.engine.append(1, Array.from({ length: SERIES }, (_, i) => valueSample('m', tagsOf(i), base + r * 10, r * 10_000 + i)));
  }
  await a.engine.checkpoint(); // the points so far are written whole
  for (let r = 3; r < 6; r++) {
    await a.engine.append(1, Array.from({ length: SERIES }, (_, i) => valueSample('m', tagsOf(i), base + r * 10, r * 10_000 + i)));
  }
  a.commit.left = 1; // the next checkpoint's first batch lands, then the process dies
  void a.engine.checkpoint();
  await poll(async () => (a.commit.left === 0 ? true : undefined));
  await a.crash();

  const peek = await Store.open(dir, { sync: false });
  const parts = (await peek.binary('pts').keys().all()).length;
  const wal = (await peek.binary('wal').keys().all()).length;
  await peek.close();
  t.ok(parts > SERIES * 4 && parts < SERIES * 8, `the cut-short checkpoint wrote some parts (${parts})`);
  t.ok(wal > 0, `and left its WAL records (${wal})`);

  const b = await open(dir);
  const refs = b.engine.select(1, 'm', { op: 'all' });
  t.equal(refs.length, SERIES);
  const points = await b.engine.read(1, refs.map((r) => r.id), 0, base, base + WINDOW);
  let wrong = 0;
  refs.forEach((ref, n) => {
    const i = Number(ref.tags[0]![1].slice(1));
    const p = points[n]!;
    const expected = Array.from({ length: 6 }, (_, r) => r * 10_000 + i);
    if (JSON.stringify(p.sum) !== JSON.stringify(expected) || !p.count.every((c) => c === 1)) wrong++;
  });
  t.equal(wrong, 0, 'no series lost or doubled a point');
  await b.engine.close();
  await b.crash();
});

t.test('a shutdown checkpoint stopped between series leaves the rest to the WAL: every point is read back exactly once', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  const SERIES = 1200;
  const value = (i: number, r: number) => r * 10_000 + i;
  for (let r = 0; r < 3; r++) {
    await a.engine.append(1, Array.from({ length: SERIES }, (_, i) => valueSample('m', tagsOf(i), base + r * 60, value(i, r))));
  }
  await a.engine.checkpoint(); // the points so far are written whole
  for (let r = 3; r < 6; r++) {
    await a.engine.append(1, Array.from({ length: SERIES }, (_, i) => valueSample('m', tagsOf(i), base + r * 60, value(i, r))));
  }
  const peek = async () => {
    const store = await Store.open(dir, { sync: false });
    const counts = { parts: (await store.binary('pts').keys().all()).length, wal: (await store.binary('wal').keys().all()).length };
    await store.close();
    return counts;
  };
  let asked = 0;
  // asked once before the checkpoint takes anything, then before each series: 500 written
  await a.engine.close(() => ++asked > 501);
  await a.crash();
  const { parts, wal } = await peek();
  // three parts a series a checkpoint (whole minutes, 900 s, 3600 s): all of the first, 500 series of the last
  t.equal(parts, 3 * SERIES + 3 * 500, 'the shutdown checkpoint wrote the series it reached, and no more');
  t.ok(wal > 0, `and kept the WAL records (${wal})`);

  const b = await open(dir);
  const refs = b.engine.select(1, 'm', { op: 'all' });
  t.equal(refs.length, SERIES);
  const read = async (tier: 0 | 60) => b.engine.read(1, refs.map((r) => r.id), tier, base, base + WINDOW);
  for (const tier of [0, 60] as const) {
    const points = await read(tier);
    let wrong = 0;
    refs.forEach((ref, n) => {
      const i = Number(ref.tags[0]![1].slice(1));
      const p = points[n]!;
      if (JSON.stringify(p.sum) !== JSON.stringify(Array.from({ length: 6 }, (_, r) => value(i, r))) || !p.count.every((c) => c === 1)) wrong++;
    });
    t.equal(wrong, 0, `tier ${tier}: no series lost or doubled a point`);
  }
  await b.engine.close();
  await b.crash();
  t.equal((await peek()).wal, 0, 'a shutdown given the time writes everything and empties the WAL');
});

t.test('a start serves what it replayed before its checkpoint has written it', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  for (let r = 0; r < 3; r++) {
    await a.engine.append(1, Array.from({ length: 100 }, (_, i) => valueSample('m', tagsOf(i), base + r * 60, r * 1000 + i)));
  }
  await a.crash(); // never checkpointed: everything is in the WAL

  const b = await open(dir, {}, 0); // and no write lands: the start's checkpoint never ends
  const refs = b.engine.select(1, 'm', { op: 'all' });
  t.equal(refs.length, 100);
  const points = await b.engine.read(1, refs.map((r) => r.id), 0, base, base + WINDOW);
  let wrong = 0;
  refs.forEach((ref, n) => {
    const i = Number(ref.tags[0]![1].slice(1));
    if (JSON.stringify(points[n]!.sum) !== JSON.stringify([i, 1000 + i, 2000 + i])) wrong++;
  });
  t.equal(wrong, 0, 'every replayed point is read from the head');
  t.equal(b.engine.stats().headPoints, 300);
  await b.crash();
});

t.test('the rollup tiers after a checkpoint cut short: every minute, quarter and hour holds each point once, as raw rolled up', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  const SERIES = 600; // 4 parts a series (two on whole minutes, one a coarse tier): the checkpoint of both windows needs two batches
  const value = (i: number, m: number) => i * 1000 + m + (m % 7) / 8;
  const append = async (fromMinute: number, toMinute: number) => {
    for (let m = fromMinute; m < toMinute; m++) {
      await a.engine.append(1, Array.from({ length: SERIES }, (_, i) => valueSample('m', tagsOf(i), base + m * 60, value(i, m))));
    }
  };
  const ids = () => a.engine.select(1, 'm', { op: 'all' }).map((r) => r.id);
  // 7 hours over two raw windows, read at the coarse tiers between appends: the head's
  // bucket caches are filled, then extended, when the checkpoint takes the columns
  await append(0, 200);
  await a.engine.read(1, ids(), 3600, base, base + 2 * WINDOW);
  await a.engine.read(1, ids(), 900, base, base + 2 * WINDOW);
  await a.engine.checkpoint();
  await append(200, 420);
  await a.engine.read(1, ids(), 3600, base, base + 2 * WINDOW);
  await a.engine.read(1, ids(), 900, base + 1800, base + 2 * WINDOW);
  a.commit.left = 1; // the next checkpoint's first batch lands, then the process dies
  void a.engine.checkpoint();
  await poll(async () => (a.commit.left === 0 ? true : undefined));
  await a.crash();

  const b = await open(dir);
  const refs = b.engine.select(1, 'm', { op: 'all' });
  const raw = await b.engine.read(1, refs.map((r) => r.id), 0, base, base + 2 * WINDOW);
  let rawWrong = 0;
  refs.forEach((ref, n) => {
    const i = Number(ref.tags[0]![1].slice(1));
    const p = raw[n]!;
    if (p.t.length !== 420 || p.sum.some((v, m) => v !== value(i, m)) || p.count.some((c) => c !== 1)) rawWrong++;
  });
  t.equal(rawWrong, 0, 'raw: every point once');
  for (const tier of [60, 900, 3600] as const) {
    // twice: the first read fills the bucket caches of the replayed head, the second uses them
    for (const round of ['first', 'second']) {
      const coarse = await b.engine.read(1, refs.map((r) => r.id), tier, base, base + 2 * WINDOW);
      let wrong = 0;
      refs.forEach((_, n) => {
        const want = rollUp(raw[n]!, tier);
        const got = coarse[n]!;
        if (JSON.stringify([got.t, got.count, got.min, got.max, got.last]) !== JSON.stringify([want.t, want.count, want.min, want.max, want.last])) wrong++;
        else if (got.sum.some((v, k) => Math.abs(v - want.sum[k]!) > 1e-6 * Math.abs(v))) wrong++;
      });
      t.equal(wrong, 0, `${tier} s tier, ${round} read: each bucket holds every point of it once`);
    }
  }
  await b.engine.close();
  await b.crash();
});

t.test('open windows snapshotted by the old layout are read, rewritten as parts, and their snapshots deleted', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  const tags = tagsOf(0);
  await a.engine.append(1, [valueSample('m', tags, base, 1)]);
  await a.engine.close();
  const id = a.engine.select(1, 'm', { op: 'all' })[0]!.id;
  // what a checkpoint of the old layout left for an open window: one whole snapshot
  const snapshot = { t: [base + HOUR, base + 2 * HOUR], count: [1, 1], sum: [2, 3], min: [2, 3], max: [2, 3], last: [2, 3], sumsq: [4, 9], lastT: [base + HOUR, base + 2 * HOUR] };
  await a.store.binary('head').put(headKey(1, id, base), encodeChunk(snapshot, base));
  await a.crash();

  const b = await open(dir);
  const p = (await b.engine.read(1, [id], 0, base, base + WINDOW))[0]!;
  t.same(p.sum, [1, 2, 3], 'the snapshot points are read beside the stored ones');
  t.same(await b.store.binary('head').keys().all(), [], 'the snapshot is gone once written as parts');
  await b.engine.close();
  await b.crash();
  const c = await open(dir);
  t.same((await c.engine.read(1, [id], 0, base, base + WINDOW))[0]!.sum, [1, 2, 3], 'and nothing doubled after a restart');
  await c.engine.close();
  await c.crash();
});

t.test('a checkpoint takes a copy of the head columns; a failed one gives them back in order', async (t) => {
  const { HeadChunk, ColumnCopies } = await import('../../src/tsdb/head.js');
  const c = new HeadChunk(1, 1, 0);
  c.append(10, { count: 1, sum: 1, min: 1, max: 1, last: 1, sumsq: 1 }, 1, Date.now());
  c.append(20, { count: 1, sum: 2, min: 2, max: 2, last: 2, sumsq: 4 }, 1, Date.now());
  const taken = c.capture();
  t.equal(taken.size, 2);
  t.equal(c.size, 0, 'the head starts afresh');
  c.append(20, { count: 1, sum: 5, min: 5, max: 5, last: 5, sumsq: 25 }, 1, Date.now());
  c.append(30, { count: 1, sum: 3, min: 3, max: 3, last: 3, sumsq: 9 }, 1, Date.now());
  const copies = new ColumnCopies();
  c.copyInto(0, 100, copies);
  t.same([0, 1].map((k) => copies.columns(k).range(0, 100, 0).t), [[10, 20], [20, 30]], 'reads see both, oldest first');
  c.restore();
  t.equal(c.flushing, null);
  const p = c.points();
  t.same(p.t, [10, 20, 30]);
  t.same([p.count[1], p.sum[1], p.last[1]], [2, 7, 5], 'the same second merged, the later write last');
});

t.test("a read's copy of the head is its own: later writes, merges and growth do not reach it", async (t) => {
  const { Columns } = await import('../../src/tsdb/head.js');
  const plain = (v: number) => ({ count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v });
  const cols = new Columns(0);
  for (let i = 0; i < 10; i++) cols.append(i * 10, plain(i));
  const copy = cols.copy(20, 60);
  cols.append(90, plain(100)); // merges into the point at 90: summary columns appear, v changes in place
  for (let i = 10; i < 40; i++) cols.append(i * 10, plain(i)); // grows the arrays
  const p = copy.range(0, 1000, 0);
  t.same(p.t, [20, 30, 40, 50], 'only the range asked for');
  t.same(p.sum, [2, 3, 4, 5]);
  t.same(p.count, [1, 1, 1, 1]);
  const whole = cols.copy(0, 1000).range(0, 1000, 60);
  t.same(whole.t.slice(0, 2), [0, 60], 'a copy rolls up like the head');
  t.same([whole.count[1], whole.sum[1]], [7, 6 + 7 + 8 + 9 + 100 + 10 + 11], 'the merged point counts both writes in its bucket');
  const unsorted = new Columns(0);
  unsorted.append(50, plain(5));
  unsorted.append(10, plain(1));
  unsorted.append(70, plain(7));
  t.same(unsorted.copy(20, 60).range(20, 60, 0).t, [50], 'an unsorted head is copied whole and cut when read');
});

t.test('sparse windows stay in the head across checkpoints, their WAL records with them; a crash loses and doubles nothing', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir, { flushPoints: 120, headMaxAgeMs: 3_600_000 });
  const base = windowOf(Math.floor(Date.now() / 1000)); // the open window: not due for its end
  for (let i = 0; i < 10; i++) await a.engine.append(1, [valueSample('m', tagsOf(0), base + i, i)]);
  for (let i = 0; i < 200; i++) await a.engine.append(1, [valueSample('m', tagsOf(1), base + i, 1000 + i)]);
  await a.engine.checkpoint();
  const [sparse, dense] = [0, 1].map((h) => a.engine.select(1, 'm', { op: 'all' }).find((r) => r.tags[0]![1] === `h${h}`)!.id);
  const written = (await a.engine.chunks.keys().all()).map(parseChunkKey).filter((k) => k.tier === 0);
  t.same([...new Set(written.map((k) => k.series))], [dense], 'only the window past its size limit (200 points) was written');
  t.equal(a.engine.stats().headPoints, 10, 'the sparse one stays in the head');
  await a.crash();
  const peek = await Store.open(dir, { sync: false });
  t.ok((await peek.binary('wal').keys().all()).length > 0, 'and so do the WAL records its points are in');
  await peek.close();

  const b = await open(dir, { flushPoints: 120, headMaxAgeMs: 3_600_000 });
  const [ps, pd] = await b.engine.read(1, [sparse, dense], 0, base, base + WINDOW);
  t.same(ps!.sum, Array.from({ length: 10 }, (_, i) => i), 'the sparse window replayed');
  t.same(pd!.sum, Array.from({ length: 200 }, (_, i) => 1000 + i), 'the written one not replayed again');
  t.ok(pd!.count.every((c) => c === 1) && ps!.count.every((c) => c === 1), 'every point once');
  // the start writes what it replayed in the background
  await poll(async () => (b.engine.stats().headPoints === 0 ? true : undefined));
  t.pass('the start wrote what it replayed');
  await b.engine.close();
  await b.crash();
});

t.test('due times are spread by series: windows that start together do not all come due together', async (t) => {
  const { seriesPlace } = await import('../../src/tsdb/checkpoint.js');
  const tenths = new Array(10).fill(0);
  let outside = 0;
  for (let id = 1; id <= 50_000; id++) {
    const p = seriesPlace(id);
    if (p >= 0 && p < 1) tenths[Math.floor(p * 10)]++;
    else outside++;
  }
  t.equal(outside, 0, 'every place in [0, 1)');
  t.ok(tenths.every((n) => n > 4_500 && n < 5_500), `each tenth of the age limit gets about a tenth of 50,000 series: ${tenths.join(', ')}`);
  t.equal(seriesPlace(12345), seriesPlace(12345), 'a fixed place');
});

t.test('windows that ended together are sealed over a spread of idle times, each after its own', async (t) => {
  const { sealDue, seriesPlace } = await import('../../src/tsdb/checkpoint.js');
  const window = 1_800_000_000 - WINDOW; // ended at 1,800,000,000 s
  const ended = 1_800_000_000_000;
  const idle = 300_000;
  const chunks = Array.from({ length: 10_000 }, (_, i) => ({ series: i + 1, window, lastAppendMs: ended }));
  const sealedBy = (afterMs: number) => chunks.filter((c) => sealDue(c, ended + afterMs, idle)).length;
  t.equal(sealedBy(idle - 1), 0, 'none before the idle time');
  t.ok(sealedBy(idle * 1.25) > 2_000 && sealedBy(idle * 1.25) < 3_000, `about a quarter a quarter of the way on: ${sealedBy(idle * 1.25)}`);
  t.equal(sealedBy(idle * 2), 10_000, 'all by twice the idle time');
  const c = chunks[7]!;
  t.equal(sealDue(c, ended + idle * (1 + seriesPlace(c.series)), idle), true, 'each at its own place');
  t.equal(sealDue({ ...c, window: window + WINDOW }, ended + 10 * idle, idle), false, 'never before its window ends');
});

t.test('a window is written at its own size limit (120 points on average), at its own age limit, or soon after its end; sparse series wait', async (t) => {
  const { writeDue, seriesPlace } = await import('../../src/tsdb/checkpoint.js');
  const opts = { checkpointMs: 60_000 }; // the defaults: 120 points, 30 minutes
  const now = 1_800_000_000_000;
  const window = windowOf(now / 1000); // open until well after `now`
  const sparse = Array.from({ length: 10_000 }, (_, i) => ({ series: i + 1, window, size: 60, firstAppendMs: now - 10 * 60_000 }));
  t.equal(sparse.filter((c) => writeDue(c, now, opts)).length, 0, '60 points of the last 10 minutes wait (one point in 10 s)');
  const sized = (size: number) => sparse.filter((c) => writeDue({ ...c, size }, now, opts)).length;
  t.equal(sized(89), 0, 'none before 75 % of 120 points');
  t.ok(sized(120) > 4_000 && sized(120) < 6_000, `about half at 120 points, not all at one checkpoint: ${sized(120)}`);
  t.equal(sized(150), 10_000, 'all by 125 % of them');
  const aged = (ms: number) => sparse.filter((c) => writeDue({ ...c, firstAppendMs: now - ms }, now, opts)).length;
  t.equal(aged(15 * 60_000 - 1), 0, 'none before half the age limit');
  t.ok(aged(22.5 * 60_000) > 4_000 && aged(22.5 * 60_000) < 6_000, `about half by three quarters of it: ${aged(22.5 * 60_000)}`);
  t.equal(aged(30 * 60_000), 10_000, 'all by the age limit');
  t.equal(writeDue(sparse[0]!, now, { ...opts, headMaxAgeMs: 10 * 60_000 }), true, 'the limit is the option');
  const end = (window + WINDOW) * 1000;
  const ended = (afterMs: number) => sparse.filter((c) => writeDue({ ...c, firstAppendMs: end - 60_000 }, end + afterMs, opts)).length;
  t.ok(ended(0) < 10, `an ended window is not written by all series at once: ${ended(0)} at its end`);
  t.equal(ended(5 * 60_000), 10_000, 'but by all within five checkpoint intervals');
  const c = sparse[7]!;
  t.equal(writeDue({ ...c, firstAppendMs: end - 60_000 }, end + seriesPlace(c.series) * 5 * 60_000, opts), true, 'each at its own place');
});

t.test('a series moving on to its next window opens it with the room the last one used', async (t) => {
  const dir = tempDir(t);
  const a = await open(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  const tags = tagsOf(0);
  for (let i = 0; i < 150; i++) await a.engine.append(1, [valueSample('m', tags, base + i * 60, i)]);
  await a.engine.append(1, [valueSample('m', tags, base + WINDOW, 1)]);
  await a.engine.append(1, [valueSample('m', tags, base + 10, 1)]); // a late point into the older window
  const id = a.engine.select(1, 'm', { op: 'all' })[0]!.id;
  const head = (a.engine as unknown as { st: { head: { get(id: number): readonly { window: number; roomWanted: number }[] } } }).st.head;
  const room = (w: number) => head.get(id)!.find((c) => c.window === w)!.roomWanted;
  t.ok(room(base) >= 150, 'the first window grew to its points');
  t.ok(room(base + WINDOW) >= 150, `the next one starts with room for ${room(base + WINDOW)}, not 16`);
  await a.engine.append(1, [valueSample('m', tags, base - WINDOW, 1)]); // a late point for a window long gone
  t.equal(room(base - WINDOW), 16, 'a late point reopening an older window takes the least room');
  await a.engine.close();
  await a.crash();
});

t.test('a flush that fails to encode goes back to the head, and the next checkpoint writes it', async (t) => {
  const { Columns } = await import('../../src/tsdb/head.js');
  const dir = tempDir(t);
  const a = await open(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  for (let i = 0; i < 3; i++) await a.engine.append(1, [valueSample('m', tagsOf(i), base + 60, i)]);
  const points = Columns.prototype.points;
  let failures = 1;
  Columns.prototype.points = function (this: InstanceType<typeof Columns>) {
    if (failures-- > 0) throw new Error('encoding failed');
    return points.call(this);
  };
  t.teardown(() => { Columns.prototype.points = points; });
  await t.rejects(a.engine.checkpoint(), /encoding failed/);
  Columns.prototype.points = points;
  t.equal(a.engine.stats().headPoints, 3, 'every point is back in the head');
  await a.engine.checkpoint();
  await a.engine.close();
  await a.crash();
  const b = await open(dir);
  const ids = b.engine.select(1, 'm', { op: 'all' }).map((r) => r.id);
  const read = await b.engine.read(1, ids, 0, base, base + WINDOW);
  t.same(read.map((p) => p.sum).flat().sort(), [0, 1, 2], 'and every one is stored once');
  await b.engine.close();
  await b.crash();
});

t.test('series that started together do not stay in step: their parts, and the merges of every fourth, spread over checkpoints', async (t) => {
  const { writeDue } = await import('../../src/tsdb/checkpoint.js');
  const opts = { checkpointMs: 60_000 };
  const now = 1_800_000_000_000;
  const window = windowOf(now / 1000);
  // 3,000 series created at one scrape, 12 points each a checkpoint (a point every 5 s)
  const series = Array.from({ length: 3_000 }, (_, i) => ({ series: i + 1, window, size: 0, firstAppendMs: now, captures: 0 }));
  const parts: number[] = [];
  const merges: number[] = [];
  for (let k = 1; k <= 90; k++) {
    let written = 0;
    let fourth = 0;
    for (const c of series) {
      c.size += 12;
      if (!writeDue(c, now + k * 60_000, opts)) continue;
      written++;
      c.captures++;
      c.size = 0;
      c.firstAppendMs = now + k * 60_000;
      if (c.captures % 4 === 0) fourth++;
    }
    parts.push(written);
    merges.push(fourth);
  }
  const later = parts.slice(29);
  const mean = later.reduce((a, b) => a + b, 0) / later.length;
  // one place a series for every part: 1,500 at the busiest checkpoint against 305 on average
  t.ok(Math.max(...later) < 2 * mean, `parts a checkpoint from minute 30: at most ${Math.max(...later)}, ${mean.toFixed(0)} on average`);
  // and 600 of them fourth parts (a merge each) at once, every 4 minutes
  t.ok(Math.max(...merges) < 450, `fourth parts at one checkpoint: at most ${Math.max(...merges)}`);
});

t.test('a seal queued while a merge of its window runs is not replaced by the merge that one plans next', async (t) => {
  const dir = tempDir(t);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 8 * WINDOW;
  const tags = tagsOf(0);
  let next = 0;
  // an ended window, sealed once idle for 5-10 s (sealDue); each round writes it again at once
  const a = await open(dir, { flushPoints: 1, sealIdleMs: 5000 });
  const round = async () => {
    await a.engine.append(1, [0, 1].map(() => valueSample('m', tags, base + 7 + 10 * next, next++)));
    await a.engine.checkpoint();
  };
  // a level-2 part, three level-1 parts and three level-0 parts (a part's level lives in
  // memory: these must be made by this engine, not loaded at a start)
  for (let k = 0; k < 16 + 12 + 3; k++) {
    await round();
    await a.engine.compacted();
  }
  // (the 3600 s tier: a checkpoint's first part, so the queue hands its merge over at once)
  const hourKeys = async () => (await a.engine.chunks.keys().all()).filter((k) => parseChunkKey(k).tier === 3600);
  t.equal((await hourKeys()).length, 7);
  let release!: () => void;
  const held = a.engine.exclusive(() => new Promise<void>((r) => { release = r; }));
  // the fourth level-0 part: its merge is taken, and waits
  await round();
  // idle past the longest idle limit: the next checkpoint seals the window meanwhile
  await new Promise((r) => setTimeout(r, 10_500));
  await a.engine.checkpoint();
  release();
  await held;
  await a.engine.compacted();
  // the merge made a fourth level-1 part; the level-2 merge it planned must not take the seal's place
  t.equal((await hourKeys()).length, 1, 'the window is sealed into one part');
  const id = a.engine.select(1, 'm', { op: 'all' })[0]!.id;
  t.equal((await a.engine.read(1, [id], 0, base, base + WINDOW))[0]!.t.length, next, 'every point once');
  await a.engine.close();
  await a.crash();
});
