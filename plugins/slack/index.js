// The slack notification type: a message to a Slack incoming webhook (JSON POST), red
// for a trigger, green for a clear, with the alert's violations and links.

/** @param {number} t */
const when = (t) => new Date(t * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

/**
 * @param {import('../../src/notifiers/plugin.js').Notification} n
 * @param {string | null} externalUrl
 */
export function message(n, externalUrl) {
  const link = externalUrl && n.alert.id ? `${externalUrl.replace(/\/+$/, '')}/alerts/${n.alert.id}` : undefined;
  const test = n.triggered_by_user_test ? '[Test] ' : '';
  if (n.kind === 'clear') {
    return {
      text: `Alert ${n.alert.name} has cleared.`,
      attachments: [{ color: 'good', title: `Alert ${n.alert.name} has cleared`, title_link: link, text: `Cleared at ${when(n.time)} (${n.clear ?? 'normal'}).`, footer: `Gaugeway · ${n.account}` }],
    };
  }
  const conditions = new Map(n.conditions.map((c) => [c.id, c]));
  const lines = [];
  for (const [stream, violations] of Object.entries(n.violations)) {
    for (const v of violations) {
      const c = conditions.get(v.condition_violated);
      lines.push(c?.type === 'absent'
        ? `• \`${stream}\` ${v.metric} absent for ${c.duration} s`
        : `• \`${stream}\` ${v.metric} = ${v.value} (${c?.type ?? 'above'} ${c?.threshold}) at ${when(v.recorded_at)}`);
    }
  }
  if (n.alert.description) lines.unshift(n.alert.description);
  if (n.alert.runbook_url) lines.push(`Runbook: ${n.alert.runbook_url}`);
  return {
    text: `${test}Alert ${n.alert.name} has triggered!`,
    attachments: [{ color: 'danger', title: `${test}Alert ${n.alert.name} has triggered!`, title_link: link, text: lines.join('\n'), footer: `Gaugeway · ${n.account}` }],
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
  type: 'slack',
  async send(n, settings, ctx) {
    const res = await ctx.post(String(settings.url), {
      headers: { 'content-type': 'application/json', 'user-agent': 'Gaugeway slack', 'idempotency-key': ctx.idempotencyKey },
      body: JSON.stringify(message(n, ctx.externalUrl)),
    });
    const text = res.text;
    if (res.status < 200 || res.status >= 300) throw failure(res.status, `Slack answered HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
  },
};
