// The webhook notification type, in Librato's format exactly: a form-encoded POST whose
// single field `payload` holds the JSON of the notification (trigger or clear payload).
// Credentials in the URL (https://user:pass@host/...) become HTTP basic auth.

/** @param {import('../../src/notifiers/plugin.js').Notification} n */
export function payload(n) {
  if (n.kind === 'clear') {
    // Librato's webhook says "normal" whatever the reason (manual, auto): receivers written
    // for it match on that value; the reason shows in the mail and Slack texts
    return { alert: n.alert, account: n.account, trigger_time: n.time, clear: 'normal', incident_key: n.incident_key };
  }
  if (n.alert.version === 1 && n.legacy) {
    // a version 1 (source-era) alert's trigger is Librato's legacy payload: one metric,
    // `measurement` the first of `measurements`, no account, incident key or conditions
    const { metric, measurements } = n.legacy;
    return { alert: n.alert, metric, measurement: measurements[0] ?? null, measurements, trigger_time: n.time };
  }
  return {
    alert: n.alert, account: n.account, trigger_time: n.time, incident_key: n.incident_key,
    conditions: n.conditions, violations: n.violations, triggered_by_user_test: n.triggered_by_user_test,
  };
}

/**
 * The error for an answer other than 2xx: permanent (not retried) for a redirect, which is
 * never followed, and for a 4xx but 408 and 429, which a retry would only repeat.
 * @param {number} status
 * @param {string} message
 */
function failure(status, message) {
  const permanent = status >= 300 && status < 500 && status !== 408 && status !== 429;
  return Object.assign(new Error(message), { permanent });
}

/** @type {import('../../src/notifiers/plugin.js').NotificationPlugin} */
export default {
  type: 'webhook',
  async send(n, settings, ctx) {
    const url = new URL(String(settings.url));
    const headers = {
      'content-type': 'application/x-www-form-urlencoded',
      'user-agent': 'Gaugeway webhook',
      'idempotency-key': ctx.idempotencyKey,
    };
    if (url.username || url.password) {
      headers.authorization = 'Basic ' + Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64');
      url.username = '';
      url.password = '';
    }
    const res = await ctx.post(url, { headers, body: new URLSearchParams({ payload: JSON.stringify(payload(n)) }).toString() });
    if (res.status < 200 || res.status >= 300) throw failure(res.status, `the webhook answered HTTP ${res.status}`);
  },
};
