// The alerts API (spec "Alerts", notes §5): every validation rule, list filters and
// pagination, services attached and detached, PUT without conditions, delete, accounts
// apart. The engine's rules are in test/alerts/engine.test.ts.
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';

async function service(s: TestServer, title = 'hook'): Promise<number> {
  return (await s.request('POST', '/v1/services', { json: { title, type: 'webhook', settings: { url: 'https://hooks.example.com/x' } } })).body.id;
}

const above = { type: 'above', metric_name: 'cpu', threshold: 90 };

t.test('create, read, list, update, delete', async (t) => {
  const s = await startTestServer(t);
  const sid = await service(s);
  const created = await s.request('POST', '/v1/alerts', { json: { name: 'cpu.high', description: 'CPU', conditions: [{ ...above, duration: 300, tags: [{ name: 'host', values: ['web*'], grouped: false }] }], services: [sid], attributes: { runbook_url: 'https://wiki/cpu' } } });
  t.equal(created.status, 201);
  const id = created.body.id;
  t.equal(created.headers.location, `/v1/alerts/${id}`);
  t.match(created.body, {
    id, name: 'cpu.high', description: 'CPU', version: 2, active: true, rearm_seconds: 600, rearm_per_signal: false, md: true,
    attributes: { runbook_url: 'https://wiki/cpu' },
    services: [{ id: sid, type: 'webhook', title: 'hook', settings: { url: 'https://hooks.example.com/x' } }],
    conditions: [{ type: 'above', metric_name: 'cpu', source: null, threshold: 90, duration: 300, summary_function: 'average', detect_reset: false, tags: [{ name: 'host', values: ['web*'], grouped: false }] }],
  });
  t.type(created.body.conditions[0].id, 'number');
  t.type(created.body.created_at, 'number');
  t.same((await s.get(`/v1/alerts/${id}`)).body, created.body);

  // PUT keeps condition ids it is sent back, and a PUT without conditions removes them (the spec)
  const cid = created.body.conditions[0].id;
  t.equal((await s.request('PUT', `/v1/alerts/${id}`, { json: { ...created.body, services: [sid], rearm_seconds: 120, conditions: [{ ...created.body.conditions[0], threshold: 95 }] } })).status, 204);
  const updated = (await s.get(`/v1/alerts/${id}`)).body;
  t.equal(updated.rearm_seconds, 120);
  t.same(updated.conditions.map((c: { id: number; threshold: number }) => [c.id, c.threshold]), [[cid, 95]]);
  t.equal((await s.request('PUT', `/v1/alerts/${id}`, { json: { name: 'cpu.high' } })).status, 204);
  t.same((await s.get(`/v1/alerts/${id}`)).body.conditions, [], 'conditions left out are removed');

  await s.request('POST', '/v1/alerts', { json: { name: 'disk.full', version: 1, conditions: [above], services: [sid] } });
  const list = await s.get('/v1/alerts');
  t.same(list.body.alerts.map((a: { name: string }) => a.name).sort(), ['cpu.high', 'disk.full']);
  t.same(list.body.query, { found: 2, length: 100, offset: 0, total: 2 });
  t.same((await s.get('/v1/alerts?name=CPU')).body.alerts.map((a: { name: string }) => a.name), ['cpu.high'], 'name is a case-insensitive substring filter');
  t.same((await s.get('/v1/alerts?name=cpu')).body.query, { found: 1, length: 100, offset: 0, total: 2 }, 'filtered: found counts the matches, total every alert owned');
  t.same((await s.get('/v1/alerts?version=1')).body.alerts.map((a: { name: string }) => a.name), ['disk.full']);
  t.same((await s.get('/v1/alerts?length=1')).body.alerts.length, 1);
  t.equal((await s.get('/v1/alerts?version=3')).status, 400);
  t.same((await s.get('/v1/alerts?name=cpu&name=disk')).body, { errors: { params: { name: ['must be given once'] } } }, 'a repeated filter is a 400, not the first value');
  t.same((await s.get('/v1/alerts?version=1&version=2')).body, { errors: { params: { version: ['must be given once'] } } });

  const other = await s.newAccount('other@example.com');
  t.equal((await s.get(`/v1/alerts/${id}`, { auth: other })).status, 404, 'another account\'s alert does not exist for them');
  t.same((await s.get('/v1/alerts', { auth: other })).body.alerts, []);
  t.equal((await s.request('DELETE', `/v1/alerts/${id}`)).status, 204);
  t.equal((await s.get(`/v1/alerts/${id}`)).status, 404);
  t.equal((await s.request('DELETE', `/v1/alerts/${id}`)).status, 404);
});

