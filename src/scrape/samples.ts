// One scrape's parsed samples -> rows in columns for the engine (their series numbered by
// numbering.ts), by the rules every write follows (metric name and tag charsets, the
// accepted time range, the tag count) plus Prometheus's
// (honor_labels, metric_relabel_configs, sample_limit, label_limit, honor_timestamps).
// A sample the v1 rules refuse is counted by reason and the rest stored; a limit
// exceeded fails the whole scrape, as in Prometheus. Pure: no storage, no clock (the
// sliced form only gives the event loop back between slices).
import { METRIC_NAME, canonicalMetricName } from '../domain/names.js';
import { ValueRows, type TagPairs } from '../tsdb/sample.js';
import { keyOf, tagKey } from '../tsdb/series-index.js';
import { withinExponentLimits } from '../ingest/float-limits.js';
import type { TimeWindow } from '../ingest/time-window.js';
import type { ScrapedSample } from './parse.js';
import type { ScrapeJob } from './config.js';
import { addExternalLabels, scrapedLabels, type ScrapeTarget } from './target.js';
import { tagsOf } from './labels.js';
import { SeriesNumbering, type Numbered } from './numbering.js';
import { PairPool, StringPool } from './shared-strings.js';
import type { TimeSlice } from '../tsdb/slice.js';

/** Why a scraped sample was not stored (the `reason` of the refused-samples self-metric). */
export type RefusalReason = 'not_finite' | 'too_large' | 'metric_name' | 'too_many_tags' | 'time_out_of_range' | 'duplicate' | 'out_of_order' | 'type_conflict' | 'series_limit';

export class ScrapeLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScrapeLimitError';
  }
}

/**
 * What one exposed series (its name and labels as exposed) becomes, kept per target
 * from scrape to scrape as Prometheus keeps its scrape cache: a steady target's samples
 * then cost a map lookup each, not relabelling and tag mapping each time. A series once
 * stored has a number (numbering.ts), by which the engine finds it without a lookup.
 */
export interface CachedSeries extends Numbered {
  /** dropped by metric_relabel_configs */
  dropped: boolean;
  /** labels after relabelling, `__name__` included and external labels not (label_limit counts them) */
  labelCount: number;
  /** how the series breaks label_name_length_limit or label_value_length_limit, or null */
  tooLong: string | null;
  /** why every sample of it is refused, or null */
  refusal: 'metric_name' | 'too_many_tags' | 'duplicate' | null;
  metric: string;
  spelling: string;
  tags: TagPairs;
  /** the scrape it last stored a sample in, and the time of that sample */
  lastSeen: number;
  lastTime: number;
  /**
   * The scrape it was last exposed in, stored or not: what the sweep keeps it by. A
   * series dropped by metric_relabel_configs or refused stores nothing, and by lastSeen
   * it was forgotten after every scrape and relabelled again in the next.
   */
  exposed: number;
  /** it holds its key in SeriesCache.holders (a flag, so a steady series costs no lookup there) */
  holding: boolean;
}

export class SeriesCache {
  private readonly entries = new Map<string, CachedSeries>();
  /**
   * The entry that holds each stored series (by metric, then by the key of its tags, the
   * string the engine's index keeps for it: keyOf): two exposed series that become one
   * series (labels in another order, or made equal by relabelling) are a duplicate, as in
   * Prometheus, not two values summed into one point. It also means that in a scrape's
   * batch, one tag-set array of a metric is one series (sink.ts relies on it).
   */
  private readonly holders = new Map<string, Map<string, CachedSeries>>();
  /** the numbers of the series stored, shared with the target's health series */
  readonly numbering = new SeriesNumbering();
  /** the number of the scrape being converted */
  scrape = 0;
  /**
   * Series the loop writes itself (`up` and the other health series, by metric and tag
   * key): an exposed sample naming one is refused as a duplicate, as Prometheus refuses
   * it, rather than merged into it (an exposed `up 5` made `up` average 3).
   */
  readonly reserved = new Set<string>();
  /** limits.tagsPerMeasurement the mappings were made under (a reload may change it) */
  private tagLimit = -1;
  /** the tag pairs and metric names of the series mapped, one copy each (shared-strings.ts) */
  readonly pairs = new PairPool();
  readonly names = new StringPool();

