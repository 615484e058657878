// When the engine's tracking of an alert begins again: a change to what is judged (its
// conditions, `active`) restarts it; attaching or detaching a service, or an edit of the
// description that echoes the conditions, does not, so a `duration` building up goes on.
import t from 'tap';
import { setup } from '../helpers/alert-setup.js';
import { poll } from '../helpers/poll.js';

/** Waits for the wall clock to pass `second` (tracking starts are whole seconds). */
const after = (second: number) => poll(async () => (Math.floor(Date.now() / 1000) > second ? true : undefined));

t.test('service and description edits keep a duration building', async (t) => {
  const x = await setup(t);
  const other = (await x.s.request('POST', '/v1/services', { json: { title: 'other', type: 'webhook', settings: { url: x.hook.url } } })).body.id;
  const condition = { type: 'above', metric_name: 'load', threshold: 5, duration: 60 };
  const id = await x.alert({ name: 'load.high', conditions: [condition] });
  const created = Math.floor(Date.now() / 1000);
  await x.post('load', [[created + 1, 9]]);
  await after(created + 1);
  // each of these changes updated_at, after the first violating point
  t.equal((await x.s.request('POST', `/v1/alerts/${id}/services`, { json: { service: other } })).status, 201);
  t.equal((await x.s.request('DELETE', `/v1/alerts/${id}/services/${other}`)).status, 204);
  const alert = (await x.s.get(`/v1/alerts/${id}`)).body;
  t.equal(alert.tracking_from, undefined, 'the engine\'s own field is not shown');
  t.equal((await x.s.request('PUT', `/v1/alerts/${id}`, { json: { description: 'edited', conditions: alert.conditions } })).status, 204);
  await x.post('load', [[created + 61, 9]]);
  await x.evaluate(created + 65);
  t.same(x.payloads().map((p) => p.alert.name), ['load.high'], 'the points from before the edits span the duration');
});

t.test('a condition edit restarts tracking', async (t) => {
  const x = await setup(t);
  const condition = { type: 'above', metric_name: 'load2', threshold: 5, duration: 60 };
  const id2 = await x.alert({ name: 'load.other', conditions: [condition] });
  const created2 = Math.floor(Date.now() / 1000);
  await x.post('load2', [[created2 + 1, 9]]);
  await after(created2 + 1);
  t.equal((await x.s.request('PUT', `/v1/alerts/${id2}`, { json: { conditions: [{ ...condition, threshold: 6 }] } })).status, 204);
  await x.post('load2', [[created2 + 61, 9]]);
  await x.evaluate(created2 + 65);
  t.same(x.payloads(), [], 'a changed threshold: only points after the edit count, and one point spans no duration');
});