t.test('every rule of an alert and its conditions is a 400 naming the field; a taken name is a 422', async (t) => {
  const s = await startTestServer(t);
  const sid = await service(s);
  const post = async (json: Record<string, unknown>) => (await s.request('POST', '/v1/alerts', { json: { name: 'a', conditions: [above], services: [sid], ...json } }));
  const params = async (json: Record<string, unknown>) => { const r = await post(json); t.equal(r.status, 400, JSON.stringify(json)); return r.body.errors?.params; };
  t.same(await params({ name: undefined }), { name: ['is required'] });
  t.same(await params({ name: 'has space' }), { name: ['must be 1-255 characters of letters, digits, . : -'] });
  t.same(await params({ name: 'x'.repeat(256) }), { name: ['must NOT have more than 255 characters'] });
  t.same(await params({ conditions: [] }), { conditions: ['at least one condition is required'] });
  t.same(await params({ services: [] }), { services: ['at least one service is required'] });
  t.same(await params({ services: [sid + 100] }), { services: ['must name services of this account by id'] });
  t.same(await params({ rearm_seconds: 90 }), { rearm_seconds: ['must be a positive multiple of 60'] });
  t.same(await params({ version: 3 }), { version: ['must be 1 or 2'] });
  t.same(await params({ attributes: { runbook_url: 'not a url' } }), { attributes: ['runbook_url must be an http or https URL'] });
  t.same(await params({ attributes: { notes: 'n'.repeat(16 * 1024) } }), { attributes: ['must be at most 16 KiB as JSON'] });
  t.equal((await post({ name: 'roomy', attributes: { notes: 'n'.repeat(16 * 1024 - 20) } })).status, 201, 'attributes just within the bound are taken');
  const cond = async (c: Record<string, unknown>) => (await params({ conditions: [c] }))?.['conditions[0]'];
  t.same(await cond({ ...above, type: 'between' }), ['type must be one of above, below, absent']);
  t.same(await cond({ ...above, metric_name: 'bad name' }), ['metric_name must be 1-255 characters of letters, digits, . : - _']);
  t.same(await cond({ type: 'below', metric_name: 'cpu' }), ['threshold is required for below']);
  t.same(await cond({ type: 'above', metric_name: 'cpu' }), ['threshold is required for above']);
  t.same(await cond({ ...above, summary_function: 'median' }), ['summary_function must be one of min, max, average, sum, count, derivative']);
  t.same(await cond({ ...above, duration: 30 }), ['duration must be an integer from 60 to 3600 seconds']);
  t.same(await cond({ ...above, duration: 3601 }), ['duration must be an integer from 60 to 3600 seconds']);
  t.same(await cond({ type: 'absent', metric_name: 'cpu' }), ['duration is required for absent']);
  t.same(await cond({ ...above, tags: [{ name: 'host' }] }), ['tags must be {name, values: [patterns], grouped: boolean}']);
  t.same(await cond({ ...above, tags: [{ name: 'host', values: ['a=b'] }] }), ['tags: pattern "a=b" for tag host is invalid'], 'what a query filter refuses, an alert refuses at creation');
  t.same(await cond({ ...above, tags: [{ name: 'a/b', values: ['x'] }] }), ['tags: tag name "a/b" is invalid']);
  t.same(await cond({ ...above, detect_reset: 'yes' }), ['detect_reset must be true or false']);
  t.same(await cond({ ...above, tags: Array.from({ length: 51 }, (_, i) => ({ name: `t${i}`, values: ['x'] })) }), ['tags: at most 50 tags a condition']);
  t.same(await cond({ ...above, tags: [{ name: 'host', values: Array.from({ length: 101 }, (_, i) => `h${i}`) }] }), ['tags: at most 100 values a tag']);
  t.same(await cond({ ...above, source: 5 }), ['source must be a source name or a pattern with * (a string), or null'], 'a source that is not a pattern (a pattern is the tag filter on source: test/alerts/source-conditions.test.ts)');
  t.equal((await post({ name: 'ok', rearm_seconds: null })).body.rearm_seconds, 600, 'rearm_seconds null gives 600');
  const taken = await post({ name: 'OK' });
  t.equal(taken.status, 422);
  t.same(taken.body, { errors: { params: { name: ['has already been taken'] } } });
  t.equal((await post({ name: 'b', colour: 'red' })).status, 400, 'an unknown field is refused');
});

t.test('form bodies: condition fields are coerced to their types, as top-level ones are', async (t) => {
  const s = await startTestServer(t);
  const svc = await service(s);
  const made = await s.request('POST', '/v1/alerts', { form: `name=form.a&conditions[0][type]=above&conditions[0][metric_name]=cpu&conditions[0][threshold]=5.5&conditions[0][duration]=120&conditions[1][type]=absent&conditions[1][metric_name]=cpu&conditions[1][duration]=60&services[]=${svc}&rearm_seconds=120` });
  t.equal(made.status, 201);
  t.match(made.body.conditions, [{ type: 'above', threshold: 5.5, duration: 120 }, { type: 'absent', duration: 60 }]);
  const bad = await s.request('POST', '/v1/alerts', { form: `name=form.b&conditions[0][type]=above&conditions[0][metric_name]=cpu&conditions[0][threshold]=high&services[]=${svc}` });
  t.equal(bad.status, 400, 'a value that is no number is still refused');
  t.match(bad.body, { errors: { params: { 'conditions[0].threshold': [/number/] } } });
  const grouped = await s.request('POST', '/v1/alerts', { form: `name=form.g&conditions[0][type]=above&conditions[0][metric_name]=cpu&conditions[0][threshold]=5&conditions[0][tags][0][name]=host&conditions[0][tags][0][values][]=web*&conditions[0][tags][0][grouped]=true&services[]=${svc}` });
  t.equal(grouped.status, 201, `a grouped tag filter: ${grouped.text.slice(0, 200)}`);
  t.match(grouped.body.conditions, [{ tags: [{ name: 'host', values: ['web*'], grouped: true }] }]);
  const json = await s.request('POST', '/v1/alerts', { json: { name: 'json.a', conditions: [{ ...above, threshold: '5' }], services: [svc] } });
  t.equal(json.status, 400, 'JSON is not coerced');
});

