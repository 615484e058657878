// Where scraped samples go: the same ingest path as a push (metric creation, aggregation,
// the engine, the alert engine told), after the checks a push would fail on as a whole
// (a metric of another type, the new-series limit) have removed the samples they refuse,
// counted by reason: one bad metric never costs a target its whole scrape.
import { ingestValues, type IngestDeps, type MetricUse } from '../ingest/pipeline.js';
import type { CardinalityGuard } from '../ingest/cardinality.js';
import { rowRange, selectRows, type TagPairs, type ValueColumns } from '../tsdb/sample.js';
import type { SeriesStore } from '../tsdb/engine.js';
import { TimeSlice } from '../tsdb/slice.js';
import { reservedKey, type RefusalReason } from './samples.js';

export const SCRAPE_USER_AGENT = 'Gaugeway scrape';

/** What was not stored: counts by reason, and the rows themselves. */
export interface StoreRefusals {
  counts: Map<RefusalReason, number>;
  /** by row of the batch handed in: 1 where the row was not stored */
  rows: Uint8Array;
}

/**
 * Rows a scrape hands the engine at a time, and checks for new series at a time: a
 * target of a million series is then stored in pieces with the event loop turning
 * between them, instead of holding every request for seconds (issue 12: "a huge target
 * never delaying others or ingest").
 */
export const SCRAPE_SLICE_ROWS = 2048;

/**
 * The new-series limit looks up only series not written before: the engine knows the
 * series of a target's numbers (numbering.ts) and checks those first. In `values`, one
 * tag-pairs array of a metric must be one series (samples.ts sees to it): refused series
 * are matched to rows by the array, not by its text.
 */
export async function storeScraped(
  deps: Omit<IngestDeps, 'cardinality'> & { cardinality?: CardinalityGuard },
  account: number, values: ValueColumns, types: Map<string, { type: 'counter' | 'gauge'; spelling: string }>,
  reserved: ReadonlySet<string> = new Set(),
): Promise<StoreRefusals> {
  const counts = new Map<RefusalReason, number>();
  const refusedRows = new Uint8Array(values.length);
  let refusedCount = 0;
  const slice = new TimeSlice();
  const conflicting = new Set<string>();
  for (const [name, { type }] of types) {
    const existing = await deps.catalog.get(account, name);
    if (existing && existing.type !== type) conflicting.add(name);
  }
  const metricOf = (row: number) => values.metrics[values.metric[row]!]!;
  const drop = async (reason: RefusalReason, out: (row: number) => boolean) => {
    let n = 0;
    for (let row = 0; row < values.length; row++) {
      if (refusedRows[row] === 0 && out(row)) { refusedRows[row] = 1; n++; }
      if (row % SCRAPE_SLICE_ROWS === SCRAPE_SLICE_ROWS - 1) await slice.pause();
    }
    refusedCount += n;
    counts.set(reason, (counts.get(reason) ?? 0) + n);
  };
  const kept = () => (refusedCount ? selectRows(values, (row) => refusedRows[row] === 0) : values);
  if (conflicting.size) await drop('type_conflict', (row) => conflicting.has(metricOf(row)));
  let keep = kept();
  if (deps.cardinality && keep.length) {
    const fresh = await unknownSeries(deps.engine, account, keep);
    // The target's own health series (`up`...) first: a target over the limit is then
    // still seen as up or down, instead of `up` missing with everything else.
    const reservedMetrics = new Set([...reserved].map((key) => key.slice(0, key.indexOf('\u0000'))));
    const isOwn = (f: NewSeries) => reservedMetrics.has(f.metric) && reserved.has(reservedKey(f.metric, f.tags));
    const own = fresh.filter(isOwn);
    const exposed = own.length ? fresh.filter((f) => !isOwn(f)) : fresh;
    // tag-pairs array -> the metrics refused with it (more than one only for the health series)
    const refused = new Map<TagPairs, string[]>();
    for (const group of [own, exposed]) {
      // as many as the hour leaves room for; the series that exist keep their data, and the
      // new ones past the limit wait for it to allow them
      const admitted = deps.cardinality.admitUpTo(account, group);
      for (const f of group.slice(admitted)) {
        const metrics = refused.get(f.tags);
        if (metrics) metrics.push(f.metric);
        else refused.set(f.tags, [f.metric]);
      }
    }
    if (refused.size) {
      await drop('series_limit', (row) => refused.get(values.tagSets[values.tag[row]!]!)?.includes(metricOf(row)) === true);
      keep = kept();
    }
  }
  if (keep.length === 0) return { counts, rows: refusedRows };
  // metrics are created only for rows that are stored: a refused series must not leave its metric behind
  const storedMetrics = new Set<string>();
  for (let row = 0; row < keep.length; row++) storedMetrics.add(keep.metrics[keep.metric[row]!]!);
  const inputs = new Map<string, MetricUse>();
  for (const [name, { type, spelling }] of types) if (storedMetrics.has(name)) inputs.set(name, { input: {}, index: 0, type, spelling, field: 'scrape' });
  await ingestValues({ catalog: deps.catalog, engine: deps.engine, stored: deps.stored }, account, keep, inputs, SCRAPE_USER_AGENT, { rows: SCRAPE_SLICE_ROWS, slice });
  return { counts, rows: refusedRows };
}

type NewSeries = { metric: string; tags: TagPairs };

/** The engine's unknownValueSeries a slice of rows at a time, each series once. */
async function unknownSeries(engine: SeriesStore, account: number, values: ValueColumns): Promise<NewSeries[]> {
  if (values.length <= SCRAPE_SLICE_ROWS) return engine.unknownValueSeries(account, values);
  const out: NewSeries[] = [];
  const seen = new Map<TagPairs, Set<string>>();
  const slice = new TimeSlice();
  for (let from = 0; from < values.length; from += SCRAPE_SLICE_ROWS) {
    for (const f of engine.unknownValueSeries(account, rowRange(values, from, from + SCRAPE_SLICE_ROWS))) {
      let metrics = seen.get(f.tags);
      if (!metrics) seen.set(f.tags, (metrics = new Set()));
      if (metrics.has(f.metric)) continue;
      metrics.add(f.metric);
      out.push(f);
    }
    await slice.pause();
  }
  return out;
}
