// Response shapes of composite queries (spec "Measurements (tagged)", librato-api-notes
// §1.3): the tagged API's bare array, the legacy API's object, and a persisted composite
// metric queried by name, which answers like any other metric's series query.
import type { Series } from '../../query/composite/series.js';
import { compositeView, type CompositeSeriesView } from '../../query/composite/response.js';

export { compositeView, type CompositeSeriesView };

export interface LegacyCompositeView {
  compose: string;
  resolution: number;
  measurements: {
    metric: CompositeSeriesView['metric'];
    period: number;
    query: { metric: string; source: string | null };
    source: { name: string | null; display_name: string | null };
    series: { measure_time: number; value: number }[];
  }[];
}

/** `displayNames`: the display names set with PUT /v1/sources/:name, by source. */
export function legacyCompositeView(compose: string, resolution: number, set: readonly Series[], displayNames: ReadonlyMap<string, string | null> = new Map()): LegacyCompositeView {
  return {
    compose,
    resolution,
    measurements: compositeView(set).map((s) => {
      const source = s.tags.source ?? null;
      return {
        metric: s.metric,
        period: s.period,
        query: { metric: s.metric.name, source },
        source: { name: source, display_name: source === null ? null : displayNames.get(source) ?? null },
        series: s.measurements.map((m) => ({ measure_time: m.time, value: m.value })),
      };
    }),
  };
}

export interface PersistedCompositeView {
  name: string;
  resolution: number;
  series: { tags: Record<string, string>; measurements: { time: number; value: number }[] }[];
  links: never[];
}

export function persistedCompositeView(name: string, resolution: number, set: readonly Series[]): PersistedCompositeView {
  return { name, resolution, series: compositeView(set).map((s) => ({ tags: s.tags, measurements: s.measurements })), links: [] };
}
