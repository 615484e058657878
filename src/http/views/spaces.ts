// The API's view of a chart: its fields, its streams with their computed `type`, and
// the extra fields the client sent, echoed.
import type { ChartRecord, StreamInfo } from '../../domain/spaces.js';

/** `streams` from Spaces.streamInfo, one per stream: its type, and its metric's name as created. */
export function chartView(chart: ChartRecord, streams: readonly StreamInfo[]): Record<string, unknown> {
  // no extra field is named like a spec field (Spaces keeps them apart), so their place is cosmetic
  return {
    id: chart.id,
    name: chart.name,
    type: chart.type,
    streams: chart.streams.map((s, i) => ({ ...s, ...(streams[i]?.metric ? { metric: streams[i].metric } : {}), type: streams[i]?.type })),
    min: chart.min,
    max: chart.max,
    label: chart.label,
    related_space: chart.related_space,
    thresholds: chart.thresholds,
    ...chart.extra,
  };
}