  get size(): number {
    return this.entries.size;
  }

  get(raw: string): CachedSeries | undefined {
    return this.entries.get(raw);
  }

  set(raw: string, e: CachedSeries): void {
    this.entries.set(raw, e);
  }

  /**
   * Whether `e` may store its series in scrape `n`: it holds the series' key, or takes it
   * unless the holder stored the series in this scrape already (the first of a scrape
   * wins, as Prometheus keeps the first sample of a series in a scrape). Holding on for
   * another scrape lost a sample whenever a target changed how it writes a series (labels
   * in another order, `le="1"` becoming `le="1.0"` when it switched to OpenMetrics).
   */
  holds(e: CachedSeries, n: number): boolean {
    if (e.holding) return true;
    let holders = this.holders.get(e.metric);
    if (holders === undefined) this.holders.set(e.metric, (holders = new Map()));
    const key = keyOf(e.tags);
    const holder = holders.get(key);
    if (holder !== undefined) {
      if (holder.lastSeen === n) return false;
      holder.holding = false;
    }
    holders.set(key, e);
    e.holding = true;
    return true;
  }

  private letGo(e: CachedSeries): void {
    const holders = this.holders.get(e.metric)!;
    holders.delete(keyOf(e.tags));
    if (holders.size === 0) this.holders.delete(e.metric);
  }

  /** After a scrape: forgets series not exposed in it or the one before. */
  sweep(): void {
    for (const [raw, e] of this.entries) {
      if (e.exposed >= this.scrape - 1) continue;
      this.entries.delete(raw);
      if (e.holding) this.letGo(e);
      this.numbering.release(e);
    }
    const entries = this.entries;
    this.pairs.trim(entries.size, function* () { for (const e of entries.values()) yield* e.tags; });
    this.names.trim(entries.size, function* () {
      for (const e of entries.values()) {
        yield e.spelling;
        yield e.metric;
      }
    });
  }

  /**
   * Before a scrape: a mapping decides once whether a series has too many tags, so a
   * reload that changes the limit starts the mapping afresh, as a changed job does.
   */
  mapUnder(limits: ConvertLimits): void {
    if (limits.tagsPerMeasurement !== this.tagLimit) this.clear();
    this.tagLimit = limits.tagsPerMeasurement;
  }

  /** The job's settings changed: every mapping may have. */
  clear(): void {
    for (const e of this.entries.values()) this.numbering.release(e);
    this.entries.clear();
    this.holders.clear();
    this.pairs.clear();
    this.names.clear();
  }
}

export interface ConvertedScrape {
  /** numbered by the cache's numbering; room left for the rows asked for */
  rows: ValueRows;
  /** v1 metric type each metric is stored as (canonical name -> type, spelling) */
  metrics: Map<string, { type: 'counter' | 'gauge'; spelling: string }>;
  /** samples after metric_relabel_configs (Prometheus's scrape_samples_post_metric_relabeling) */
  postRelabel: number;
  /** series not in the previous scrape (Prometheus's scrape_series_added) */
  added: number;
  refused: Map<RefusalReason, number>;
}

export interface ConvertLimits extends TimeWindow {
  tagsPerMeasurement: number;
}

type JobRules = Pick<ScrapeJob, 'honorLabels' | 'honorTimestamps' | 'metricRelabelConfigs' | 'externalLabels' | 'sampleLimit' | 'labelLimit'>
  & Partial<Pick<ScrapeJob, 'labelNameLengthLimit' | 'labelValueLengthLimit'>>;

/** A series' identity in SeriesCache.reserved. */
export function reservedKey(metric: string, tags: TagPairs): string {
  // joined, not concatenated: one flat string, where a template made a rope kept as
  // long as the series (tagKey says what that cost)
  return [metric, tagKey(tags)].join('\u0000');
}

