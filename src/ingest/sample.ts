// The one shape every ingest path produces (tagged today; source-based, scraping and
// aggregation later) and the storage engine consumes: a summary at a time for a series
// named by metric and sorted, lower-cased tag pairs.
import type { Summary } from '../tsdb/points.js';

/** Sorted by name, names unique, all lower-cased. */
export type TagPairs = ReadonlyArray<readonly [string, string]>;

export interface Sample extends Summary {
  /** canonical (lower-cased) metric name */
  metric: string;
  tags: TagPairs;
  /** epoch seconds */
  time: number;
}

/** A single value is a summary of one sample. */
export function valueSample(metric: string, tags: TagPairs, time: number, value: number): Sample {
  return { metric, tags, time, count: 1, sum: value, min: value, max: value, last: value, sumsq: value * value };
}
