// Write-ahead records: one per append call, holding its samples by series id. A record
// is written in the same group-committed batch as any new series it names, so replay
// always finds its series. Layout: uvarint account | uvarint n | n x (uvarint series,
// uvarint time, byte kind, kind 0: float64 value | kind 1: uvarint count, float64 sum,
// min, max, last, sumsq).
import { ByteReader, ByteWriter } from './bytes.js';
import type { Summary } from './points.js';

export interface WalSample extends Summary {
  series: number;
  time: number;
}

const writer = new ByteWriter(64 * 1024);

export function isPlainSummary(s: Summary): boolean {
  return s.count === 1 && s.min === s.sum && s.max === s.sum && s.last === s.sum && s.sumsq === s.sum * s.sum;
}

export function encodeWal(account: number, series: readonly number[], samples: readonly (Summary & { time: number })[]): Buffer {
  const w = writer;
  w.reset();
  w.uvarint(account);
  w.uvarint(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    w.uvarint(series[i]!);
    w.uvarint(s.time);
    if (isPlainSummary(s)) {
      w.byte(0);
      w.float64(s.sum);
    } else {
      w.byte(1);
      w.uvarint(s.count);
      w.float64(s.sum);
      w.float64(s.min);
      w.float64(s.max);
      w.float64(s.last);
      w.float64(s.sumsq);
    }
  }
  return w.finish();
}

export function decodeWal(buf: Uint8Array): { account: number; samples: WalSample[] } {
  const r = new ByteReader(buf);
  const account = r.uvarint();
  const n = r.uvarint();
  const samples: WalSample[] = [];
  for (let i = 0; i < n; i++) {
    const series = r.uvarint();
    const time = r.uvarint();
    if (r.byte() === 0) {
      const v = r.float64();
      samples.push({ series, time, count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v });
    } else {
      const count = r.uvarint();
      samples.push({ series, time, count, sum: r.float64(), min: r.float64(), max: r.float64(), last: r.float64(), sumsq: r.float64() });
    }
  }
  return { account, samples };
}
