// A chunk: the points of one series in one time window of one tier, in one LevelDB
// value. Layout (docs/storage.md):
//   uvarint n | byte flags (bit 0: summary columns present)
//   times: uvarint (t0 - windowStart), then runs of (uvarint delta, uvarint repeat)
//   sum column (the value itself for plain samples)
//   [flags & 1] count column as uvarints, then min, max, last, sumsq columns
// A chunk of plain samples (count 1, so min = max = last = sum and sumsq = sum^2) stores
// only times and values. Input must be sorted with distinct times (sortMerge).
import { ByteReader, ByteWriter } from './bytes.js';
import { ALL_COLUMNS, COLUMN, type Points } from './points.js';
import { readValues, writeValues } from './values.js';

const SUMMARY = 1;

const writer = new ByteWriter(64 * 1024);

function isPlain(p: Points): boolean {
  for (let i = 0; i < p.t.length; i++) {
    const s = p.sum[i]!;
    if (p.count[i] !== 1 || !Object.is(p.min[i], s) || !Object.is(p.max[i], s) || !Object.is(p.last[i], s) || !Object.is(p.sumsq[i], s * s)) return false;
  }
  return true;
}

export function encodeChunk(p: Points, windowStart: number): Buffer {
  const w = writer;
  w.reset();
  const n = p.t.length;
  const plain = isPlain(p);
  w.uvarint(n);
  w.byte(plain ? 0 : SUMMARY);
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
  writeValues(w, p.sum, n);
  if (!plain) {
    for (let i = 0; i < n; i++) w.uvarint(p.count[i]!);
    writeValues(w, p.min, n);
    writeValues(w, p.max, n);
    writeValues(w, p.last, n);
    writeValues(w, p.sumsq, n);
  }
  return w.finish();
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
  // times are sorted: the kept points are one index range [a, b); only they are stored
  const t: number[] = [];
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
  const sum: number[] = [];
  readValues(r, sum, n, a, b);
  if (flags & SUMMARY) {
    // count is a column of uvarints, then min, max, last and sumsq: parsed up to the last one wanted
    const wanted = (bit: number) => (columns & bit) !== 0;
    const count: number[] = wanted(COLUMN.count) ? [] : sum;
    if (columns) {
      for (let i = 0; i < n; i++) {
        const c = r.uvarint();
        if (i >= a && i < b && count !== sum) count.push(c);
      }
    }
    const rest = (bit: number): number[] => {
      if (columns < bit) return sum; // nothing wanted from here on
      const out: number[] = [];
      if (wanted(bit)) readValues(r, out, n, a, b);
      else readValues(r, out, n, 0, 0);
      return wanted(bit) ? out : sum;
    };
    const min = rest(COLUMN.min);
    const max = rest(COLUMN.max);
    const last = rest(COLUMN.last);
    const sumsq = rest(COLUMN.sumsq);
    return { t, count, sum, min, max, last, sumsq };
  }
  // plain points: min = max = last = the value (shared arrays, never mutated in place)
  const count = columns & COLUMN.count ? new Array<number>(b - a).fill(1) : sum;
  const sumsq = columns & COLUMN.sumsq ? sum.map((v) => v * v) : sum;
  return { t, count, sum, min: sum, max: sum, last: sum, sumsq };
}
