// The pagerduty notification type: PagerDuty Events API v2. A trigger opens (or updates)
// an incident whose dedup key is the alert's incident key; the alert's clear resolves it.

/**
 * @param {import('../../src/notifiers/plugin.js').Notification} n
 * @param {Record<string, unknown>} settings
 * @param {string | null} externalUrl
 */
export function event(n, settings, externalUrl) {
  const dedup_key = `${settings.incident_key ?? ''}${n.incident_key}`;
  const base = { routing_key: String(settings.service_key), dedup_key };
  if (n.kind === 'clear') return { ...base, event_action: 'resolve' };
  const prefix = settings.description ? `${settings.description}: ` : '';
  const streams = Object.keys(n.violations);
  const link = externalUrl && n.alert.id ? `${externalUrl.replace(/\/+$/, '')}/alerts/${n.alert.id}` : null;
  return {
    ...base,
    event_action: 'trigger',
    payload: {
      summary: `${prefix}${n.triggered_by_user_test ? '[Test] ' : ''}Alert ${n.alert.name} has triggered${streams.length ? ` on ${streams.slice(0, 3).join('; ')}${streams.length > 3 ? ` and ${streams.length - 3} more` : ''}` : ''}`.slice(0, 1024),
      source: 'gaugeway',
      severity: String(settings.severity ?? 'critical'),
      timestamp: new Date(n.time * 1000).toISOString(),
      custom_details: { account: n.account, description: n.alert.description, conditions: n.conditions, violations: n.violations },
    },
    links: [...(link ? [{ href: link, text: 'Alert in Gaugeway' }] : []), ...(n.alert.runbook_url ? [{ href: n.alert.runbook_url, text: 'Runbook' }] : [])],
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
  type: 'pagerduty',
  secrets: ['service_key'],
  async send(n, settings, ctx) {
    const base = String(settings.base_url ?? 'https://events.pagerduty.com').replace(/\/+$/, '');
    const res = await ctx.post(`${base}/v2/enqueue`, {
      headers: { 'content-type': 'application/json', 'user-agent': 'Gaugeway pagerduty' },
      body: JSON.stringify(event(n, settings, ctx.externalUrl)),
    });
    const text = res.text;
    // 202 Accepted is PagerDuty's answer; 400 says what is wrong, 429 asks to retry later
    if (res.status < 200 || res.status >= 300) throw failure(res.status, `PagerDuty answered HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
  },
};
