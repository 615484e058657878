// The head's coarse buckets (issue 14): reads at 900 s and 3600 s take the buckets
// earlier reads kept instead of rolling up every raw point again, and the figures are
// exactly those of rolling the points up, whatever the order of appends and reads.
import t from 'tap';
import { Columns, HeadChunk, PackedBuckets, unpack } from '../../src/tsdb/head.js';
import { ALL_COLUMNS, COLUMN, rollUp, type Points } from '../../src/tsdb/points.js';
import type { Summary } from '../../src/tsdb/sample.js';

const WINDOW = 21600;

/** A seeded generator (Park-Miller): every run reads the same appends. */
function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

/** A plain value, or now and then a summary, with noisy floats (sums round differently in another order). */
function sample(random: () => number): Summary {
  const v = random() * 1000 - 500 + random() / 3;
  if (random() < 0.8) return { count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v };
  const w = v + random() * 10;
  return { count: 2, sum: v + w, min: v, max: w, last: w, sumsq: v * v + w * w };
}

const FIELDS = ['t', 'count', 'sum', 'min', 'max', 'last', 'sumsq'] as const;

/** Whether two sets of points are equal, column by column, to the last bit. */
function identical(a: Points, b: Points): boolean {
  return FIELDS.every((f) => a[f].length === b[f].length && a[f].every((x, i) => Object.is(x, b[f][i])));
}

/** The buckets as reading the raw points and rolling them up gives them. */
function expected(cols: Columns, from: number, to: number, step: number): Points {
  return rollUp(cols.range(from, to, 0), step);
}

t.test('coarse buckets read from the cache equal the raw points rolled up, to the last bit', async (t) => {
  const random = rng(7);
  let mismatches = 0;
  let reads = 0;
  for (let round = 0; round < 40; round++) {
    const cols = new Columns(0);
    let time = Math.floor(random() * 600);
    const unsortedAt = round % 4 === 3 ? Math.floor(random() * 300) : -1; // some rounds end unsorted
    for (let i = 0; i < 400 && time < WINDOW; i++) {
      // in order, now and then the same second again (merged into the last point)
      if (i === unsortedAt) cols.append(Math.max(0, time - 5000), sample(random));
      else cols.append(time, sample(random));
      if (random() < 0.8) time += 1 + Math.floor(random() * 120);
      if (random() < 0.15) {
        for (const step of [900, 3600]) {
          const from = random() < 0.5 ? Math.floor(random() * WINDOW) : Math.floor(random() * 24) * 900;
          const to = random() < 0.2 ? Infinity : from + Math.floor(random() * WINDOW);
          reads++;
          if (!identical(cols.range(from, to, step), expected(cols, from, to, step))) mismatches++;
          if (!identical(cols.range(-Infinity, Infinity, step), expected(cols, -Infinity, Infinity, step))) mismatches++;
        }
      }
    }
  }
  t.ok(reads > 500, `${reads} reads`);
  t.equal(mismatches, 0, 'every read equals the raw points rolled up');
});

t.test('a checkpoint\'s roll-up equals the raw points rolled up, with or without buckets a read kept, and keeps none', async (t) => {
  const random = rng(11);
  let mismatches = 0;
  let cachesKept = 0;
  for (let round = 0; round < 60; round++) {
    const cols = new Columns(0);
    let time = Math.floor(random() * 600);
    for (let i = 0; i < 150 && time < WINDOW; i++) {
      cols.append(round % 5 === 4 && i === 70 ? Math.max(0, time - 3000) : time, sample(random)); // some unsorted
      time += 1 + Math.floor(random() * 200);
    }
    const read = round % 2 === 0; // half the rounds had a read that kept buckets of 900 s
    if (read) cols.range(0, Infinity, 900);
    for (const step of [900, 3600]) {
      if (!identical(cols.rolledUp(step), expected(cols, -Infinity, Infinity, step))) mismatches++;
    }
    const rolled = (cols as unknown as { rolled: Map<number, unknown> | null }).rolled;
    if (!read && rolled !== null) cachesKept++;
    if (read && cols.sorted && (rolled?.size ?? 0) !== 1) cachesKept++;
  }
  t.equal(mismatches, 0, 'every roll-up equals the raw points rolled up');
  t.equal(cachesKept, 0, 'a checkpoint\'s roll-up keeps no buckets of its own');
});

