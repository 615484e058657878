// The one write path for measurements, whatever API they came through: make sure each
// metric exists (properties of the request apply only on creation), apply service-side
// aggregation, then append to the storage engine, which resolves once it is durable.
import { checkNewMetric, type MetricCatalog, type MetricInput } from '../domain/metrics.js';
import type { SeriesStore } from '../tsdb/engine.js';
import { paramError } from '../errors.js';
import { rowRange, samplesOf, type Sample, type TagPairs, type ValueColumns } from '../tsdb/sample.js';
import { aggregated, aggregationPeriod } from './aggregate.js';
import type { CardinalityGuard } from './cardinality.js';
import type { TimeSlice } from '../tsdb/slice.js';

export interface IngestDeps {
  catalog: MetricCatalog;
  engine: SeriesStore;
  /** the per-account limit on new series an hour (absent: no limit) */
  cardinality?: CardinalityGuard;
  /**
   * told which metrics of an account just received points, and the newest point's time,
   * once they are stored (the alert engine); it must only take note: the request does not
   * wait for what it does
   */
  stored?: (account: number, metrics: Iterable<string>, newest: number) => void;
}

export interface IngestResult {
  /** samples stored (after aggregation they may have merged into fewer points) */
  accepted: number;
}

/** What a request says about one metric it names. */
export interface MetricUse {
  /** properties applied only if this request creates the metric */
  input: MetricInput;
  /** first element naming it, for error messages */
  index: number;
  /**
   * the source-based API says gauge or counter; the tagged API says nothing: its
   * measurements are gauges (Librato's measurements API has no counters), so a metric it
   * creates is a gauge and a counter refuses them
   */
  type?: 'gauge' | 'counter';
  /** error field; default `measurements[index].name` */
  field?: string;
  /** the name as the request spelled it (the map key is the lower-cased key): a new metric keeps it */
  spelling?: string;
}

export async function ingest(
  deps: IngestDeps, account: number, samples: Sample[],
  metricInputs: Map<string, MetricUse>, userAgent: string | null,
): Promise<IngestResult> {
  const unknown = () => deps.engine.unknownSeries(account, samples);
  let deletes = deps.catalog.deletesBegunIn(account);
  let periods = await prepare(deps, account, metricInputs, userAgent, unknown);
  while (deps.catalog.deletesBegunIn(account) !== deletes) {
    // see ingestValues
    deletes = deps.catalog.deletesBegunIn(account);
    periods = await prepare(deps, account, metricInputs, userAgent, unknown);
  }
  await appendSamples(deps, account, periods !== null ? aggregatedAll(samples, periods) : samples, metricInputs);
  return { accepted: samples.length };
}

/** A long batch appended a piece of `rows` rows at a time, `slice` deciding when the event loop turns. */
export interface AppendPieces {
  rows: number;
  slice: TimeSlice;
}

/**
 * The same for single values in columns (the tagged scanner's batches). With `pieces`,
 * a long batch (a huge scrape) is handed to the engine a piece at a time with the event
 * loop turning between pieces, so that the engine's synchronous work does not hold
 * every request; the pieces commit together as far as the commit queue groups them, and
 * a crash may keep some of the pieces and not others, each piece whole.
 */
