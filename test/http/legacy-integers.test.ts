// Integer fields read from JSON: `6e300` has no fraction, so JSON Schema's `integer` takes
// it, but no count, id or duration of ours is that large, and past 2^53 a number no longer
// reads back as sent. Such values are 400s under the field's name, in JSON and form bodies.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

t.test('a chart\'s related_space must be a safe integer', async (t) => {
  const s = await startTestServer(t);
  const space = (await s.request('POST', '/v1/spaces', { json: { name: 'ops' } })).body.id as number;
  const chart = (body: Record<string, unknown> | string) =>
    s.request('POST', `/v1/spaces/${space}/charts`, typeof body === 'string' ? { form: body } : { json: { name: 'c', ...body } });
  for (const n of [6e300, 2 ** 60, -(2 ** 60), Number.MAX_SAFE_INTEGER + 1]) {
    const r = await chart({ related_space: n });
    t.equal(r.status, 400, `related_space ${n}`);
    t.ok(r.body?.errors?.params?.related_space, `refused under related_space: ${r.text}`);
  }
  t.equal((await chart('name=c&related_space=6e300')).status, 400, 'a form value too');
  const ok = await chart({ related_space: Number.MAX_SAFE_INTEGER });
  t.equal(ok.status, 201, 'the largest safe integer is taken');
  t.equal(ok.body.related_space, Number.MAX_SAFE_INTEGER, 'and answered as sent');
  const put = await s.request('PUT', `/v1/spaces/${space}/charts/${ok.body.id}`, { json: { related_space: 6e300 } });
  t.equal(put.status, 400, 'an update is checked the same way');
});

t.test('an alert\'s rearm_seconds is at most a year', async (t) => {
  const s = await startTestServer(t);
  const service = (await s.request('POST', '/v1/services', { json: { title: 'hook', type: 'webhook', settings: { url: 'https://hooks.example.com/x' } } })).body.id as number;
  const post = (name: string, rearm: number) => s.request('POST', '/v1/alerts', {
    json: { name, conditions: [{ type: 'above', metric_name: 'cpu', threshold: 1 }], services: [service], rearm_seconds: rearm },
  });
  for (const n of [6e300, 6e18, 365 * 86400 + 60]) {
    const r = await post(`a${n}`, n);
    t.equal(r.status, 400, `rearm_seconds ${n}`);
    t.ok(r.body?.errors?.params?.rearm_seconds, `refused under rearm_seconds: ${r.text}`);
  }
  const form = await s.request('POST', '/v1/alerts', {
    form: `name=f&conditions[0][type]=above&conditions[0][metric_name]=cpu&conditions[0][threshold]=1&services[]=${service}&rearm_seconds=6e300`,
  });
  t.equal(form.status, 400, 'a form value too');
  const year = await post('year', 365 * 86400);
  t.equal(year.status, 201, 'a year is taken');
  t.equal(year.body.rearm_seconds, 365 * 86400);
  const put = await s.request('PUT', `/v1/alerts/${year.body.id}`, { json: { rearm_seconds: 6e300 } });
  t.equal(put.status, 400, 'an update is checked the same way');
});
