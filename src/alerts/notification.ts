// The notification an alert sends, in the terms of Librato's webhook payload (notes §4.3).
import type { AlertRecord, ConditionRecord } from '../domain/alerts.js';
import { canonicalMetricName } from '../domain/names.js';
import type { LegacyMeasurement, LegacyTrigger, Notification, Violation } from '../notifiers/plugin.js';
import type { AlertState } from './state.js';

/** The type of each metric a version 1 alert watches, by canonical name (the legacy payload's `metric.type`). */
export type MetricTypes = ReadonlyMap<string, 'gauge' | 'counter'>;

/** Librato's legacy payload carried at most 20 measurements (librato-services webhook.rb). */
const LEGACY_MEASUREMENTS = 20;

export function alertNotification(
  kind: 'trigger' | 'clear', alert: AlertRecord, account: string, state: AlertState, now: number,
  metricTypes: MetricTypes = new Map(),
): Notification {
  const violations: Record<string, Violation[]> = {};
  if (kind === 'trigger') {
    for (const byStream of Object.values(state.violations)) {
      for (const [stream, v] of Object.entries(byStream)) (violations[stream] ??= []).push(v);
    }
  }
  const runbook = alert.attributes.runbook_url;
  // a version 1 clear is the same as a version 2 one: Librato's clear payload never depended on the version
  const legacy = kind === 'trigger' && alert.version === 1 ? legacyTrigger(alert, state, metricTypes) : null;
  return {
    kind,
    alert: { id: alert.id, name: alert.name, description: alert.description, runbook_url: typeof runbook === 'string' ? runbook : null, version: alert.version },
    account,
    time: kind === 'trigger' ? state.triggered_at ?? now : now,
    incident_key: state.incident_key ?? `${alert.id}-${now}`,
    conditions: alert.conditions.map((c) => ({
      id: c.id, type: c.type, ...(c.threshold !== null ? { threshold: c.threshold } : {}),
      ...(c.duration !== null ? { duration: c.duration } : {}), summary_function: c.summary_function,
    })),
    violations,
    triggered_by_user_test: false,
    ...(kind === 'clear' ? { clear: state.cleared_by ?? 'normal' } : {}),
    ...(legacy ? { legacy } : {}),
  };
}

/**
 * A version 1 trigger's metric and measurements. Librato's source-era alerts watched one
 * metric; a Gaugeway one may have conditions on several, and the payload has room for
 * one: the metric of the first condition (in the alert's order) with a violating stream,
 * with the violations of every condition on that metric, one measurement a source (the
 * first condition's), each condition's most severe first, so that `measurement` (the
 * first) is the one a receiver reading only it should see.
 */
function legacyTrigger(alert: AlertRecord, state: AlertState, metricTypes: MetricTypes): LegacyTrigger | null {
  const violating = (c: ConditionRecord) => Object.entries(state.violations[c.id] ?? {});
  const first = alert.conditions.find((c) => violating(c).length > 0);
  if (!first) return null;
  const metric = canonicalMetricName(first.metric_name);
  const measurements: LegacyMeasurement[] = [];
  const seen = new Set<string>();
  for (const c of alert.conditions) {
    if (canonicalMetricName(c.metric_name) !== metric) continue;
    for (const [stream, v] of violating(c).sort(mostSevereFirst(c.type))) {
      const source = legacySource(stream);
      if (seen.has(source)) continue;
      seen.add(source);
      measurements.push({ value: v.value, source });
    }
  }
  return {
    // an unknown metric (deleted since) is a gauge: the catalogue's default type
    metric: { name: first.metric_name, type: metricTypes.get(metric) ?? 'gauge' },
    measurements: measurements.slice(0, LEGACY_MEASUREMENTS),
  };
}

/** Highest first above a threshold, lowest first below it, the longest silent first when absent; then by stream. */
function mostSevereFirst(type: ConditionRecord['type']): (a: [string, Violation], b: [string, Violation]) => number {
  const severity = (v: Violation) => (type === 'above' ? -v.value : type === 'below' ? v.value : v.recorded_at);
  return ([sa, a], [sb, b]) => severity(a) - severity(b) || (sa < sb ? -1 : sa > sb ? 1 : 0);
}

/**
 * The source of a stream, as a source-era receiver reads it: the value of its `source` tag
 * when that is its only tag (what POST /v1/metrics stores, and a grouped source filter's
 * pattern), `unassigned` for a stream without tags (Librato's word for no source), and
 * otherwise the stream's `tag=value,...` identity, which names it as the source would.
 */
function legacySource(stream: string): string {
  if (stream === '') return 'unassigned';
  const onlySource = /^source=([^,]*)$/.exec(stream);
  return onlySource ? onlySource[1]! : stream;
}