export async function ingestValues(
  deps: IngestDeps, account: number, values: ValueColumns,
  metricInputs: Map<string, MetricUse>, userAgent: string | null, pieces?: AppendPieces,
): Promise<IngestResult> {
  let deletes = deps.catalog.deletesBegunIn(account);
  let periods = await prepare(deps, account, metricInputs, userAgent, () => deps.engine.unknownValueSeries(account, values));
  const step = pieces?.rows ?? values.length;
  const written: Promise<void>[] = [];
  let newest = -Infinity;
  for (let from = 0; from < values.length; from += step) {
    // A delete of the account's metrics that began since they were checked (while this
    // write waited for the microtask queue, or between two pieces) may have taken their
    // series out of the engine already: appended now, the points would land in fresh
    // series of a metric being removed, found again by the next metric of that name. So
    // the metrics are checked again (one being deleted is waited for, then created afresh),
    // with no wait between the last check and the append. (New series admitted by a check
    // done again count again: the limit errs on the strict side.)
    while (deps.catalog.deletesBegunIn(account) !== deletes) {
      deletes = deps.catalog.deletesBegunIn(account);
      const rest = rowRange(values, from, values.length);
      periods = await prepare(deps, account, metricInputs, userAgent, () => deps.engine.unknownValueSeries(account, rest));
    }
    const part = from === 0 && values.length <= step ? values : rowRange(values, from, from + step);
    let write: Promise<void>;
    if (periods !== null) {
      // service-side aggregation moves points one by one: rare enough to go through objects
      const samples = aggregatedAll(samplesOf(part), periods);
      write = deps.engine.append(account, samples);
      for (const s of samples) if (s.time > newest) newest = s.time;
    } else {
      write = deps.engine.appendValues(account, part);
      for (let i = 0; i < part.length; i++) if (part.time[i]! > newest) newest = part.time[i]!;
    }
    // awaited below with the others; until then its failure must not count as unhandled
    write.catch(() => undefined);
    written.push(write);
    if (pieces && from + step < values.length) await pieces.slice.pause();
  }
  await Promise.all(written);
  deps.stored?.(account, metricInputs.keys(), newest);
  return { accepted: values.length };
}

async function appendSamples(deps: IngestDeps, account: number, samples: Sample[], metricInputs: Map<string, MetricUse>): Promise<void> {
  await deps.engine.append(account, samples);
  let newest = -Infinity;
  for (const s of samples) if (s.time > newest) newest = s.time;
  deps.stored?.(account, metricInputs.keys(), newest);
}

function aggregatedAll(samples: Sample[], periods: Map<string, number | null>): Sample[] {
  return samples.map((s) => {
    const p = periods.get(s.metric);
    return p ? aggregated(s, p) : s;
  });
}

/**
 * Everything before the append: type conflicts and the series limit checked before any
 * metric is created (a refused request leaves no trace), then the metrics ensured.
 * Returns each metric's aggregation period, or null when no metric aggregates.
 */
async function prepare(
  deps: IngestDeps, account: number, metricInputs: Map<string, MetricUse>, userAgent: string | null,
  unknownSeries: () => { metric: string; tags: TagPairs }[],
): Promise<Map<string, number | null> | null> {
  for (const [name, { input, index, type, field, spelling }] of metricInputs) {
    const existing = await deps.catalog.get(account, name);
    const at = field ?? `measurements[${index}].name`;
    if (!existing) {
      // what the metric would be created with (a period aggregation cannot use, say),
      // reported under the element that carries it: `gauges[cpu].period`
      checkNewMetric(spelling ?? name, { ...input, type: type ?? 'gauge' }, at.replace(/\.name$/, ''));
      continue;
    }
    if (existing.type === 'composite') throw paramError(at, 'is a composite metric; it cannot take measurements');
    if (existing.type === (type ?? 'gauge')) continue;
    // a counter's points are read as deltas: a gauge value among them would read as a reset
    throw paramError(at, type
      ? `${name} is a ${existing.type}; it cannot take ${type} measurements`
      : `${name} is a ${existing.type}; POST /v1/measurements takes gauges only (send counters to POST /v1/metrics)`);
  }
  if (deps.cardinality) deps.cardinality.admit(account, unknownSeries());
  const periods = new Map<string, number | null>(); // metric -> aggregation period, or null
  let aggregates = false;
  for (const [name, { input, type, spelling }] of metricInputs) {
    const metric = await deps.catalog.ensure(account, spelling ?? name, type ?? 'gauge', input, userAgent);
    const period = metric.attributes.aggregate ? aggregationPeriod(metric.period) : null;
    if (period) aggregates = true;
    periods.set(name, period);
  }
  return aggregates ? periods : null;
}
