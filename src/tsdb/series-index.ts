// The series index, held in memory and persisted one record per series: account +
// metric + sorted tag pairs -> series id, and postings (tag name -> value -> ids) per
// metric, so a filter looks at the values of the tags it names, never at every series.
import type { TagPairs } from './sample.js';
import type { TagExpr } from './tag-expr.js';

export interface SeriesRef {
  id: number;
  account: number;
  metric: string;
  tags: TagPairs;
  /** set when its metric is purged: cached references must look again */
  gone?: boolean;
}

export interface SeriesRecord {
  m: string;
  t: [string, string][];
}

class MetricSeries {
  readonly byKey = new Map<string, SeriesRef>();
  readonly postings = new Map<string, Map<string, Set<number>>>();
  readonly ids = new Set<number>();

  add(ref: SeriesRef, key: string): void {
    this.byKey.set(key, ref);
    this.ids.add(ref.id);
    for (const [k, v] of ref.tags) {
      let values = this.postings.get(k);
      if (!values) this.postings.set(k, (values = new Map()));
      let ids = values.get(v);
      if (!ids) values.set(v, (ids = new Set()));
      ids.add(ref.id);
    }
  }
}

/** The identity of a tag set inside one metric: `k=v` pairs joined by 0x1f (never in tags). */
export function tagKey(tags: TagPairs): string {
  let s = '';
  for (let i = 0; i < tags.length; i++) s += (i ? '\x1f' : '') + tags[i]![0] + '=' + tags[i]![1];
  return s;
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

  /** Series of a metric matching `expr`, in no particular order. */
  select(account: number, metric: string, expr: TagExpr): SeriesRef[] {
    const ms = this.accounts.get(account)?.get(metric);
    if (!ms) return [];
    const ids = evaluate(ms, expr);
    const out: SeriesRef[] = [];
    for (const id of ids) out.push(this.byId.get(id)!);
    return out;
  }
}

function evaluate(ms: MetricSeries, e: TagExpr): Set<number> {
  switch (e.op) {
    case 'all':
      return ms.ids;
    case 'and': {
      const sets = e.args.map((a) => evaluate(ms, a)).sort((a, b) => a.size - b.size);
      if (sets.length === 0) return ms.ids;
      const out = new Set<number>();
      outer: for (const id of sets[0]!) {
        for (let i = 1; i < sets.length; i++) if (!sets[i]!.has(id)) continue outer;
        out.add(id);
      }
      return out;
    }
    case 'or': {
      const out = new Set<number>();
      for (const a of e.args) for (const id of evaluate(ms, a)) out.add(id);
      return out;
    }
    case 'match':
    case 'notMatch': {
      const out = new Set<number>();
      const values = ms.postings.get(e.name);
      if (!values) return out;
      const want = e.op === 'match';
      for (const [v, ids] of values) {
        if (e.glob.test(v) !== want) continue;
        for (const id of ids) out.add(id);
      }
      return out;
    }
    case 'lacks': {
      const has = ms.postings.get(e.name);
      if (!has) return ms.ids;
      const present = new Set<number>();
      for (const ids of has.values()) for (const id of ids) present.add(id);
      const out = new Set<number>();
      for (const id of ms.ids) if (!present.has(id)) out.add(id);
      return out;
    }
  }
}