function mapSeries(s: ScrapedSample, target: Pick<ScrapeTarget, 'labels'>, job: JobRules, limits: ConvertLimits, cache: SeriesCache): CachedSeries {
  const e: CachedSeries = { dropped: false, labelCount: 0, tooLong: null, refusal: null, metric: '', spelling: '', tags: [], lastSeen: -2, lastTime: 0, exposed: -2, holding: false, number: -1, metricNo: -1 };
  const labels = scrapedLabels(s.name, s.labels, target, job);
  if (!labels) { e.dropped = true; return e; }
  // Prometheus checks its label limits on the series it stores, which has no external labels
  e.labelCount = labels.size;
  e.tooLong = tooLong(labels, job);
  addExternalLabels(labels, job);
  const name = labels.get('__name__') ?? '';
  if (!METRIC_NAME.test(name)) { e.refusal = 'metric_name'; return e; }
  // frozen: the engine then keeps these pairs for a new series instead of a copy; the
  // pools' pairs and names are detached, so that they do not keep this scrape's body alive
  e.tags = Object.freeze(tagsOf(labels).map(([k, v]) => cache.pairs.get(k, v)));
  if (e.tags.length > limits.tagsPerMeasurement) e.refusal = 'too_many_tags';
  e.spelling = cache.names.get(name);
  e.metric = cache.names.get(canonicalMetricName(e.spelling));
  return e;
}

/**
 * Prometheus's label_name_length_limit and label_value_length_limit (0: none), in bytes
 * of UTF-8 as Go counts a string, on every label of the series, `__name__` included.
 */
function tooLong(labels: ReadonlyMap<string, string>, job: JobRules): string | null {
  const nameLimit = job.labelNameLengthLimit ?? 0;
  const valueLimit = job.labelValueLengthLimit ?? 0;
  if (nameLimit === 0 && valueLimit === 0) return null;
  const metric = (labels.get('__name__') ?? '').slice(0, 50);
  for (const [name, value] of labels) {
    const nameBytes = Buffer.byteLength(name);
    if (nameLimit > 0 && nameBytes > nameLimit) return `label_name_length_limit exceeded (metric ${metric}, label name ${name.slice(0, 50)}: ${nameBytes} bytes, limit ${nameLimit})`;
    const valueBytes = Buffer.byteLength(value);
    if (valueLimit > 0 && valueBytes > valueLimit) return `label_value_length_limit exceeded (metric ${metric}, label ${name.slice(0, 50)}: ${valueBytes} bytes, limit ${valueLimit})`;
  }
  return null;
}

/**
 * `scrapeTimeMs`: the time of samples the exposition gives none (or honor_timestamps is
 * off). `cache`: the target's series cache (a fresh one converts from scratch).
 * `moreRows`: room the caller adds rows into (the health series').
 */
export function convertScrape(
  scraped: readonly ScrapedSample[], target: Pick<ScrapeTarget, 'labels'>, job: JobRules, scrapeTimeMs: number, limits: ConvertLimits,
  cache = new SeriesCache(), moreRows = 0,
): ConvertedScrape {
  const { out, scrapeTime, n } = begin(scraped.length + moreRows, scrapeTimeMs, limits, cache);
  // swept however the conversion ends: a limit that fails every scrape must not keep
  // what each one mapped (150k new series a scrape grew RSS to 2.8 GB in 95 s)
  try {
    convertInto(out, scraped, 0, scraped.length, target, job, scrapeTime, limits, cache, n);
  } finally {
    cache.sweep();
  }
  return out;
}

/** Samples converted between two turns of the event loop (at most; `slice` decides). */
const CONVERT_STEP = 4096;

/**
 * The same, giving the event loop back whenever `slice` says so: a target of a million
 * series takes seconds to convert the first time, which must not hold every request.
 * The cache is the target's alone and one scrape of a target runs at a time, so nothing
 * else touches it between the slices.
 */
export async function convertScrapeInSlices(
  scraped: readonly ScrapedSample[], target: Pick<ScrapeTarget, 'labels'>, job: JobRules, scrapeTimeMs: number, limits: ConvertLimits,
  cache: SeriesCache, moreRows: number, slice: TimeSlice,
): Promise<ConvertedScrape> {
  const { out, scrapeTime, n } = begin(scraped.length + moreRows, scrapeTimeMs, limits, cache);
  try {
    for (let from = 0; from < scraped.length; from += CONVERT_STEP) {
      convertInto(out, scraped, from, Math.min(from + CONVERT_STEP, scraped.length), target, job, scrapeTime, limits, cache, n);
      await slice.pause();
    }
  } finally {
    cache.sweep();
  }
  return out;
}

