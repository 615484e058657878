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

export interface WalSample extends Summary {
  series: number;
  time: number;
}

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

export function decodeWal(buf: Uint8Array): { account: number; samples: WalSample[] } {
  const r = new ByteReader(buf);
  const account = r.uvarint();
  const n = r.uvarint();
  const series: number[] = [];
  const times: number[] = [];
  let prev = 0;
  for (let i = 0; i < n; i++) series.push((prev += r.svarint()));
  prev = 0;
  for (let i = 0; i < n; i++) times.push((prev += r.svarint()));
  const summaries: number[] = [];
  for (let byte = 0; byte < n; byte += 8) {
    const bits = r.byte();
    for (let i = byte; i < Math.min(n, byte + 8); i++) if (bits & (1 << (i - byte))) summaries.push(i);
  }
  const sums: number[] = [];
  readValues(r, sums, n);
  const samples: WalSample[] = [];
  for (let i = 0; i < n; i++) {
    const v = sums[i]!;
    samples.push({ series: series[i]!, time: times[i]!, count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v });
  }
  if (summaries.length) {
    const k = summaries.length;
    const counts: number[] = [];
    for (let j = 0; j < k; j++) counts.push(r.uvarint());
    const cols: number[][] = [[], [], [], []];
    for (const col of cols) readValues(r, col, k);
    summaries.forEach((i, j) => {
      const s = samples[i]!;
      s.count = counts[j]!;
      s.min = cols[0]![j]!;
      s.max = cols[1]![j]!;
      s.last = cols[2]![j]!;
      s.sumsq = cols[3]![j]!;
    });
  }
  return { account, samples };
}
