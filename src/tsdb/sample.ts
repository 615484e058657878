// What the engine stores: a summary at a time for a series named by metric and sorted,
// lower-cased tag pairs. Every ingest path (tagged, source-based, aggregation) produces
// Samples; the engine is their owner, so ingest imports them from here.
import type { SeriesRef } from './series-index.js';

/** One summary point; `last` of the later-written point wins on merge. */
export interface Summary {
  count: number;
  sum: number;
  min: number;
  max: number;
  last: number;
  sumsq: number;
}

/** A summary of exactly one value (so it stores as time and value alone). */
export function isPlainSummary(s: Summary): boolean {
  return s.count === 1 && s.min === s.sum && s.max === s.sum && s.last === s.sum && s.sumsq === s.sum * s.sum;
}

/** Sorted by name, names unique, all lower-cased. */
export type TagPairs = ReadonlyArray<readonly [string, string]>;

/**
 * Where the engine remembers the series of a producer's samples. A producer that writes
 * the same series again and again (a scrape target's series cache) hands the engine one
 * per series, and each later sample costs the engine a property read instead of a lookup
 * by tags. The producer owns it; only the engine writes it.
 */
export interface SeriesSlot {
  ref?: SeriesRef;
}

export interface Sample extends Summary {
  /** canonical (lower-cased) metric name */
  metric: string;
  tags: TagPairs;
  /** epoch seconds */
  time: number;
  slot?: SeriesSlot;
}

/** A single value is a summary of one sample. */
export function valueSample(metric: string, tags: TagPairs, time: number, value: number, slot?: SeriesSlot): Sample {
  return { metric, tags, time, count: 1, sum: value, min: value, max: value, last: value, sumsq: value * value, slot };
}

/**
 * Single values in columns, as the tagged scanner builds them (no object a sample): row i
 * is metric `metrics[metric[i]]` with tags `tagSets[tag[i]]` at `time[i]`, of `value[i]`.
 */
export interface ValueColumns {
  readonly length: number;
  /** canonical metric names */
  readonly metrics: readonly string[];
  readonly metric: Uint32Array;
  /**
   * shared with other batches: one array per tag map, so the engine caches by identity;
   * the list itself too (one per numbering), so the engine keeps its series by number
   */
  readonly tagSets: readonly TagPairs[];
  readonly tag: Uint32Array;
  readonly time: Float64Array;
  readonly value: Float64Array;
}

/** The rows as Samples, for the paths that need objects (service-side aggregation). */
export function samplesOf(cols: ValueColumns): Sample[] {
  const out: Sample[] = new Array(cols.length);
  for (let i = 0; i < cols.length; i++) {
    out[i] = valueSample(cols.metrics[cols.metric[i]!]!, cols.tagSets[cols.tag[i]!]!, cols.time[i]!, cols.value[i]!);
  }
  return out;
}
