// A notification as the alert engine hands it to the outbox, for tests of the outbox and
// the plugins; and an alert fired through the API, for tests of delivery end to end.
import type { Notification } from '../../src/notifiers/plugin.js';
import type { TestServer } from './server.js';

/** A trigger of alert `alert` (named a<alert>, incident k<alert>). */
export function sampleNotification(alert = 1): Notification {
  return {
    kind: 'trigger', alert: { id: alert, name: `a${alert}`, description: null, runbook_url: null, version: 2 }, account: 'a@example.com',
    time: 0, incident_key: `k${alert}`, conditions: [], violations: {}, triggered_by_user_test: false,
  };
}

/** Creates an alert on `services` and makes it fire (its schedule must never run on its own). */
export async function fireAlert(s: TestServer, services: number[]): Promise<void> {
  const t0 = Math.floor(Date.now() / 1000) + 5;
  const r = await s.request('POST', '/v1/alerts', { json: { name: 'a', services, conditions: [{ type: 'above', metric_name: 'cpu', threshold: 1 }] } });
  if (r.status !== 201) throw new Error(r.text);
  await s.request('POST', '/v1/measurements', { json: { tags: { host: 'a' }, measurements: [{ name: 'cpu', time: t0 + 1, value: 5 }] } });
  await s.server.rt.alertEngine.evaluateAll(t0 + 2);
}
