// The API's view of a metric: what GET returns and what a create answers with.
import type { MetricRecord } from '../../domain/metrics.js';

export function metricView(m: MetricRecord): Record<string, unknown> {
  const view: Record<string, unknown> = {
    name: m.name,
    display_name: m.display_name,
    description: m.description,
    period: m.period,
    type: m.type,
    attributes: m.attributes,
    source_lag: m.source_lag ?? null,
  };
  if (m.type === 'composite') view.composite = m.composite;
  return view;
}
