// The API's view of a chart: its fields, its streams with their computed `type`, and
// the extra fields the client sent, echoed.
import type { ChartRecord } from '../../domain/spaces.js';

/** `streamTypes` from Spaces.streamTypes, one per stream. */
export function chartView(chart: ChartRecord, streamTypes: readonly string[]): Record<string, unknown> {
  // no extra field is named like a spec field (Spaces keeps them apart), so their place is cosmetic
  return {
    id: chart.id,
    name: chart.name,
    type: chart.type,
    streams: chart.streams.map((s, i) => ({ ...s, type: streamTypes[i] })),
    min: chart.min,
    max: chart.max,
    label: chart.label,
    related_space: chart.related_space,
    thresholds: chart.thresholds,
    ...chart.extra,
  };
}
