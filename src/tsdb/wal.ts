// Write-ahead records: one per append call, holding its samples by series id. A record
// is written in the same group-committed batch as any new series it names, so replay
// always finds its series. Columnar, so that a batch of samples sharing a time and
// running through consecutive series costs a few bytes a sample:
//   uvarint account | uvarint n
//   n x svarint series id delta | n x svarint time delta
//   ceil(n / 8) bytes: bit set = the sample is a summary, not a plain value
//   value column (values.ts) of every sample's sum (= the value of a plain one)
//   for the k summaries: k x uvarint count, then min, max, last, sumsq value columns
import { ByteReader, ByteWriter } from './bytes.js';
import { isPlainSummary, type Summary } from './sample.js';
import { readValues, writeValues } from './values.js';

const writer = new ByteWriter(64 * 1024);

export function encodeWal(account: number, series: readonly number[], samples: readonly (Summary & { time: number })[]): Buffer {
  const w = writer;
  w.reset();
  const n = samples.length;
  writeSeries(w, account, series, n);
  let prev = 0;
  for (let i = 0; i < n; i++) { w.svarint(samples[i]!.time - prev); prev = samples[i]!.time; }
  const summaries: number[] = [];
  const sums: number[] = new Array(n);
  for (let byte = 0; byte < n; byte += 8) {
    let bits = 0;
    for (let i = byte; i < Math.min(n, byte + 8); i++) {
      const s = samples[i]!;
      sums[i] = s.sum;
      if (!isPlainSummary(s)) { bits |= 1 << (i - byte); summaries.push(i); }
    }
    w.byte(bits);
  }
  writeValues(w, sums, n);
  if (summaries.length) {
    for (const i of summaries) w.uvarint(samples[i]!.count);
    for (const key of ['min', 'max', 'last', 'sumsq'] as const) writeValues(w, summaries.map((i) => samples[i]![key]), summaries.length);
  }
  return w.finish();
}

/** The record's account, length and series ids. */
function writeSeries(w: ByteWriter, account: number, series: readonly number[], n: number): void {
  w.uvarint(account);
  w.uvarint(n);
  let prev = 0;
  for (let i = 0; i < n; i++) { w.svarint(series[i]! - prev); prev = series[i]!; }
}

/** The record of single values in columns: every summary bit clear. */
export function encodeWalValues(account: number, series: readonly number[], time: Float64Array, value: Float64Array, n: number): Buffer {
  const w = writer;
  w.reset();
  writeSeries(w, account, series, n);
  let prev = 0;
  for (let i = 0; i < n; i++) { w.svarint(time[i]! - prev); prev = time[i]!; }
  for (let byte = 0; byte < n; byte += 8) w.byte(0);
  writeValues(w, value, n);
  return w.finish();
}

/**
 * A decoded record, in columns: replay walks millions of samples, and an object a sample
 * (eight fields) was most of what the collector had to do at start.
 */
export interface WalRecord {
  account: number;
  series: number[];
  time: number[];
  /** each sample's sum: a plain sample's value */
  sum: number[];
  /** per sample, -1 for a plain one, else its row in the summary columns below */
  summaryRow: Int32Array;
  count: number[];
  min: number[];
  max: number[];
  last: number[];
  sumsq: number[];
}

export function decodeWal(buf: Uint8Array): WalRecord {
  const r = new ByteReader(buf);
  const account = r.uvarint();
  const n = r.uvarint();
  const series: number[] = [];
  const time: number[] = [];
  let prev = 0;
  for (let i = 0; i < n; i++) series.push((prev += r.svarint()));
  prev = 0;
  for (let i = 0; i < n; i++) time.push((prev += r.svarint()));
  const summaryRow = new Int32Array(n).fill(-1);
  let k = 0;
  for (let byte = 0; byte < n; byte += 8) {
    const bits = r.byte();
    for (let i = byte; i < Math.min(n, byte + 8); i++) if (bits & (1 << (i - byte))) summaryRow[i] = k++;
  }
  const sum: number[] = [];
  readValues(r, sum, n);
  const rec: WalRecord = { account, series, time, sum, summaryRow, count: [], min: [], max: [], last: [], sumsq: [] };
  if (k) {
    for (let j = 0; j < k; j++) rec.count.push(r.uvarint());
    for (const col of [rec.min, rec.max, rec.last, rec.sumsq]) readValues(r, col, k);
  }
  return rec;
}

/** Sample i of a record as a summary, written into `out` (the head copies what it appends, so one object serves). */
export function walSummary(rec: WalRecord, i: number, out: Summary): Summary {
  const v = rec.sum[i]!;
  const j = rec.summaryRow[i]!;
  out.sum = v;
  if (j < 0) {
    out.count = 1;
    out.min = out.max = out.last = v;
    out.sumsq = v * v;
  } else {
    out.count = rec.count[j]!;
    out.min = rec.min[j]!;
    out.max = rec.max[j]!;
    out.last = rec.last[j]!;
    out.sumsq = rec.sumsq[j]!;
  }
  return out;
}
