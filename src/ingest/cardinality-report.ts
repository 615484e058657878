// The cardinality report of one account: the metrics with the most series, and the
// series created in the last hour against the limit.
import type { SeriesStore } from '../tsdb/engine.js';
import type { CardinalityGuard, RecentSeries } from './cardinality.js';
import type { MetricCatalog } from '../domain/metrics.js';

const TOP_METRICS = 20;
const RECENT_SHOWN = 100;

export interface CardinalityReport {
  limit: { new_series_per_hour: number };
  series: number;
  new_series_last_hour: number;
  metrics: { name: string; series: number }[];
  recent_series: RecentSeries[];
}

export async function cardinalityReport(
  deps: { engine: SeriesStore; cardinality: CardinalityGuard; catalog: MetricCatalog }, account: number, limit: number,
): Promise<CardinalityReport> {
  const counts = [...deps.engine.seriesCounts(account)].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const metrics = await Promise.all(counts.slice(0, TOP_METRICS).map(async ([key, series]) => ({
    name: (await deps.catalog.get(account, key))?.name ?? key, series,
  })));
  return {
    limit: { new_series_per_hour: limit },
    series: counts.reduce((n, [, c]) => n + c, 0),
    new_series_last_hour: deps.cardinality.createdLastHour(account),
    metrics,
    recent_series: deps.cardinality.recent(account).slice(-RECENT_SHOWN).reverse(),
  };
}
