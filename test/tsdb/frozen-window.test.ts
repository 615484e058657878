// A head window its series has moved on from waits for its checkpoint as the raw chunk
// the checkpoint will write (Columns.freeze): every read of it, every part a checkpoint
// writes of it and every point appended to it late must be what the columns would have
// given, to the last bit.
import t from 'tap';
import { ColumnCopies, Columns, Head, HeadChunk, PackedBuckets, unpack } from '../../src/tsdb/head.js';
import { ALL_COLUMNS, COLUMN, type Points } from '../../src/tsdb/points.js';
import { encodeChunk } from '../../src/tsdb/chunk.js';
import { encodeFlush, takeFlush } from '../../src/tsdb/flush.js';
import { appendPoint } from '../../src/tsdb/append.js';
import type { Summary } from '../../src/tsdb/sample.js';

const WINDOW = 21600;

function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 16807) % 2147483647) / 2147483647;
}

const plain = (v: number): Summary => ({ count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v });

/** A plain value, now and then a summary (round % 3 === 2 rounds only), noisy or on two decimals. */
function sample(random: () => number, summaries: boolean): Summary {
  const v = random() < 0.5 ? random() * 1000 - 500 + random() / 3 : Math.round(random() * 10000) / 100;
  if (!summaries || random() < 0.8) return plain(v);
  const w = v + random() * 10;
  return { count: 2, sum: v + w, min: v, max: w, last: w, sumsq: v * v + w * w };
}

const FIELDS = ['t', 'count', 'sum', 'min', 'max', 'last', 'sumsq', 'lastT'] as const;

/** Equal column by column to the last bit; only the columns in `columns` besides time and sum. */
function identical(a: Points, b: Points, columns = ALL_COLUMNS): boolean {
  const wanted = FIELDS.filter((f) => {
    if (f === 't' || f === 'sum') return true;
    const bit = f === 'lastT' ? COLUMN.last : COLUMN[f];
    return (columns & bit) !== 0;
  });
  return wanted.every((f) => a[f].length === b[f].length && a[f].every((x, i) => Object.is(x, b[f][i])));
}

function buckets(cols: Columns, from: number, to: number, step: number): Points {
  const out = new PackedBuckets(1);
  cols.bucketsInto(from, to, step, out);
  return unpack(out.buf, 0, out.size);
}

function copied(cols: Columns, from: number, to: number): Points {
  const copies = new ColumnCopies(1);
  cols.copyInto(from, to, copies);
  return copies.columns(0).points();
}

/** Every way a window is read, compared between columns and their frozen twin. */
function compare(a: Columns, b: Columns, random: () => number): string[] {
  const bad: string[] = [];
  const check = (what: string, x: Points, y: Points, columns = ALL_COLUMNS) => { if (!identical(x, y, columns)) bad.push(what); };
  check('points', a.points(), b.points());
  for (let k = 0; k < 6; k++) {
    // ranges that start before the window (the columns' window starts at WINDOW) or in it
    const aligned = random() < 0.5;
    const from = WINDOW + (aligned ? Math.floor(random() * 7 - 1) * 3600 : Math.floor(random() * WINDOW) - 600);
    const to = random() < 0.25 ? Infinity : from + (aligned ? Math.floor(random() * 6) * 3600 : Math.floor(random() * WINDOW));
    const columns = random() < 0.5 ? ALL_COLUMNS : COLUMN.count;
    check(`range ${from}-${to}`, a.range(from, to, 0, columns), b.range(from, to, 0, columns), columns);
    check(`copy ${from}-${to}`, copied(a, from, to), copied(b, from, to));
    for (const step of [60, 900, 3600]) {
      check(`range ${from}-${to} by ${step}`, a.range(from, to, step), b.range(from, to, step));
      check(`buckets ${from}-${to} by ${step}`, buckets(a, from, to, step), buckets(b, from, to, step));
    }
  }
  for (const step of [60, 900, 3600]) check(`rolled up by ${step}`, a.rolledUp(step), b.rolledUp(step));
  if (a.onWholeMinutes() !== b.onWholeMinutes()) bad.push('onWholeMinutes');
  if (a.size !== b.size) bad.push('size');
  return bad;
}

t.test('a frozen window reads, rolls up and takes late points exactly as its columns did', async (t) => {
  const random = rng(3);
  const bad: string[] = [];
  let frozen = 0;
  for (let round = 0; round < 60; round++) {
    const a = new Columns(WINDOW);
    const b = new Columns(WINDOW);
    const minutes = round % 4 === 0;
    let d = minutes ? Math.floor(random() * 30) * 60 : Math.floor(random() * 600);
    for (let i = 0; i < 40 + round * 5 && d < WINDOW; i++) {
      const s = sample(random, round % 3 === 2);
      a.append(WINDOW + d, s);
      b.append(WINDOW + d, s);
      d += minutes ? 60 : random() < 0.1 ? 0 : 1 + Math.floor(random() * 90);
    }
    // half the rounds read first, so the frozen window has bucket caches to serve from
    if (round % 2 === 0) for (const cols of [a, b]) { cols.range(WINDOW, Infinity, 900); cols.range(WINDOW, Infinity, 3600); }
    b.freeze();
    if (b.rawChunk) frozen++;
    if (b.rawChunk && !encodeChunk(a.points(), WINDOW).equals(b.rawChunk)) bad.push(`round ${round}: raw chunk`);
    bad.push(...compare(a, b, random).map((x) => `round ${round}: ${x}`));
    bad.push(...compare(a, b, random).map((x) => `round ${round}, again: ${x}`)); // the caches the first reads left
    // late points: into the last point, between points, after them
    for (let i = 0; i < 5; i++) {
      const late = WINDOW + (i === 0 ? d - (minutes ? 60 : 1) : Math.floor(random() * WINDOW));
      const s = sample(random, false);
      a.append(late, s);
      b.append(late, s);
    }
    if (b.rawChunk) bad.push(`round ${round}: still frozen after an append`);
    bad.push(...compare(a, b, random).map((x) => `round ${round}, after late points: ${x}`));
  }
  t.ok(frozen >= 50, `${frozen} of 60 windows frozen`);
  t.same(bad, [], 'no read differs');
});