function begin(rows: number, scrapeTimeMs: number, limits: ConvertLimits, cache: SeriesCache): { out: ConvertedScrape; scrapeTime: number; n: number } {
  cache.mapUnder(limits);
  // before any row is numbered: a batch's numbers all come from one list
  cache.numbering.compact();
  const out: ConvertedScrape = { rows: new ValueRows(rows), metrics: new Map(), postRelabel: 0, added: 0, refused: new Map() };
  return { out, scrapeTime: Math.floor(scrapeTimeMs / 1000), n: ++cache.scrape };
}

/** Samples from <= i < to into `out`. */
function convertInto(
  out: ConvertedScrape, scraped: readonly ScrapedSample[], from: number, to: number, target: Pick<ScrapeTarget, 'labels'>, job: JobRules,
  scrapeTime: number, limits: ConvertLimits, cache: SeriesCache, n: number,
): void {
  const refuse = (reason: RefusalReason) => out.refused.set(reason, (out.refused.get(reason) ?? 0) + 1);
  for (let i = from; i < to; i++) {
    const s = scraped[i]!;
    let e = cache.get(s.series);
    if (!e) {
      cache.set(s.series, (e = mapSeries(s, target, job, limits, cache)));
      if (!e.dropped && !e.refusal && cache.reserved.has(reservedKey(e.metric, e.tags))) e.refusal = 'duplicate';
    }
    // scrape_series_added counts series new to the target, as Prometheus counts those not
    // in its scrape cache: one exposed last time is not new, even if its sample was not
    // stored then (NaN, or a repeated timestamp), so it is judged by exposure, not storage
    const isNew = e.exposed < n - 1;
    e.exposed = n;
    if (e.dropped) continue; // dropped by metric_relabel_configs: not counted, as in Prometheus
    out.postRelabel++;
    if (job.sampleLimit > 0 && out.postRelabel > job.sampleLimit) throw new ScrapeLimitError(`sample_limit exceeded (more than ${job.sampleLimit} samples)`);
    // __name__ counts as a label, as in Prometheus
    if (job.labelLimit > 0 && e.labelCount > job.labelLimit) throw new ScrapeLimitError(`label_limit exceeded (${e.labelCount} labels on ${s.name}, limit ${job.labelLimit})`);
    if (e.tooLong !== null) throw new ScrapeLimitError(e.tooLong);
    if (!s.finite) { refuse('not_finite'); continue; }
    // the push API's rule: a magnitude of 1e127 or more is refused, below 1e-130 is 0
    const value = withinExponentLimits(s.value);
    if (value === null) { refuse('too_large'); continue; }
    if (e.refusal) { refuse(e.refusal); continue; }
    if (!cache.holds(e, n)) { refuse('duplicate'); continue; }
    const own = job.honorTimestamps && s.timestampMs !== null;
    const time = own ? Math.floor(s.timestampMs! / 1000) : scrapeTime;
    if (time < limits.oldest || time > limits.newest) { refuse('time_out_of_range'); continue; }
    // One value per series and second: a second one would be merged into the stored point.
    // In a scrape, a repeated series is a duplicate; across scrapes, an exposition
    // timestamp no later than the series' last stored one is refused as Prometheus refuses
    // it (a target that repeats a cached timestamp had each scrape's copy averaged into
    // the one point, and one whose timestamps went back wrote into the past).
    if (time <= e.lastTime && (e.lastSeen === n || (own && e.lastSeen >= 0))) { refuse(time === e.lastTime ? 'duplicate' : 'out_of_order'); continue; }
    const known = out.metrics.get(e.metric);
    if (known && known.type !== s.kind) { refuse('type_conflict'); continue; }
    if (!known) out.metrics.set(e.metric, { type: s.kind, spelling: e.spelling });
    if (isNew) out.added++;
    e.lastSeen = n;
    e.lastTime = time;
    if (e.number < 0) cache.numbering.add(e);
    out.rows.add(e.metricNo, e.number, time, value);
  }
}
