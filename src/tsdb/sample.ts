// What the engine stores: a summary at a time for a series named by metric and sorted,
// lower-cased tag pairs. Ingest hands them over as Samples (source-based, aggregation,
// the tagged path's slow form) or as rows in columns (the tagged scanner, scrapes); the
// engine is their owner, so ingest imports them from here.

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
 * A copy of a piece of a request or scrape body that does not share its memory: V8
 * slices keep the whole body alive, and a name or tag value kept by a new series, a
 * metric record or the cardinality report must not pin the body it came from (a 50 MB
 * scrape body a new series took RSS from 0.5 to 2 GB in 35 s). For strings that start
 * to live long, so its cost does not matter.
 */
export function detached(slice: string): string {
  return JSON.parse(JSON.stringify(slice)) as string;
}

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

/**
 * The four row columns in one buffer, so a batch crosses threads as one transfer:
 * `capacity` rows of time and value (8 bytes each), metric and tag (4 bytes each).
 */
export function rowColumns(buffer: ArrayBuffer, capacity: number): Pick<ValueColumns, 'time' | 'value' | 'metric' | 'tag'> {
  return {
    time: new Float64Array(buffer, 0, capacity),
    value: new Float64Array(buffer, capacity * 8, capacity),
    metric: new Uint32Array(buffer, capacity * 16, capacity),
    tag: new Uint32Array(buffer, capacity * 20, capacity),
  };
}
export const ROW_BYTES = 24;

/** Rows added one at a time, up to a capacity fixed up front (a scrape's samples). */
export class ValueRows {
  length = 0;
  private readonly cols: Pick<ValueColumns, 'time' | 'value' | 'metric' | 'tag'>;

  constructor(readonly capacity: number) {
    this.cols = rowColumns(new ArrayBuffer(capacity * ROW_BYTES), capacity);
  }

  add(metric: number, tag: number, time: number, value: number): void {
    const i = this.length;
    if (i >= this.capacity) throw new RangeError(`more than ${this.capacity} rows`);
    this.length = i + 1;
    const c = this.cols;
    c.metric[i] = metric;
    c.tag[i] = tag;
    c.time[i] = time;
    c.value[i] = value;
  }

  /** The rows so far, numbered by these lists. */
  columns(metrics: readonly string[], tagSets: readonly TagPairs[]): ValueColumns {
    return { length: this.length, metrics, tagSets, ...this.cols };
  }
}

/** Rows from <= row < to as a batch of their own: views of the same buffer, no copy. */
export function rowRange(cols: ValueColumns, from: number, to: number): ValueColumns {
  const end = Math.min(to, cols.length);
  return {
    length: end - from, metrics: cols.metrics, tagSets: cols.tagSets,
    metric: cols.metric.subarray(from, end), tag: cols.tag.subarray(from, end),
    time: cols.time.subarray(from, end), value: cols.value.subarray(from, end),
  };
}

/** The rows `keep` accepts, in order (a new batch; the lists are shared). */
export function selectRows(cols: ValueColumns, keep: (row: number) => boolean): ValueColumns {
  const kept: number[] = [];
  for (let i = 0; i < cols.length; i++) if (keep(i)) kept.push(i);
  const out = rowColumns(new ArrayBuffer(kept.length * ROW_BYTES), kept.length);
  kept.forEach((row, i) => {
    out.metric[i] = cols.metric[row]!;
    out.tag[i] = cols.tag[row]!;
    out.time[i] = cols.time[row]!;
    out.value[i] = cols.value[row]!;
  });
  return { length: kept.length, metrics: cols.metrics, tagSets: cols.tagSets, ...out };
}

/** The rows as Samples, for the paths that need objects (service-side aggregation). */
export function samplesOf(cols: ValueColumns): Sample[] {
  const out: Sample[] = new Array(cols.length);
  for (let i = 0; i < cols.length; i++) {
    out[i] = valueSample(cols.metrics[cols.metric[i]!]!, cols.tagSets[cols.tag[i]!]!, cols.time[i]!, cols.value[i]!);
  }
  return out;
}
