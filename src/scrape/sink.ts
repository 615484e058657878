// Where scraped samples go: the same ingest path as a push (metric creation, aggregation,
// the engine, the alert engine told), after the checks a push would fail on as a whole
// (a metric of another type, the new-series limit) have removed the samples they refuse,
// counted by reason: one bad metric never costs a target its whole scrape.
import { ingest, type IngestDeps, type MetricUse } from '../ingest/pipeline.js';
import type { CardinalityGuard } from '../ingest/cardinality.js';
import type { Sample } from '../tsdb/sample.js';
import { tagKey } from '../tsdb/series-index.js';
import type { RefusalReason } from './samples.js';

export const SCRAPE_USER_AGENT = 'Gaugeway scrape';

/** What was not stored: counts by reason, and the samples themselves. */
export interface StoreRefusals {
  counts: Map<RefusalReason, number>;
  samples: Set<Sample>;
}

/**
 * The new-series limit looks up only series not written before: a scraped sample carries
 * its series' slot (samples.ts), which the engine checks first.
 */
export async function storeScraped(
  deps: Omit<IngestDeps, 'cardinality'> & { cardinality?: CardinalityGuard },
  account: number, samples: Sample[], types: Map<string, { type: 'counter' | 'gauge'; spelling: string }>,
): Promise<StoreRefusals> {
  const refused = new Map<RefusalReason, number>();
  const dropped = new Set<Sample>();
  const conflicting = new Set<string>();
  for (const [name, { type }] of types) {
    const existing = await deps.catalog.get(account, name);
    if (existing && existing.type !== type) conflicting.add(name);
  }
  let keep = samples;
  const drop = (reason: RefusalReason, out: (s: Sample) => boolean) => {
    const before = keep.length;
    keep = keep.filter((s) => { if (!out(s)) return true; dropped.add(s); return false; });
    refused.set(reason, (refused.get(reason) ?? 0) + before - keep.length);
  };
  if (conflicting.size) drop('type_conflict', (s) => conflicting.has(s.metric));
  if (deps.cardinality && keep.length) {
    const fresh = deps.engine.unknownSeries(account, keep);
    try {
      deps.cardinality.admit(account, fresh);
    } catch {
      // the series that exist keep their data; the new ones wait for the limit to allow them
      const isNew = new Set(fresh.map((f) => seriesKey(f.metric, f.tags)));
      drop('series_limit', (s) => isNew.has(seriesKey(s.metric, s.tags)));
    }
  }
  if (keep.length === 0) return { counts: refused, samples: dropped };
  const inputs = new Map<string, MetricUse>();
  for (const [name, { type, spelling }] of types) if (!conflicting.has(name)) inputs.set(name, { input: {}, index: 0, type, spelling, field: 'scrape' });
  await ingest({ catalog: deps.catalog, engine: deps.engine, stored: deps.stored }, account, keep, inputs, SCRAPE_USER_AGENT);
  return { counts: refused, samples: dropped };
}

/** A series' identity: the engine's tag key (series-index.ts) under its metric. */
function seriesKey(metric: string, tags: Sample['tags']): string {
  return `${metric}\u0000${tagKey(tags)}`;
}
