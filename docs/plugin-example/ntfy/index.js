// An example notification plugin, loaded by the tests from a configured plugin folder:
// posts a one-line message to an ntfy-style topic URL (https://ntfy.sh/<topic> or your own
// server). Copy the folder into a directory named in notifications.plugin_dirs.

/** @type {import('../../../src/notifiers/plugin.js').NotificationPlugin} */
export default {
  type: 'ntfy',
  secrets: ['token'],
  async send(n, settings, ctx) {
    const title = n.kind === 'clear'
      ? `Alert ${n.alert.name} has cleared`
      : `${n.triggered_by_user_test ? '[Test] ' : ''}Alert ${n.alert.name} has triggered!`;
    const streams = Object.keys(n.violations ?? {});
    const res = await ctx.post(String(settings.url), {
      headers: {
        title,
        tags: n.kind === 'clear' ? 'white_check_mark' : 'warning',
        ...(settings.token ? { authorization: `Bearer ${settings.token}` } : {}),
        ...(ctx.externalUrl ? { click: `${ctx.externalUrl.replace(/\/$/, '')}/` } : {}),
      },
      body: streams.length ? `${title}: ${streams.join('; ')}` : title,
    });
    if (res.status < 200 || res.status >= 300) throw new Error(`ntfy answered HTTP ${res.status}`);
  },
};
