// A chunk: the points of one series in one time window of one tier, in one LevelDB
// value. Layout (docs/storage.md):
//   uvarint n | byte flags (bit 0: summary columns present)
//   times: uvarint (t0 - windowStart), then runs of (uvarint delta, uvarint repeat)
//   sum column (the value itself for plain samples)
//   [flags & 1] count column as uvarints, then min, max, last, sumsq columns
// A chunk of plain samples (count 1, so min = max = last = sum and sumsq = sum^2) stores
// only times and values. Input must be sorted with distinct times (sortMerge).
import { ByteReader, ByteWriter } from './bytes.js';
import { emptyPoints, type Points } from './points.js';
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

export function decodeChunk(buf: Uint8Array, windowStart: number): Points {
  const r = new ByteReader(buf);
  const n = r.uvarint();
  const flags = r.byte();
  const p = emptyPoints();
  if (n > 0) {
    let t = windowStart + r.uvarint();
    p.t.push(t);
    while (p.t.length < n) {
      const delta = r.uvarint();
      const run = r.uvarint();
      if (run === 0 || p.t.length + run > n) throw new RangeError('bad time run in chunk');
      for (let k = 0; k < run; k++) p.t.push((t += delta));
    }
  }
  readValues(r, p.sum, n);
  if (flags & SUMMARY) {
    for (let i = 0; i < n; i++) p.count.push(r.uvarint());
    readValues(r, p.min, n);
    readValues(r, p.max, n);
    readValues(r, p.last, n);
    readValues(r, p.sumsq, n);
  } else {
    for (let i = 0; i < n; i++) {
      const v = p.sum[i]!;
      p.count.push(1);
      p.min.push(v);
      p.max.push(v);
      p.last.push(v);
      p.sumsq.push(v * v);
    }
  }
  return p;
}
