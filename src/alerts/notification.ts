// The notification an alert sends, in the terms of Librato's webhook payload (notes §4.3).
import type { AlertRecord } from '../domain/alerts.js';
import type { Notification, Violation } from '../notifiers/plugin.js';
import type { AlertState } from './state.js';

export function alertNotification(
  kind: 'trigger' | 'clear', alert: AlertRecord, account: string, state: AlertState, now: number,
): Notification {
  const violations: Record<string, Violation[]> = {};
  if (kind === 'trigger') {
    for (const byStream of Object.values(state.violations)) {
      for (const [stream, v] of Object.entries(byStream)) (violations[stream] ??= []).push(v);
    }
  }
  const runbook = alert.attributes.runbook_url;
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
  };
}
