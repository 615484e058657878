// What the composite evaluator needs from the rest of Gaugeway: find series, read their
// values on a regular time grid. The caller binds the account, so a source never yields
// another account's series; the engine-backed source lives with the HTTP wiring, the
// in-memory one with the tests.

/** Tag name -> glob pattern (`*` wildcard). Empty: every series of the metric. */
export type TagFilter = readonly (readonly [name: string, pattern: string])[];
export type TagPairs = readonly (readonly [name: string, value: string])[];

/** The summary statistic of a bucket that `series(..., {function})` picks. */
export type ReadFunction = 'mean' | 'sum' | 'min' | 'max' | 'count';

/** The metric a series belongs to, as the composite response shows it. */
export interface MetricInfo {
  name: string;
  type: string;
  attributes: object;
  /** the metric's `period` attribute in seconds, if it has one */
  period: number | null;
}

export interface SeriesMeta {
  /** the source's identity of the series: equal ids are the same series */
  id: number;
  tags: TagPairs;
  metric: MetricInfo;
}

/** Bucket i covers [start + i * step, start + (i + 1) * step). */
export interface Grid {
  start: number;
  step: number;
  length: number;
}

export interface ReadRequest extends Grid {
  fn: ReadFunction;
}

export interface CompositeSource {
  /** Series of `metric` (which may contain `*`) whose tags match every pattern of `tags`. */
  select(metric: string, tags: TagFilter): Promise<readonly SeriesMeta[]> | readonly SeriesMeta[];
  /**
   * One array of `q.length` values per series, in the order given: the bucket's `fn`
   * over the samples in it, NaN where it holds none. `q.step` may be any whole number of
   * seconds (a `series(..., {period})` above the resolution); a source that cannot serve
   * it throws its own 400.
   */
  read(series: readonly SeriesMeta[], q: ReadRequest): Promise<readonly Float64Array[]> | readonly Float64Array[];
}
