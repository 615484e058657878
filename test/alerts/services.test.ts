// Which services an alert notifies follows its current service list: attaching,
// detaching and deleting services reach the engine at once, not at the next edit of the
// alert or the next start (review, session 19).
import t from 'tap';
import { setup } from '../helpers/alert-setup.js';
import { listener } from '../helpers/listener.js';

t.test('attach and detach: the next notification goes to the services attached now', async (t) => {
  const x = await setup(t);
  const other = await listener(t);
  const sid2 = (await x.s.request('POST', '/v1/services', { json: { title: 'other', type: 'webhook', settings: { url: other.url } } })).body.id;
  const id = await x.alert({ name: 'swap', conditions: [{ type: 'above', metric_name: 'swap', threshold: 10 }] });
  t.equal((await x.s.request('POST', `/v1/alerts/${id}/services`, { json: { service: sid2 } })).status, 201);
  t.equal((await x.s.request('DELETE', `/v1/alerts/${id}/services/${x.sid}`)).status, 204);
  await x.post('swap', [[x.t0 + 60, 50]]);
  await x.evaluate(x.t0 + 65);
  t.equal(other.received.length, 1, 'the attached service is notified');
  t.equal(x.hook.received.length, 0, 'the detached one is not');
});

t.test('a deleted service leaves its alerts: no notification is queued for it', async (t) => {
  const x = await setup(t);
  const other = await listener(t);
  const sid2 = (await x.s.request('POST', '/v1/services', { json: { title: 'other', type: 'webhook', settings: { url: other.url } } })).body.id;
  const id = await x.alert({ name: 'gone', services: [x.sid, sid2], conditions: [{ type: 'above', metric_name: 'gone', threshold: 10 }] });
  t.equal((await x.s.request('DELETE', `/v1/services/${sid2}`)).status, 204);
  t.same((await x.s.get(`/v1/alerts/${id}`)).body.services.map((s: { id: number }) => s.id), [x.sid]);
  await x.post('gone', [[x.t0 + 60, 50]]);
  await x.evaluate(x.t0 + 65);
  t.equal(x.hook.received.length, 1, 'the service left is notified');
  const metrics = (await x.s.get('/metrics')).text;
  t.notMatch(metrics, /gaugeway_notifications_total\{[^}]*result="(failed|dropped)"[^}]*\} [1-9]/, 'nothing failed or dropped for the deleted service');
});