t.test('an alert on a persisted composite metric is refused: alerts evaluate stored series', async (t) => {
  const s = await startTestServer(t);
  const svc = await service(s);
  t.equal((await s.request('PUT', '/v1/metrics/cpu.sum', { json: { type: 'composite', composite: 'sum(s("cpu", "*"))' } })).status, 201);
  const r = await s.request('POST', '/v1/alerts', { json: { name: 'on.composite', conditions: [{ ...above, metric_name: 'CPU.sum' }], services: [svc] } });
  t.equal(r.status, 400);
  t.match(r.body, { errors: { params: { 'conditions[0]': [/cpu\.sum is a composite metric, which alerts cannot evaluate/i] } } });
  t.equal((await s.request('POST', '/v1/alerts', { json: { name: 'on.cpu', conditions: [above], services: [svc] } })).status, 201, 'the metric it reads is fine');
});

t.test('services are added and removed; deleting a service detaches it from every alert', async (t) => {
  const s = await startTestServer(t);
  const a = await service(s, 'a');
  const b = await service(s, 'b');
  const id = (await s.request('POST', '/v1/alerts', { json: { name: 'x', conditions: [above], services: [a] } })).body.id;
  const added = await s.request('POST', `/v1/alerts/${id}/services`, { json: { service: b } });
  t.equal(added.status, 201);
  t.equal(added.headers.location, `/v1/alerts/${id}/services/${b}`);
  t.match(added.headers['content-type'], /^application\/json/);
  t.same(added.body.services.map((x: { id: number }) => x.id), [a, b], 'the answer is the alert with its services');
  t.same((await s.get(`/v1/alerts/${id}`)).body.services.map((x: { id: number }) => x.id), [a, b]);
  t.equal((await s.request('POST', `/v1/alerts/${id}/services`, { json: { service: 9999 } })).status, 400);
  t.equal((await s.request('DELETE', `/v1/alerts/${id}/services/${a}`)).status, 204);
  t.equal((await s.request('DELETE', `/v1/alerts/${id}/services/${a}`)).status, 404);
  const last = await s.request('DELETE', `/v1/alerts/${id}/services/${b}`);
  t.equal(last.status, 422, 'the last service stays: an alert keeps at least one');
  t.match(last.body, { errors: { params: { service: [/last service/] } } });
  const emptied = await s.request('PUT', `/v1/alerts/${id}`, { json: { name: 'x', conditions: [above], services: [] } });
  t.equal(emptied.status, 400, 'nor can an update leave it none');
  t.match(emptied.body, { errors: { params: { services: ['at least one service is required'] } } });
  t.equal((await s.request('PUT', `/v1/alerts/${id}`, { json: { name: 'x', conditions: [above] } })).status, 204, 'left out, the services stay');
  t.same((await s.get(`/v1/alerts/${id}`)).body.services.map((x: { id: number }) => x.id), [b]);
  t.equal((await s.request('DELETE', `/v1/services/${b}`)).status, 204);
  t.same((await s.get(`/v1/alerts/${id}`)).body.services, [], 'the deleted service is gone from the alert');
});

t.test('status of one alert and of all; clear answers 204; roles', async (t) => {
  const s = await startTestServer(t);
  const sid = await service(s);
  const id = (await s.request('POST', '/v1/alerts', { json: { name: 'x', conditions: [above], services: [sid] } })).body.id;
  t.same((await s.get(`/v1/alerts/${id}/status`)).body, { alert: { id }, status: 'ok' });
  t.same((await s.get('/v1/alerts/status')).body, { firing: [], cleared: [] });
  t.equal((await s.request('POST', `/v1/alerts/${id}/clear`)).status, 204);
  t.equal((await s.request('POST', '/v1/alerts/9999/clear')).status, 404);
  const viewer = await s.newAccount('viewer@example.com', 'viewer');
  t.equal((await s.get('/v1/alerts', { auth: viewer })).status, 200);
  t.equal((await s.request('POST', '/v1/alerts', { auth: viewer, json: { name: 'y', conditions: [above], services: [sid] } })).status, 403);
});