t.test('a frozen window keeps its chunk instead of its columns', async (t) => {
  const cols = new Columns(0);
  for (let i = 0; i < 360; i++) cols.append(i * 60, plain(Math.round(i * 37.7) / 100));
  t.ok(cols.capacity >= 360);
  cols.freeze();
  t.equal(cols.capacity, 0, 'no columns');
  t.equal(cols.size, 360);
  t.ok(cols.rawChunk!.length < 360 * 2, `${cols.rawChunk!.length} bytes for 360 points`);
  t.equal(cols.onWholeMinutes(), true);

  const few = new Columns(0);
  for (let i = 0; i < 31; i++) few.append(i * 60, plain(i));
  few.freeze();
  t.equal(few.rawChunk, null, 'a window of few points keeps its columns');
  const unsorted = new Columns(0);
  for (let i = 0; i < 100; i++) unsorted.append(((i * 7919) % 360) * 60, plain(i));
  unsorted.freeze();
  t.equal(unsorted.rawChunk, null, 'so does a window out of order');
});

t.test('a checkpoint writes a frozen window\'s parts byte for byte as it wrote its columns', async (t) => {
  const parts = (frozen: boolean, minutes: boolean) => {
    const head = new Head();
    const chunks = [0, WINDOW, 2 * WINDOW].map((w) => head.chunk(1, 1, w));
    const again = rng(9);
    for (const c of chunks) {
      for (let i = 0; i < 200; i++) c.append(c.window + (minutes ? i * 60 : i * 97 + (i % 7)), sample(again, true), 1, 0);
    }
    chunks[1]!.range(0, Infinity, 3600); // a read kept buckets of one window
    if (frozen) chunks.slice(0, 2).forEach((c) => c.freeze());
    const st = { seq: 0, current: [undefined, chunks[2]], catalog: { holds: () => false } } as unknown as Parameters<typeof takeFlush>[0];
    const out: string[] = [];
    encodeFlush(takeFlush(st, chunks), (tier, window, part, buf) => out.push(`${tier} ${window} ${part} ${buf.toString('hex')}`));
    return out;
  };
  for (const minutes of [true, false]) {
    const plainParts = parts(false, minutes);
    // one 3600 s and one 900 s part for the three windows, and one raw part each (two off the minute)
    t.equal(plainParts.length, minutes ? 5 : 8, `${plainParts.length} parts`);
    t.same(parts(true, minutes), plainParts, minutes ? 'points on whole minutes' : 'points off the minute');
  }
});

t.test('a failed checkpoint gives a frozen window back, ahead of what came since', async (t) => {
  const c = new HeadChunk(1, 1, 0);
  for (let i = 0; i < 100; i++) c.append(i * 60, plain(i), 1, 0);
  c.freeze();
  const taken = c.capture(false);
  t.ok(taken.rawChunk, 'the checkpoint takes the chunk');
  t.same(taken.points().sum, Array.from({ length: 100 }, (_, i) => i));
  c.append(100 * 60, plain(-1), 2, 0);
  c.restore();
  t.same(c.points().sum, [...Array.from({ length: 100 }, (_, i) => i), -1], 'both, in order');
  t.same(c.points().t.slice(-2), [99 * 60, 100 * 60]);
});

t.test('the appender freezes the window a series leaves, and only that one', async (t) => {
  const st = { current: [] as (HeadChunk | undefined)[], head: new Head() } as unknown as Parameters<typeof appendPoint>[0];
  for (let i = 0; i < 400; i++) appendPoint(st, 1, 1, i * 60, plain(i), i + 1, 0); // 360 in window 0, 40 in the next
  for (let i = 0; i < 10; i++) appendPoint(st, 1, 2, i * 60, plain(i), 500 + i, 0); // a series that stays
  const chunks = [...st.head.chunks()];
  const raw = (c: HeadChunk) => (c as unknown as { cols: Columns }).cols.rawChunk;
  const left = chunks.find((c) => c.series === 1 && c.window === 0)!;
  const current = chunks.find((c) => c.series === 1 && c.window === WINDOW)!;
  t.ok(raw(left), 'the window left behind is frozen');
  t.equal(raw(current), null, 'the current one is not');
  t.equal(raw(chunks.find((c) => c.series === 2)!), null, 'nor another series\' window');
  t.same(left.points().sum, Array.from({ length: 360 }, (_, i) => i));
  appendPoint(st, 1, 1, 100 * 60 + 30, plain(0.5), 1000, 0); // a late point
  t.equal(raw(left), null, 'a late point thaws it');
  t.equal(left.size, 361);
  t.equal(st.current[1], current, 'and the series stays in its later window');
});
