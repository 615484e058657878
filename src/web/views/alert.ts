// One alert: status, conditions, services (each linking to its delivery log), and the
// two things people do from here: clear it, and enable or disable it.
import { h, notice, replace, safeHref } from '../dom.js';
import { hashOf } from '../router.js';
import { alertState, describeCondition, stateBadge } from './alerts.js';
import type { Alert, AlertStatusList } from '../types.js';
import type { View } from './view.js';

/** The alert as PUT takes it: services by id, conditions as they are (the PUT replaces them). */
export function alertUpdate(a: Alert, active: boolean): Record<string, unknown> {
  return {
    name: a.name, description: a.description ?? undefined, version: a.version, conditions: a.conditions, services: a.services.map((s) => s.id),
    attributes: a.attributes ?? {}, active, rearm_seconds: a.rearm_seconds ?? null, md: a.md,
  };
}

export const alertView: View = async (ctx) => {
  const id = Number(ctx.params.id);
  const draw = async () => {
    const [alert, status] = await Promise.all([ctx.api.get<Alert>(`v1/alerts/${id}`), ctx.api.get<AlertStatusList>('v1/alerts/status')]);
    ctx.setTitle(alert.name);
    const state = alertState(alert, status);
    const message = h('div', { 'aria-live': 'polite' });
    const act = (what: Promise<unknown>) => what.then(draw, (err: unknown) => replace(message, notice('error', err instanceof Error ? err.message : String(err))));
    const runbook = typeof alert.attributes?.runbook_url === 'string' ? safeHref(alert.attributes.runbook_url) : null;
    replace(ctx.main,
      h('p', {}, h('a', { href: '#/alerts' }, '← Alerts')),
      h('div', { class: 'page-head' }, h('h1', {}, alert.name), stateBadge(state)),
      alert.description ? h('p', {}, alert.description) : null,
      runbook ? h('p', {}, h('a', { href: runbook, target: '_blank', rel: 'noopener noreferrer' }, 'Runbook')) : null,
      h('div', { class: 'actions' },
        h('button', { type: 'button', id: 'alert-clear', disabled: state.state !== 'firing', onclick: () => act(ctx.api.send('POST', `v1/alerts/${id}/clear`)) }, 'Clear'),
        h('button', { type: 'button', id: 'alert-toggle', onclick: () => act(ctx.api.send('PUT', `v1/alerts/${id}`, alertUpdate(alert, !alert.active))) }, alert.active ? 'Disable' : 'Enable')),
      message,
      h('h2', {}, 'Conditions'),
      h('p', { class: 'muted' }, 'The alert fires when all of them hold.'),
      h('ul', { class: 'conditions' }, alert.conditions.map((c) => h('li', {}, describeCondition(c)))),
      h('h2', {}, 'Notification services'),
      h('ul', { class: 'link-list' }, alert.services.map((s) => h('li', {}, h('a', { href: hashOf(['services', s.id]) }, s.title), ` (${s.type})`))),
      h('p', { class: 'muted' }, `Re-notifies at most every ${alert.rearm_seconds ?? 600} s while firing.`));
  };
  await draw();
};
