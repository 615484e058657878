// Alerts: each with its status (firing, recently cleared, ok, or disabled), its
// conditions in a line, and a link to the alert.
import { h, notice, replace, formatTime } from '../dom.js';
import { hashOf } from '../router.js';
import { tagValues } from '../charts/tags.js';
import { listAll } from '../api.js';
import type { Alert, AlertStatusList, Condition } from '../types.js';
import type { View } from './view.js';

export type AlertState = 'firing' | 'cleared' | 'ok' | 'disabled';

export function alertState(alert: Alert, status: AlertStatusList): { state: AlertState; since?: number } {
  const firing = status.firing.find((f) => f.id === alert.id);
  if (firing) return { state: 'firing', since: firing.triggered_at };
  if (!alert.active) return { state: 'disabled' };
  const cleared = status.cleared.find((c) => c.id === alert.id);
  if (cleared) return { state: 'cleared', since: cleared.cleared_at };
  return { state: 'ok' };
}

const LABELS: Record<AlertState, string> = { firing: 'firing', cleared: 'recently cleared', ok: 'ok', disabled: 'disabled' };

export function stateBadge(s: { state: AlertState; since?: number }): HTMLElement {
  return h('span', { class: `badge badge-${s.state}`, 'data-status': s.state, title: s.since ? `since ${formatTime(s.since)}` : null }, LABELS[s.state]);
}

export function describeCondition(c: Condition): string {
  const tags = (c.tags ?? []).map((t) => `${t.name}=${tagValues(t).join('|')}${t.grouped ? ' (each)' : ''}`).join(', ');
  const what = `${c.metric_name}${tags ? ` {${tags}}` : ''}`;
  if (c.type === 'absent') return `${what} absent for ${c.duration} s`;
  return `${c.summary_function ?? 'average'} of ${what} ${c.type} ${c.threshold}${c.duration ? ` for ${c.duration} s` : ''}`;
}

export const alertsView: View = async (ctx) => {
  ctx.setTitle('Alerts');
  const alerts = await listAll<Alert>(ctx.api, 'v1/alerts', 'alerts');
  const status = await ctx.api.get<AlertStatusList>('v1/alerts/status');
  const order: Record<AlertState, number> = { firing: 0, cleared: 1, ok: 2, disabled: 3 };
  const rows = alerts.map((a) => ({ a, s: alertState(a, status) })).sort((x, y) => order[x.s.state] - order[y.s.state] || x.a.name.localeCompare(y.a.name));
  const firing = rows.filter((r) => r.s.state === 'firing').length;
  replace(ctx.main,
    h('div', { class: 'page-head' }, h('h1', {}, 'Alerts'), h('p', { class: 'muted' }, `${alerts.length} alerts, ${firing} firing`)),
    alerts.length ? h('table', { class: 'data-table alerts-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col' }, 'Alert'), h('th', { scope: 'col' }, 'Conditions'), h('th', { scope: 'col' }, 'Services'))),
      h('tbody', {}, rows.map(({ a, s }) => h('tr', { 'data-alert-id': a.id },
        h('td', {}, stateBadge(s)),
        h('td', {}, h('a', { href: hashOf(['alerts', a.id]) }, a.name)),
        h('td', {}, a.conditions.map(describeCondition).join('; ')),
        h('td', {}, a.services.map((svc) => svc.title).join(', '))))))
      : notice('info', 'No alerts yet. Alerts are defined through the API (POST /v1/alerts); see docs/alerts.md.'));
};
