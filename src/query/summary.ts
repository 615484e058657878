// Summary functions over bucket summaries. Every stored point is a full summary, so a
// bucket of the requested resolution is the exact merge of the points in it and each
// function is computed from that merge: the downsampling of librato-api-notes §7 (min,
// max, mean keep their function; sum, count and derivative sum up) falls out exactly,
// and stddev is the pooled standard deviation of every sample in the bucket.
import type { Points } from '../store/engine.js';
import type { SummarizeFunction } from '../domain/metrics.js';

export const SUMMARY_FUNCTIONS = ['sum', 'min', 'max', 'count', 'mean', 'derivative', 'stddev', 'all'] as const;
export type SummaryFunction = (typeof SUMMARY_FUNCTIONS)[number];

export const GROUP_FUNCTIONS = ['sum', 'min', 'max', 'mean'] as const;
export type GroupFunction = (typeof GROUP_FUNCTIONS)[number];

/** The metric's persisted `summarize_function` as a query summary function. */
export function fromSummarize(f: SummarizeFunction | undefined): SummaryFunction {
  return f === undefined || f === 'average' ? 'mean' : f;
}

export interface AllSummary {
  value: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  last: number;
  stddev: number;
}

export interface Measurement {
  time: number;
  value: number;
  count?: number;
  sum?: number;
  min?: number;
  max?: number;
  last?: number;
  stddev?: number;
}

function stddevOf(count: number, sum: number, sumsq: number): number {
  const mean = sum / count;
  return Math.sqrt(Math.max(0, sumsq / count - mean * mean));
}

/**
 * Buckets (already rolled up to the resolution) -> measurements. `derivative` needs the
 * bucket before the first requested one; pass it in `p` and set `firstTime`.
 */
export function summarize(p: Points, fn: SummaryFunction, firstTime: number, counter = false): Measurement[] {
  const out: Measurement[] = [];
  for (let i = 0; i < p.t.length; i++) {
    const t = p.t[i]!;
    const count = p.count[i]!;
    const sum = p.sum[i]!;
    if (fn === 'derivative') {
      if (i === 0 || t < firstTime) continue;
      const d = p.last[i]! - p.last[i - 1]!;
      // A counter that went down was reset: it counted up from 0 to its new value.
      out.push({ time: t, value: counter && d < 0 ? p.last[i]! : d });
      continue;
    }
    if (t < firstTime) continue;
    switch (fn) {
      case 'sum': out.push({ time: t, value: sum }); break;
      case 'min': out.push({ time: t, value: p.min[i]! }); break;
      case 'max': out.push({ time: t, value: p.max[i]! }); break;
      case 'count': out.push({ time: t, value: count }); break;
      case 'mean': out.push({ time: t, value: sum / count }); break;
      case 'stddev': out.push({ time: t, value: stddevOf(count, sum, p.sumsq[i]!) }); break;
      case 'all':
        out.push({ time: t, value: sum / count, count, sum, min: p.min[i]!, max: p.max[i]!, last: p.last[i]!, stddev: stddevOf(count, sum, p.sumsq[i]!) });
        break;
    }
  }
  return out;
}

/** Combines the values of several series at each time with a group function. */
export function combine(series: Measurement[][], fn: GroupFunction): Measurement[] {
  const acc = new Map<number, { v: number; n: number }>();
  for (const ms of series) {
    for (const m of ms) {
      const a = acc.get(m.time);
      if (!a) { acc.set(m.time, { v: m.value, n: 1 }); continue; }
      a.n++;
      if (fn === 'sum' || fn === 'mean') a.v += m.value;
      else if (fn === 'min') a.v = Math.min(a.v, m.value);
      else a.v = Math.max(a.v, m.value);
    }
  }
  return [...acc.entries()].sort((x, y) => x[0] - y[0]).map(([time, a]) => ({ time, value: fn === 'mean' ? a.v / a.n : a.v }));
}
