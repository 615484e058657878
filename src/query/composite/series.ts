// A series as the composite functions see it: values on a regular time grid in a
// Float64Array, NaN marking a gap (a bucket without samples, or a point a function left
// out). Arrays are shared between series (a read is sliced, not copied), so functions
// never write into an input's values; they build new arrays.
import type { Grid, MetricInfo, TagPairs } from './source.js';
import { composeError } from './error.js';
import { MAX_COMPOSITE_POINTS } from './limits.js';

export interface Series {
  readonly tags: TagPairs;
  readonly metric: MetricInfo;
  /** time of values[0]; values[i] is at start + i * step */
  readonly start: number;
  readonly step: number;
  /** the reporting period that rate() divides by and fill() fills at, >= step */
  readonly period: number;
  readonly values: Float64Array;
}

export function hasPoints(s: Series): boolean {
  for (const v of s.values) if (v === v) return true;
  return false;
}

/** The same series from its first point at or after `time`. */
export function trimBefore(s: Series, time: number): Series {
  const skip = Math.min(s.values.length, Math.max(0, Math.ceil((time - s.start) / s.step)));
  return skip === 0 ? s : { ...s, start: s.start + skip * s.step, values: s.values.subarray(skip) };
}

function gcd(a: number, b: number): number {
  a = Math.abs(a);
  b = Math.abs(b);
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * The values of several series on one grid, for functions that combine them point by
 * point. Series on the same grid (the usual case) are used as they are; otherwise the
 * grid is the finest one on which every series' times fall (step = gcd of the steps and
 * of the offsets between starts) and each series is copied onto it, NaN in between.
 */
export function align(set: readonly Series[]): Grid & { columns: readonly Float64Array[] } {
  const first = set[0]!;
  const same = set.every((s) => s.start === first.start && s.step === first.step && s.values.length === first.values.length);
  if (same) return { start: first.start, step: first.step, length: first.values.length, columns: set.map((s) => s.values) };
  let step = 0;
  let start = Infinity;
  let end = -Infinity;
  for (const s of set) {
    step = gcd(gcd(step, s.step), s.start - first.start);
    start = Math.min(start, s.start);
    end = Math.max(end, s.start + s.values.length * s.step);
  }
  const length = Math.ceil((end - start) / step);
  if (length * set.length > MAX_COMPOSITE_POINTS) {
    throw composeError(`combines series whose periods need ${length * set.length} aligned points: expected at most ${MAX_COMPOSITE_POINTS}; use periods that are multiples of each other`);
  }
  const columns = set.map((s) => {
    const column = new Float64Array(length).fill(NaN);
    const offset = (s.start - start) / step;
    const stride = s.step / step;
    for (let i = 0; i < s.values.length; i++) column[offset + i * stride] = s.values[i]!;
    return column;
  });
  return { start, step, length, columns };
}

/** Tag pairs every series of the set has: what an aggregate of them is labelled with. */
export function commonTags(set: readonly Series[]): TagPairs {
  return set[0]!.tags.filter(([k, v]) => set.every((s) => s.tags.some(([k2, v2]) => k2 === k && v2 === v)));
}

/**
 * The metric an aggregate of the set reports: the inputs' metric when they share one,
 * else a composite named after the function and the input metrics.
 */
export function combinedMetric(set: readonly Series[], fn: string): MetricInfo {
  const first = set[0]!.metric;
  const names = [...new Set(set.map((s) => s.metric.name))];
  if (names.length === 1) return first;
  const shown = names.length > 5 ? [...names.slice(0, 5), '...'] : names;
  return { name: `${fn}(${shown.join(',')})`, type: 'composite', attributes: {}, period: null };
}
