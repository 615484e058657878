// Series -> the composite answer of GET /v1/measurements?compose=... (spec, Measurements
// (tagged); librato-api-notes §1.3): one element per series that has a point, only the
// points present. This is the one place an object per point is made.
import type { Series } from './series.js';

export interface CompositeSeriesView {
  tags: Record<string, string>;
  measurements: { time: number; value: number }[];
  metric: { name: string; type: string; attributes: object; period: number | null };
  /** seconds between the series' points */
  period: number;
}

/** The points of `s` an answer carries: not gaps, and finite. */
export function answeredPoints(s: Series): number {
  let n = 0;
  for (const v of s.values) if (Number.isFinite(v)) n++;
  return n;
}

export function compositeView(set: readonly Series[]): CompositeSeriesView[] {
  const out: CompositeSeriesView[] = [];
  for (const s of set) {
    const measurements: CompositeSeriesView['measurements'] = [];
    for (let i = 0; i < s.values.length; i++) {
      const value = s.values[i]!;
      // gaps, and the rare overflow to Infinity, which JSON cannot carry
      if (Number.isFinite(value)) measurements.push({ time: s.start + i * s.step, value });
    }
    if (measurements.length === 0) continue;
    const { name, type, attributes, period } = s.metric;
    out.push({ tags: Object.fromEntries(s.tags), measurements, metric: { name, type, attributes, period }, period: s.step });
  }
  return out;
}
