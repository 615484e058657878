// The composite functions over sets of series (librato-api-notes §1.2; choices where it
// is silent: docs/composite.md). Each takes and returns a set; none writes into its
// inputs' arrays. NaN is a gap: pointwise functions skip it, per-series functions keep
// it a gap.
import type { AggregateExpr, PairExpr, ReduceFunction, WindowFunction } from './ast.js';
import { align, combinedMetric, commonTags, type Series } from './series.js';

type AggregateFunction = AggregateExpr['fn'];

function accumulate(acc: Float64Array, n: Uint32Array, column: Float64Array, fn: AggregateFunction): void {
  for (let i = 0; i < column.length; i++) {
    const v = column[i]!;
    if (v !== v) continue;
    if (n[i]++ === 0) { acc[i] = v; continue; }
    switch (fn) {
      case 'sum': case 'mean': acc[i] += v; break;
      case 'multiply': acc[i] *= v; break;
      case 'min': if (v < acc[i]!) acc[i] = v; break;
      case 'max': if (v > acc[i]!) acc[i] = v; break;
    }
  }
}

/** sum, mean, min, max, multiply: one series of the points present at each time. */
export function aggregate(fn: AggregateFunction, set: readonly Series[]): Series[] {
  if (set.length === 0) return [];
  const grid = align(set);
  const acc = new Float64Array(grid.length).fill(NaN);
  const n = new Uint32Array(grid.length);
  for (const column of grid.columns) accumulate(acc, n, column, fn);
  if (fn === 'mean') for (let i = 0; i < acc.length; i++) acc[i]! /= n[i]!;
  const period = set.reduce((p, s) => Math.max(p, s.period), 0);
  return [{ tags: commonTags(set), metric: combinedMetric(set, fn), start: grid.start, step: grid.step, period, values: acc }];
}

/** divide, subtract: set[0] op set[1] where both have a point; not two series: empty. */
export function pair(fn: PairExpr['fn'], set: readonly Series[]): Series[] {
  if (set.length !== 2) return [];
  const grid = align(set);
  const [a, b] = grid.columns as [Float64Array, Float64Array];
  const out = new Float64Array(grid.length);
  for (let i = 0; i < out.length; i++) {
    // a gap in either is NaN already; division by zero is a gap rather than Infinity
    out[i] = fn === 'subtract' ? a[i]! - b[i]! : b[i] === 0 ? NaN : a[i]! / b[i]!;
  }
  const period = Math.max(set[0]!.period, set[1]!.period);
  return [{ tags: commonTags(set), metric: combinedMetric(set, fn), start: grid.start, step: grid.step, period, values: out }];
}

function perSeries(set: readonly Series[], f: (values: Float64Array, s: Series) => Float64Array): Series[] {
  return set.map((s) => ({ ...s, values: f(s.values, s) }));
}

/**
 * Each point minus the previous point present. With `detectReset` a fall is a counter
 * reset and the point's own value is the change (it counted up from 0).
 */
export function derive(set: readonly Series[], detectReset: boolean): Series[] {
  return perSeries(set, (values) => {
    const out = new Float64Array(values.length).fill(NaN);
    let prev = NaN;
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      if (v !== v) continue;
      if (prev === prev) out[i] = detectReset && v < prev ? v : v - prev;
      prev = v;
    }
    return out;
  });
}

/** Running total of the points in the window. */
export function integrate(set: readonly Series[]): Series[] {
  return perSeries(set, (values) => {
    const out = new Float64Array(values.length);
    let total = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      out[i] = v === v ? (total += v) : NaN;
    }
    return out;
  });
}

function multiplied(set: readonly Series[], factor: (s: Series) => number): Series[] {
  return perSeries(set, (values, s) => {
    const f = factor(s);
    const out = new Float64Array(values.length);
    for (let i = 0; i < values.length; i++) out[i] = values[i]! * f;
    return out;
  });
}

/** Each value per `duration` seconds: x / period * duration. */
export function rate(set: readonly Series[], duration: number): Series[] {
  return multiplied(set, (s) => duration / s.period);
}

export function scale(set: readonly Series[], factor: number): Series[] {
  return multiplied(set, () => factor);
}

function windowValue(buf: Float64Array, fn: WindowFunction, scratch: Float64Array): number {
  switch (fn) {
    case 'sum': case 'mean': {
      let t = 0;
      for (const v of buf) t += v;
      return fn === 'sum' ? t : t / buf.length;
    }
    case 'min': return Math.min(...buf);
    case 'max': return Math.max(...buf);
    case 'median': {
      scratch.set(buf);
      scratch.sort();
      const mid = scratch.length >> 1;
      return scratch.length % 2 ? scratch[mid]! : (scratch[mid - 1]! + scratch[mid]!) / 2;
    }
  }
}

/**
 * At each point, `fn` of it and the size-1 points present before it; the first size-1
 * points of the window have too few and are left out.
 */
export function window(set: readonly Series[], size: number, fn: WindowFunction): Series[] {
  const buf = new Float64Array(size);
  const scratch = new Float64Array(size);
  return perSeries(set, (values) => {
    const out = new Float64Array(values.length).fill(NaN);
    let seen = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      if (v !== v) continue;
      buf[seen++ % size] = v;
      if (seen >= size) out[i] = windowValue(buf, fn, scratch);
    }
    return out;
  });
}

/**
 * Fills each period of the window that has no point, at the period's first bucket: with
 * `value`, or with the last value seen before it in the window (none yet: left a gap).
 */
export function fill(set: readonly Series[], value: number | 'last'): Series[] {
  return perSeries(set, (values, s) => {
    const out = values.slice();
    let last = NaN;
    let i = 0;
    while (i < values.length) {
      const period = Math.floor((s.start + i * s.step) / s.period);
      const first = i;
      let seen = false;
      for (; i < values.length && Math.floor((s.start + i * s.step) / s.period) === period; i++) {
        const v = values[i]!;
        if (v === v) { seen = true; last = v; }
      }
      if (!seen) out[first] = value === 'last' ? last : value;
    }
    return out;
  });
}

/** One number for a whole series; NaN when it has no point. */
function reduce(values: Float64Array, fn: ReduceFunction): number {
  let acc = NaN;
  let n = 0;
  for (const v of values) {
    if (v !== v) continue;
    if (n++ === 0) acc = v;
    else if (fn === 'sum' || fn === 'mean') acc += v;
    else if (fn === 'min' ? v < acc : v > acc) acc = v;
  }
  return fn === 'mean' ? acc / n : acc;
}

/** The `count` series ranking highest (top) or lowest (bottom) by `fn`; ties keep set order. */
export function rank(set: readonly Series[], order: 'top' | 'bottom', count: number, fn: ReduceFunction): Series[] {
  const sign = order === 'top' ? -1 : 1;
  return set
    .map((s, i) => ({ s, i, score: reduce(s.values, fn) }))
    .filter((x) => x.score === x.score)
    .sort((a, b) => sign * (a.score - b.score) || a.i - b.i)
    .slice(0, count)
    .map((x) => x.s);
}

export interface Bounds { gt: number | null; gte: number | null; lt: number | null; lte: number | null }

/** The series whose `fn` lies within every bound given. */
export function filter(set: readonly Series[], bounds: Bounds, fn: ReduceFunction): Series[] {
  return set.filter((s) => {
    const r = reduce(s.values, fn);
    return r === r
      && (bounds.gt === null || r > bounds.gt) && (bounds.gte === null || r >= bounds.gte)
      && (bounds.lt === null || r < bounds.lt) && (bounds.lte === null || r <= bounds.lte);
  });
}
