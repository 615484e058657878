// Where scraped samples go: the same ingest path as a push (metric creation, aggregation,
// the engine, the alert engine told), after the checks a push would fail on as a whole
// (a metric of another type, the new-series limit) have removed the samples they refuse,
// counted by reason: one bad metric never costs a target its whole scrape.
import { ingestValues, type IngestDeps, type MetricUse } from '../ingest/pipeline.js';
import type { CardinalityGuard } from '../ingest/cardinality.js';
import { selectRows, type ValueColumns } from '../tsdb/sample.js';
import { reservedKey, type RefusalReason } from './samples.js';

export const SCRAPE_USER_AGENT = 'Gaugeway scrape';

/** What was not stored: counts by reason, and the rows themselves. */
export interface StoreRefusals {
  counts: Map<RefusalReason, number>;
  /** row numbers of the batch handed in */
  rows: Set<number>;
}

/**
 * The new-series limit looks up only series not written before: the engine knows the
 * series of a target's numbers (numbering.ts) and checks those first.
 */
export async function storeScraped(
  deps: Omit<IngestDeps, 'cardinality'> & { cardinality?: CardinalityGuard },
  account: number, values: ValueColumns, types: Map<string, { type: 'counter' | 'gauge'; spelling: string }>,
  reserved: ReadonlySet<string> = new Set(),
): Promise<StoreRefusals> {
  const counts = new Map<RefusalReason, number>();
  const dropped = new Set<number>();
  const conflicting = new Set<string>();
  for (const [name, { type }] of types) {
    const existing = await deps.catalog.get(account, name);
    if (existing && existing.type !== type) conflicting.add(name);
  }
  const metricOf = (row: number) => values.metrics[values.metric[row]!]!;
  const drop = (reason: RefusalReason, out: (row: number) => boolean) => {
    let n = 0;
    for (let row = 0; row < values.length; row++) if (!dropped.has(row) && out(row)) { dropped.add(row); n++; }
    counts.set(reason, (counts.get(reason) ?? 0) + n);
  };
  const kept = () => (dropped.size ? selectRows(values, (row) => !dropped.has(row)) : values);
  if (conflicting.size) drop('type_conflict', (row) => conflicting.has(metricOf(row)));
  let keep = kept();
  if (deps.cardinality && keep.length) {
    const fresh = deps.engine.unknownValueSeries(account, keep);
    // The target's own health series (`up`...) first: a target over the limit is then
    // still seen as up or down, instead of `up` missing with everything else.
    const own = fresh.filter((f) => reserved.has(reservedKey(f.metric, f.tags)));
    const exposed = own.length ? fresh.filter((f) => !reserved.has(reservedKey(f.metric, f.tags))) : fresh;
    const refused = new Set<string>();
    for (const group of [own, exposed]) {
      if (group.length === 0) continue;
      try {
        deps.cardinality.admit(account, group);
      } catch {
        // the series that exist keep their data; the new ones wait for the limit to allow them
        for (const f of group) refused.add(reservedKey(f.metric, f.tags));
      }
    }
    if (refused.size) {
      drop('series_limit', (row) => refused.has(reservedKey(metricOf(row), values.tagSets[values.tag[row]!]!)));
      keep = kept();
    }
  }
  if (keep.length === 0) return { counts, rows: dropped };
  // metrics are created only for rows that are stored: a refused series must not leave its metric behind
  const storedMetrics = new Set<string>();
  for (let row = 0; row < keep.length; row++) storedMetrics.add(keep.metrics[keep.metric[row]!]!);
  const inputs = new Map<string, MetricUse>();
  for (const [name, { type, spelling }] of types) if (storedMetrics.has(name)) inputs.set(name, { input: {}, index: 0, type, spelling, field: 'scrape' });
  await ingestValues({ catalog: deps.catalog, engine: deps.engine, stored: deps.stored }, account, keep, inputs, SCRAPE_USER_AGENT);
  return { counts, rows: dropped };
}
