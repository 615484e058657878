// Summary functions over bucket summaries. Every stored point is a full summary, so a
// bucket of the requested resolution is the exact merge of the points in it and each
// function is computed from that merge: the downsampling of librato-api-notes §7 (min,
// max, mean keep their function; sum, count and derivative sum up) falls out exactly,
// and stddev is the pooled standard deviation of every sample in the bucket.
import { ALL_COLUMNS, COLUMN, type Points } from '../tsdb/engine.js';
import type { SummarizeFunction } from '../domain/metric-attributes.js';

export const SUMMARY_FUNCTIONS = ['sum', 'min', 'max', 'count', 'mean', 'derivative', 'stddev', 'all'] as const;
export type SummaryFunction = (typeof SUMMARY_FUNCTIONS)[number];

export const GROUP_FUNCTIONS = ['sum', 'min', 'max', 'mean'] as const;
export type GroupFunction = (typeof GROUP_FUNCTIONS)[number];

/** The metric's persisted `summarize_function` as a query summary function. */
export function fromSummarize(f: SummarizeFunction | undefined): SummaryFunction {
  return f === undefined || f === 'average' ? 'mean' : f;
}

/**
 * The summary columns a function reads besides time and sum (COLUMN bits): what a read
 * for it decodes. `mean` is sum over count, so it never decodes min, max, last or sumsq.
 */
export function columnsFor(fn: SummaryFunction): number {
  switch (fn) {
    case 'sum': return 0;
    case 'count':
    case 'mean': return COLUMN.count;
    case 'min': return COLUMN.min;
    case 'max': return COLUMN.max;
    case 'derivative': return COLUMN.last;
    case 'stddev': return COLUMN.count | COLUMN.sumsq;
    case 'all': return ALL_COLUMNS;
  }
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

/** Change of the last value since the previous bucket. A counter that went down was
 * reset: it counted up from 0 to its new value. */
function delta(p: Points, i: number, counter: boolean): number {
  const d = p.last[i]! - p.last[i - 1]!;
  return counter && d < 0 ? p.last[i]! : d;
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
      out.push({ time: t, value: delta(p, i, counter) });
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

/**
 * Calls `each` with the time and value of every point (every function but `all`) from
 * `firstTime` on: a grouped read folds 10,000 series through it with no array per series.
 */
export function forEachValue(p: Points, fn: Exclude<SummaryFunction, 'all'>, firstTime: number, counter: boolean, each: (time: number, value: number) => void): void {
  for (let i = 0; i < p.t.length; i++) {
    const time = p.t[i]!;
    if (time < firstTime) continue;
    switch (fn) {
      case 'derivative': if (i > 0) each(time, delta(p, i, counter)); break;
      case 'sum': each(time, p.sum[i]!); break;
      case 'min': each(time, p.min[i]!); break;
      case 'max': each(time, p.max[i]!); break;
      case 'count': each(time, p.count[i]!); break;
      case 'mean': each(time, p.sum[i]! / p.count[i]!); break;
      case 'stddev': each(time, stddevOf(p.count[i]!, p.sum[i]!, p.sumsq[i]!)); break;
    }
  }
}

/**
 * Combines series with a group function, one series at a time, over buckets of a known
 * grid (from + k * step, k < buckets): a group over thousands of series keeps one value
 * and one count per bucket, not every series until the last is read. A bucket no series
 * has a value in is left out; `mean` divides by the series that have one.
 */
export class GroupFold {
  private readonly acc: Float64Array;
  private readonly n: Uint32Array;

  constructor(private readonly from: number, private readonly step: number, buckets: number, private readonly fn: GroupFunction) {
    this.acc = new Float64Array(buckets);
    this.n = new Uint32Array(buckets);
  }

  /** Folds one series' value at `time` into its bucket. */
  readonly add = (time: number, value: number): void => {
    const { acc, n, fn } = this;
    const k = (time - this.from) / this.step;
    // rollUp() floors every time onto this grid: anything else is a bug, not data
    if (!Number.isInteger(k) || k < 0 || k >= acc.length) throw new RangeError(`time ${time} is not a bucket of this read`);
    if (n[k] === 0) acc[k] = value;
    else if (fn === 'sum' || fn === 'mean') acc[k]! += value;
    else if (fn === 'min') { if (value < acc[k]!) acc[k] = value; }
    else if (value > acc[k]!) acc[k] = value;
    n[k]!++;
  };

  measurements(): Measurement[] {
    const out: Measurement[] = [];
    for (let k = 0; k < this.acc.length; k++) {
      const count = this.n[k]!;
      if (count > 0) out.push({ time: this.from + k * this.step, value: this.fn === 'mean' ? this.acc[k]! / count : this.acc[k]! });
    }
    return out;
  }
}