t.test('a read after cached buckets sees the points since, and a late merge into the last point', async (t) => {
  const cols = new Columns(0);
  const plain = (v: number) => ({ count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v });
  for (let i = 0; i < 180; i++) cols.append(i * 60, plain(i)); // three hours
  const before = cols.range(0, WINDOW, 3600);
  t.same(before.t, [0, 3600, 7200]);
  t.same(before.count, [60, 60, 60]);
  cols.append(179 * 60, plain(1000)); // the same second as the last point: merged into it
  cols.append(180 * 60, plain(5)); // a new hour
  const after = cols.range(0, WINDOW, 3600);
  t.same(after.t, [0, 3600, 7200, 10800]);
  t.same(after.count, [60, 60, 61, 1], 'the merged point counts in its (still open) hour');
  t.equal(after.sum[2], before.sum[2]! + 1000);
  t.equal(after.last[2], 1000, 'the later write is the hour\'s last');
  t.same(after, expected(cols, 0, WINDOW, 3600));
  cols.append(30, plain(-1)); // out of order: the cache is dropped, reads roll up the points
  t.same(cols.range(0, WINDOW, 3600), expected(cols, 0, WINDOW, 3600));
});

t.test('the live columns keep their arrays through checkpoints; what a checkpoint takes is its own copy', async (t) => {
  const c = new HeadChunk(1, 1, 0);
  const plain = (v: number) => ({ count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v });
  const arrays = () => (c as unknown as { cols: { v: Float64Array } }).cols.v;
  for (let i = 0; i < 100; i++) c.append(i * 10, plain(i), 1, Date.now());
  c.range(0, WINDOW, 900); // a read keeps buckets: they go with the points taken
  const live = arrays();
  const taken = c.capture();
  t.equal(c.size, 0, 'the head starts afresh');
  for (let i = 0; i < 100; i++) c.append(2000 + i * 10, plain(-i), 2, Date.now()); // the same slots again
  t.equal(arrays(), live, 'the next points go into the same arrays');
  const p = taken.points();
  t.same(p.t, Array.from({ length: 100 }, (_, i) => i * 10), 'the taken points are untouched by later appends');
  t.same(p.sum, Array.from({ length: 100 }, (_, i) => i));
  t.same(taken.rolledUp(900), rollUp(p, 900), 'and so are their buckets');
  t.same(c.points().sum, Array.from({ length: 100 }, (_, i) => -i));
  const summary = { count: 2, sum: 3, min: 1, max: 2, last: 2, sumsq: 5 };
  c.append(5000, summary, 3, Date.now());
  const withSummary = c.capture();
  c.append(6000, plain(7), 4, Date.now());
  t.same(withSummary.points().count.slice(-1), [2], 'summary columns go with the points taken');
  t.same(c.points().count, [1], 'and the live columns start plain');
});

t.test('a window its series has moved on from gives its arrays to the checkpoint, copying nothing', async (t) => {
  const c = new HeadChunk(1, 1, 0);
  const plain = (v: number) => ({ count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v });
  const arrays = () => (c as unknown as { cols: { v: Float64Array } }).cols.v;
  for (let i = 0; i < 100; i++) c.append(i * 10, plain(i), 1, Date.now());
  const live = arrays();
  const taken = c.capture(false);
  t.equal((taken as unknown as { v: Float64Array }).v, live, 'the checkpoint takes the arrays themselves');
  t.equal(arrays().length, 0, 'the window holds no arrays until its next point');
  t.same(taken.points().sum, Array.from({ length: 100 }, (_, i) => i));
  c.append(5000, plain(-1), 2, Date.now());
  t.ok(arrays().length > 0 && arrays().length < 100, `a late point starts small (room for ${arrays().length})`);
  c.restore();
  t.same(c.points().sum, [...Array.from({ length: 100 }, (_, i) => i), -1], 'a failed checkpoint gives them back in order');
});

t.test('a checkpoint copies a current window and releases the others (memory of a backfill)', async (t) => {
  const { takeFlush, forEachPart } = await import('../../src/tsdb/flush.js');
  const { Head } = await import('../../src/tsdb/head.js');
  const head = new Head();
  const plain = (v: number) => ({ count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v });
  const older = head.chunk(1, 1, 0);
  const newer = head.chunk(1, 1, WINDOW);
  for (let i = 0; i < 50; i++) older.append(i * 60, plain(i), 1, Date.now());
  for (let i = 0; i < 50; i++) newer.append(WINDOW + i * 60, plain(i), 1, Date.now());
  const room = (c: typeof older) => (c as unknown as { cols: { v: Float64Array } }).cols.v.length;
  const st = { seq: 0, current: [undefined, newer], catalog: { holds: () => false } } as unknown as Parameters<typeof takeFlush>[0];
  const f = takeFlush(st, [newer, older]);
  t.same(f.windows.map((w) => w.chunk.window), [0, WINDOW]);
  const numbers: number[] = [];
  forEachPart(f, (tier, window, part) => numbers.push(part));
  t.same(numbers, Array.from({ length: st.seq }, (_, i) => i + 1), 'the flush took one number a part, in the order its parts are visited');
  t.same(f.windows.map((w) => w.minuteRaw), [true, true], 'points on whole minutes in windows without raw parts: one part for raw and 60 s');
  t.equal(room(older), 0, 'the older window gave its arrays away');
  t.ok(room(newer) >= 50, 'the current one kept its arrays');
  t.same(f.windows.map((w) => w.columns.size), [50, 50], 'and both were taken whole');
  for (let i = 50; i < 60; i++) newer.append(WINDOW + i * 60, plain(i), 2, Date.now());
  takeFlush(st, [newer], false);
  t.equal(room(newer), 0, 'a checkpoint of everything (a replay, a shutdown) copies nothing');
});

