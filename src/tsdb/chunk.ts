// A chunk: the points of one series in one time window of one tier, in one LevelDB
// value. Layout (docs/storage.md):
//   uvarint n | byte flags (bit 0: summary columns present)
//   times: uvarint (t0 - windowStart), then runs of (uvarint delta, uvarint repeat)
//   sum column (the value itself for plain samples)
//   [flags & 1] count column as uvarints, then min, max, last, sumsq columns
//   [flags & 4] when each point's last sample was taken: runs of (uvarint lastT - t, uvarint repeat)
// A chunk of plain samples (count 1, so min = max = last = sum and sumsq = sum^2) stores
// only times and values. Input must be sorted with distinct times (sortMerge).
import { ByteReader, ByteWriter } from './bytes.js';
import { ALL_COLUMNS, COLUMN, type Points } from './points.js';
import { readValues, VALUE_FORMS, writeValues } from './values.js';

const SUMMARY = 1;
/**
 * The count column as runs: a rollup's buckets mostly hold the same number of points
 * (15 a 900 s bucket of one-minute points), a byte a bucket before. Chunks written
 * before have this bit clear and are read as they were.
 */
const COUNT_RUNS = 2;
/**
 * The time of each point's last sample, as offsets from the point's time in runs: a
 * roll-up bucket's `last` must come from its latest sample when a late sample lands in
 * another part of the bucket (points.ts's mergeInto). Absent, the last sample is at the
 * point's time (raw points; buckets of one sample at their start; chunks written before).
 */
const LAST_TIMES = 4;

const writer = new ByteWriter(64 * 1024);

function isPlain(p: Points): boolean {
  for (let i = 0; i < p.t.length; i++) {
    const s = p.sum[i]!;
    if (p.count[i] !== 1 || !Object.is(p.min[i], s) || !Object.is(p.max[i], s) || !Object.is(p.last[i], s) || !Object.is(p.sumsq[i], s * s)) return false;
  }
  return true;
}

/**
 * `plain`: whether every point is a plain sample (count 1, min = max = last = the value);
 * a caller that knows (head columns without summary columns) saves the scan, and its
 * points' count, min, max, last and sumsq columns are then not read.
 */
export function encodeChunk(p: Points, windowStart: number, plain = isPlain(p)): Buffer {
  const w = writer;
  w.reset();
  const n = p.t.length;
  const lastTimes = hasLastTimes(p);
  w.uvarint(n);
  w.byte((plain ? 0 : SUMMARY | COUNT_RUNS) | (lastTimes ? LAST_TIMES : 0));
  if (n > 0) {
    // an offset below the window would be written as garbage: refuse it instead
    if (p.t[0]! < windowStart) throw new RangeError(`a chunk of the window at ${windowStart} cannot hold a point at ${p.t[0]}`);
    w.uvarint(p.t[0]! - windowStart);
    let i = 1;
    while (i < n) {
      const delta = p.t[i]! - p.t[i - 1]!;
      let run = 1;
      while (i + run < n && p.t[i + run]! - p.t[i + run - 1]! === delta) run++;
      w.uvarint(delta);
      w.uvarint(run);
      i += run;
    }
  }
  const { packed, sums } = VALUE_FORMS;
  writeValues(w, p.sum, n, plain ? packed : packed | sums);
  if (!plain) {
    writeRuns(w, p.count, n);
    writeValues(w, p.min, n, packed);
    writeValues(w, p.max, n, packed);
    writeValues(w, p.last, n, packed);
    writeValues(w, p.sumsq, n, packed | sums);
  }
  if (lastTimes) writeLastTimes(w, p);
  return w.finish();
}

function hasLastTimes(p: Points): boolean {
  for (let i = 0; i < p.t.length; i++) if (p.lastT[i] !== p.t[i]) return true;
  return false;
}

function writeLastTimes(w: ByteWriter, p: Points): void {
  const n = p.t.length;
  let i = 0;
  while (i < n) {
    const d = p.lastT[i]! - p.t[i]!;
    // garbage in would be garbage out: a last sample before its point's time is a bug
    if (!(d >= 0 && Number.isSafeInteger(d))) throw new RangeError(`a point at ${p.t[i]} cannot have its last sample at ${p.lastT[i]}`);
    let run = 1;
    while (i + run < n && p.lastT[i + run]! - p.t[i + run]! === d) run++;
    w.uvarint(d);
    w.uvarint(run);
    i += run;
  }
}

function writeRuns(w: ByteWriter, xs: ArrayLike<number>, n: number): void {
  let i = 0;
  while (i < n) {
    const x = xs[i]!;
    let run = 1;
    while (i + run < n && xs[i + run] === x) run++;
    w.uvarint(x);
    w.uvarint(run);
    i += run;
  }
}

/**
 * Points of a chunk with from <= t < to (all by default). `columns` (COLUMN bits): the
 * summary columns wanted besides time and sum; the others are not decoded (the columns
 * after the last one wanted are not even parsed) and hold anything.
 */
export function decodeChunk(buf: Uint8Array, windowStart: number, from = -Infinity, to = Infinity, columns = ALL_COLUMNS): Points {
  const r = new ByteReader(buf);
  const n = r.uvarint();
  const flags = r.byte();
  const t: number[] = [];
  const [a, b] = readTimes(r, n, windowStart, from, to, t);
  const sum: number[] = [];
  readValues(r, sum, n, a, b);
  if (flags & SUMMARY) {
    const out: Points = pointsFor(columns, t, sum);
    readSummaries(r, out, n, a, b, columns, flags);
    readLastTimes(r, out, n, a, b, columns, flags, 0);
    return out;
  }
  // plain points: min = max = last = the value (shared arrays, never mutated in place)
  const count = columns & COLUMN.count ? new Array<number>(b - a).fill(1) : sum;
  const sumsq = columns & COLUMN.sumsq ? sum.map((v) => v * v) : sum;
  const out: Points = { t, count, sum, min: sum, max: sum, last: sum, sumsq, lastT: !(columns & COLUMN.last) ? sum : flags & LAST_TIMES ? [] : t };
  readLastTimes(r, out, n, a, b, columns, flags, 0);
  return out;
}

