// A notification service and its delivery log (the last deliveries, newest first).
import { h, replace, formatTime } from '../dom.js';
import type { Delivery, Service } from '../types.js';
import type { View } from './view.js';

export const serviceView: View = async (ctx) => {
  const id = Number(ctx.params.id);
  const [service, log] = await Promise.all([ctx.api.get<Service>(`v1/services/${id}`), ctx.api.get<{ deliveries: Delivery[] }>(`v1/services/${id}/deliveries`)]);
  ctx.setTitle(service.title);
  replace(ctx.main,
    h('p', {}, h('a', { href: '#/alerts' }, '← Alerts')),
    h('div', { class: 'page-head' }, h('h1', {}, service.title), h('span', { class: 'badge' }, service.type)),
    h('h2', {}, 'Deliveries'),
    log.deliveries.length ? h('table', { class: 'data-table deliveries' },
      h('thead', {}, h('tr', {}, ['Time', 'Kind', 'Result', 'Error', 'Duration'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, log.deliveries.map((d) => h('tr', {},
        h('td', {}, formatTime(d.time / 1000)), h('td', {}, d.kind),
        h('td', {}, h('span', { class: `badge badge-${d.status === 'sent' || d.status === 'ok' ? 'ok' : 'firing'}` }, d.status)),
        h('td', {}, d.error ?? ''), h('td', {}, d.duration_ms !== undefined ? `${d.duration_ms} ms` : '')))))
      : h('p', { class: 'muted' }, 'Nothing delivered yet.'));
};