t.test('a burst does not keep its room past the checkpoint that takes it'
, async (t) => {
  const c = new HeadChunk(1, 1, 0);
  const plain = (v: number) => ({ count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v });
  for (let i = 0; i < 5000; i++) c.append(i, plain(i), 1, Date.now());
  c.capture();
  for (let i = 0; i < 5000; i++) c.append(6000 + i, plain(i), 1, Date.now());
  c.capture();
  t.ok(c.roomWanted >= 5000, 'room for as many as came');
  for (let i = 0; i < 10; i++) c.append(12000 + i, plain(i), 2, Date.now());
  c.capture();
  c.append(13000, plain(1), 3, Date.now());
  t.ok(c.roomWanted < 100, `a quiet interval after it leaves room for ${c.roomWanted}`);
});

t.test('a head chunk hands a read its buckets packed: being written, then received since', async (t) => {
  const c = new HeadChunk(1, 1, 0);
  const plain = (v: number) => ({ count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v });
  for (let i = 0; i < 90; i++) c.append(i * 60, plain(i), 1, Date.now());
  c.capture();
  for (let i = 90; i < 150; i++) c.append(i * 60, plain(i), 2, Date.now());
  const out = new PackedBuckets(1);
  c.bucketsInto(0, WINDOW, 3600, out);
  const p = unpack(out.buf, 0, out.size);
  // the hour split by the checkpoint comes twice: reads merge the two partial summaries
  t.same(p.t, [0, 3600, 3600, 7200]);
  t.same(p.count, [60, 30, 30, 30]);
  const some = unpack(out.buf, 1, 3, COLUMN.count);
  t.same(some.count, [30, 30]);
  t.equal(some.min, some.sum, 'a column not asked for is not built');
  t.same(unpack(out.buf, 0, 1, ALL_COLUMNS).max, [59]);
});

t.test('the 60 s tier\'s buckets go into a read straight from the columns, as range rolls them up', async (t) => {
  const random = rng(11);
  let mismatches = 0;
  for (let round = 0; round < 30; round++) {
    const cols = new Columns(0);
    let time = Math.floor(random() * 600);
    for (let i = 0; i < 300 && time < WINDOW; i++) {
      cols.append(round % 3 === 2 && i === 150 ? Math.max(0, time - 900) : time, sample(random)); // some rounds unsorted
      time += random() < 0.3 ? 0 : 1 + Math.floor(random() * 40);
    }
    for (let k = 0; k < 10; k++) {
      const from = Math.floor(random() * WINDOW / 2);
      const to = random() < 0.2 ? Infinity : from + Math.floor(random() * WINDOW);
      const out = new PackedBuckets(1);
      cols.bucketsInto(from, to, 60, out);
      if (!identical(unpack(out.buf, 0, out.size), cols.range(from, to, 60))) mismatches++;
    }
  }
  t.equal(mismatches, 0, 'every read equals the points rolled up by range');
});

t.test('columns grow to about what the window has room for at the pace they fill', async (t) => {
  const plain = (v: number): Summary => ({ count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v });
  const fill = (step: number, from = 0) => {
    const cols = new Columns(0);
    for (let d = from; d < WINDOW; d += step) cols.append(d, plain(d));
    return cols;
  };
  // a point a minute fills 360; growing by half from 348 left room for 530
  const minute = fill(60);
  t.equal(minute.size, 360);
  t.ok(minute.capacity <= 400, `a point a minute: room for ${minute.capacity}`);
  const tenSeconds = fill(10);
  t.ok(tenSeconds.capacity <= tenSeconds.size * 1.15, `a point every 10 s: room for ${tenSeconds.capacity} of ${tenSeconds.size}`);
  // a series that speeds up late in the window still gets room, an eighth more at least each time
  const late = new Columns(0);
  for (let d = 0; d < 3600; d += 600) late.append(d, plain(d));
  for (let d = 3600; d < WINDOW; d++) late.append(d, plain(d));
  t.equal(late.size, 6 + WINDOW - 3600);
  t.ok(late.capacity >= late.size, 'every point kept');
  // out of order: the pace says nothing, so half as much again
  const shuffled = new Columns(0);
  for (let i = 0; i < 400; i++) shuffled.append((i * 7919) % WINDOW, plain(i));
  t.equal(shuffled.size, 400);
});