/**
 * Appends the points of a chunk with from <= t < to to `out`, which must come from
 * pointsFor(columns) (its unwanted columns are its sum column): a read of several parts
 * decodes them one after another into one set of columns instead of a set each and a
 * copy into one more. Nothing is checked here: the caller makes the seam right
 * (points.ts's mergeSeam) or throws `out` away.
 */
export function decodeChunkInto(out: Points, buf: Uint8Array, windowStart: number, from: number, to: number, columns: number): void {
  const r = new ByteReader(buf);
  const n = r.uvarint();
  const flags = r.byte();
  const start = out.t.length;
  const [a, b] = readTimes(r, n, windowStart, from, to, out.t);
  readValues(r, out.sum, n, a, b);
  if (flags & SUMMARY) {
    readSummaries(r, out, n, a, b, columns, flags);
    readLastTimes(r, out, n, a, b, columns, flags, start);
    return;
  }
  // plain points: count 1, min = max = last = the value, sumsq its square
  const { sum } = out;
  const end = sum.length;
  if (out.count !== sum) for (let i = start; i < end; i++) out.count.push(1);
  for (const col of [out.min, out.max, out.last]) if (col !== sum) for (let i = start; i < end; i++) col.push(sum[i]!);
  if (out.sumsq !== sum) for (let i = start; i < end; i++) out.sumsq.push(sum[i]! * sum[i]!);
  readLastTimes(r, out, n, a, b, columns, flags, start);
}

/** Empty points whose columns not in `columns` are the sum column (decodeChunkInto). */
export function pointsFor(columns: number, t: number[] = [], sum: number[] = []): Points {
  const col = (bit: number): number[] => (columns & bit ? [] : sum);
  return { t, sum, count: col(COLUMN.count), min: col(COLUMN.min), max: col(COLUMN.max), last: col(COLUMN.last), sumsq: col(COLUMN.sumsq), lastT: col(COLUMN.last) };
}

/**
 * The last-sample times of points [a, b), whose times are out.t[start..], pushed onto
 * out.lastT when `last` is wanted and out.lastT is not the time column: from the chunk's
 * column if it has one (the reader stands just before it), else the points' own times.
 */
function readLastTimes(r: ByteReader, out: Points, n: number, a: number, b: number, columns: number, flags: number, start: number): void {
  if (!(columns & COLUMN.last) || out.lastT === out.t) return;
  const { t, lastT } = out;
  if (!(flags & LAST_TIMES)) {
    for (let i = start; i < t.length; i++) lastT.push(t[i]!);
    return;
  }
  let k = start;
  for (let i = 0; i < n;) {
    const d = r.uvarint();
    const run = r.uvarint();
    if (run === 0 || i + run > n) throw new RangeError('bad last-time run in chunk');
    for (const end = i + run; i < end; i++) if (i >= a && i < b) lastT.push(t[k++]! + d);
  }
}

/** Times of a chunk's points, pushed to `t` if from <= t < to: returns their index range [a, b). */
function readTimes(r: ByteReader, n: number, windowStart: number, from: number, to: number, t: number[]): [number, number] {
  // times are sorted: the kept points are one index range [a, b); only they are stored
  let a = n;
  let b = n;
  if (n > 0) {
    let time = windowStart + r.uvarint();
    let i = 0;
    const keep = () => {
      if (time < from) return;
      if (time >= to) { if (b === n) b = i; return; }
      if (a === n) a = i;
      t.push(time);
    };
    keep();
    i = 1;
    while (i < n) {
      const delta = r.uvarint();
      const run = r.uvarint();
      if (run === 0 || i + run > n) throw new RangeError('bad time run in chunk');
      for (let k = 0; k < run; k++, i++) {
        time += delta;
        keep();
      }
    }
  }
  if (a === n) b = n; // nothing kept
  return [a, b];
}

const SKIPPED: number[] = [];

/**
 * The summary columns of points [a, b) pushed onto `out`'s wanted columns: count is a
 * column of uvarints (or runs of them), then min, max, last and sumsq, parsed up to the
 * last one wanted.
 */
function readSummaries(r: ByteReader, out: Points, n: number, a: number, b: number, columns: number, flags: number): void {
  if (!columns) return;
  const count = out.count !== out.sum && columns & COLUMN.count ? out.count : null;
  if (flags & COUNT_RUNS) {
    for (let i = 0; i < n;) {
      const c = r.uvarint();
      const run = r.uvarint();
      if (run === 0 || i + run > n) throw new RangeError('bad count run in chunk');
      for (const end = i + run; i < end; i++) if (count && i >= a && i < b) count.push(c);
    }
  } else {
    for (let i = 0; i < n; i++) {
      const c = r.uvarint();
      if (count && i >= a && i < b) count.push(c);
    }
  }
  const rest: [number, number[]][] = [[COLUMN.min, out.min], [COLUMN.max, out.max], [COLUMN.last, out.last], [COLUMN.sumsq, out.sumsq]];
  // `last` wants the last-sample times after the sumsq column too
  const through = columns & COLUMN.last && flags & LAST_TIMES ? ALL_COLUMNS : columns;
  for (const [bit, col] of rest) {
    if (through < bit) return; // nothing wanted from here on
    if (columns & bit) readValues(r, col, n, a, b);
    else readValues(r, SKIPPED, n, 0, 0);
  }
}
