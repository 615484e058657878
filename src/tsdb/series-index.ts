// The series index, held in memory and persisted one record per series: account +
// metric + sorted tag pairs -> series id, and postings (tag name -> value -> ids) per
// metric, so a filter looks at the values of the tags it names, never at every series.
import type { TagPairs } from './sample.js';
import { matchingIds, withId, type PostingList, type Postings, type TagExpr } from './tag-expr.js';

export interface SeriesRef {
  id: number;
  account: number;
  metric: string;
  tags: TagPairs;
  /** set when its metric is purged or its index replaced: cached references must look again */
  gone?: boolean;
}

export interface SeriesRecord {
  m: string;
  t: [string, string][];
}

class MetricSeries implements Postings {
  readonly byKey = new Map<string, SeriesRef>();
  readonly postings = new Map<string, Map<string, PostingList>>();
  readonly ids = new Set<number>();

  add(ref: SeriesRef, key: string): void {
    this.byKey.set(key, ref);
    this.ids.add(ref.id);
    for (const [k, v] of ref.tags) {
      let values = this.postings.get(k);
      if (!values) this.postings.set(k, (values = new Map()));
      const ids = values.get(v);
      const next = withId(ids, ref.id);
      if (next !== ids) values.set(v, next);
    }
  }
}

/**
 * The identity of a tag set inside one metric: `k=v` pairs joined by 0x1f (never in tags).
 * One flat string: built with +=, a key was a rope of about two 32-byte nodes a tag,
 * kept as long as its series (a third of a megabyte per 1,000 series of four tags).
 */
export function tagKey(tags: TagPairs): string {
  const parts: string[] = [];
  for (let i = 0; i < tags.length; i++) parts.push(i ? '\x1f' : '', tags[i]![0], '=', tags[i]![1]);
  return parts.join('');
}

const keys = new WeakMap<TagPairs, string>();

/**
 * The tagKey of a tag-pairs array, made once for the array: the index's map, the
 * appender's lookups and the scrape caches then hold one string a series between them.
 * The array must not change once keyed (ingest freezes the arrays it keeps).
 */
export function keyOf(tags: TagPairs): string {
  let key = keys.get(tags);
  if (key === undefined) keys.set(tags, (key = tagKey(tags)));
  return key;
}

export class SeriesIndex {
  private readonly accounts = new Map<number, Map<string, MetricSeries>>();
  readonly byId = new Map<number, SeriesRef>();

  private metricSeries(account: number, metric: string, create: boolean): MetricSeries | undefined {
    let metrics = this.accounts.get(account);
    if (!metrics) {
      if (!create) return undefined;
      this.accounts.set(account, (metrics = new Map()));
    }
    let ms = metrics.get(metric);
    if (!ms && create) metrics.set(metric, (ms = new MetricSeries()));
    return ms;
  }

  find(account: number, metric: string, key: string): SeriesRef | undefined {
    return this.accounts.get(account)?.get(metric)?.byKey.get(key);
  }

  add(ref: SeriesRef, key = tagKey(ref.tags)): void {
    this.metricSeries(ref.account, ref.metric, true)!.add(ref, key);
    this.byId.set(ref.id, ref);
  }

  /**
   * This index is replaced by one rebuilt from the store: references held outside it
   * (the series kept by number, caches) must look again, as a series only this index knew may not
   * exist in the new one, and its id may name another series there.
   */
  retire(): void {
    for (const r of this.byId.values()) r.gone = true;
  }

  /** Forgets every series of a metric; returns them. */
  removeMetric(account: number, metric: string): SeriesRef[] {
    const ms = this.accounts.get(account)?.get(metric);
    if (!ms) return [];
    this.accounts.get(account)!.delete(metric);
    const refs = [...ms.byKey.values()];
    for (const r of refs) {
      this.byId.delete(r.id);
      r.gone = true;
    }
    return refs;
  }

  seriesCounts(account: number): Map<string, number> {
    const out = new Map<string, number>();
    for (const [metric, ms] of this.accounts.get(account) ?? []) out.set(metric, ms.ids.size);
    return out;
  }

  /** The distinct values of one tag across every metric of the account (the legacy sources). */
  tagValues(account: number, name: string): Set<string> {
    const out = new Set<string>();
    for (const ms of this.accounts.get(account)?.values() ?? []) {
      for (const v of ms.postings.get(name)?.keys() ?? []) out.add(v);
    }
    return out;
  }

  /** Series of a metric matching `expr`, in no particular order. */
  select(account: number, metric: string, expr: TagExpr): SeriesRef[] {
    const ms = this.accounts.get(account)?.get(metric);
    if (!ms) return [];
    const ids = matchingIds(ms, expr);
    const out: SeriesRef[] = [];
    for (const id of ids) out.push(this.byId.get(id)!);
    return out;
  }
}
