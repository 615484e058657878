// An alert edited while it fires: the violations it keeps are those of streams its
// conditions still watch (review 21). An edit that keeps a condition's id but narrows its
// tag filters, or a metric deleted under it, left the old stream's violation in the state
// for good: the alert stayed triggered while every stream it watched was normal.
import t from 'tap';
import { setup } from '../helpers/alert-setup.js';
import { poll } from '../helpers/poll.js';

t.test('an edit that narrows a firing condition to other streams drops the violations of the streams it left', async (t) => {
  const x = await setup(t);
  const id = await x.alert({ name: 'narrow', conditions: [{ type: 'above', metric_name: 'cpu', threshold: 10 }] });
  const condition = (await x.s.get(`/v1/alerts/${id}`)).body.conditions[0];
  await x.post('cpu', [[x.t0 + 10, 50]], { host: 'web1' });
  await x.evaluate(x.t0 + 20);
  t.same(x.payloads().map((p) => Object.keys(p.violations)), [['host=web1']], 'web1 fires it');
  const edit = await x.s.request('PUT', `/v1/alerts/${id}`, { json: { conditions: [{ ...condition, tags: [{ name: 'host', values: ['web2'], grouped: false }] }] } });
  t.equal(edit.status, 204);
  t.equal((await x.s.get(`/v1/alerts/${id}`)).body.conditions[0].id, condition.id, 'the condition keeps its id');
  const now = Math.floor(Date.now() / 1000);
  await x.post('cpu', [[now + 30, 1]], { host: 'web2' });
  await x.post('cpu', [[now + 30, 50]], { host: 'web1' });
  await x.evaluate(now + 40);
  t.equal((await x.s.get(`/v1/alerts/${id}/status`)).body.status, 'ok', 'web2, the only stream watched now, is normal');
  t.same(x.payloads().map((p) => p.clear ?? 'trigger'), ['trigger', 'normal'], 'and the clear is sent');
});

t.test('a firing alert whose metric is deleted clears: no stream it watches violates any more', async (t) => {
  const x = await setup(t);
  const id = await x.alert({ name: 'gone', conditions: [{ type: 'above', metric_name: 'gone', threshold: 10 }] });
  await x.post('gone', [[x.t0 + 10, 50]]);
  await x.evaluate(x.t0 + 20);
  t.equal(x.payloads().length, 1);
  t.equal((await x.s.request('DELETE', '/v1/metrics/gone')).status, 204);
  await poll(async () => ((await x.s.get('/v1/metrics/gone')).status === 404 ? true : undefined));
  await x.evaluate(x.t0 + 30);
  t.equal((await x.s.get(`/v1/alerts/${id}/status`)).body.status, 'ok');
  t.same(x.payloads().map((p) => p.clear ?? 'trigger'), ['trigger', 'normal']);
});
