// The one write path for measurements, whatever API they came through: make sure each
// metric exists (properties of the request apply only on creation), apply service-side
// aggregation, then append to the storage engine, which resolves once it is durable.
import type { MetricCatalog, MetricInput } from '../domain/metrics.js';
import type { SeriesStore } from '../store/engine.js';
import { paramError } from '../errors.js';
import type { Sample } from './sample.js';
import { aggregated, aggregationPeriod } from './aggregate.js';

export interface IngestDeps {
  catalog: MetricCatalog;
  engine: SeriesStore;
}

export interface IngestResult {
  /** samples stored (after aggregation they may have merged into fewer points) */
  accepted: number;
}

export async function ingest(
  deps: IngestDeps, account: number, samples: Sample[],
  metricInputs: Map<string, { input: MetricInput; index: number }>, userAgent: string | null,
): Promise<IngestResult> {
  const periods = new Map<string, number | null>(); // metric -> aggregation period, or null
  for (const [name, { input, index }] of metricInputs) {
    const metric = await deps.catalog.ensure(account, name, 'gauge', input, userAgent);
    if (metric.type === 'composite') throw paramError(`measurements[${index}].name`, 'is a composite metric; it cannot take measurements');
    periods.set(name, metric.attributes.aggregate ? aggregationPeriod(metric.period) : null);
  }
  let out = samples;
  if ([...periods.values()].some((p) => p !== null)) {
    out = samples.map((s) => {
      const p = periods.get(s.metric);
      return p ? aggregated(s, p) : s;
    });
  }
  await deps.engine.append(account, out);
  return { accepted: samples.length };
}
