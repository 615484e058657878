import t from 'tap';
import { startTestServer } from '../helpers/server.js';

t.test('PUT creates (201 + Location + body) then updates (204)', async (t) => {
  const s = await startTestServer(t);
  const created = await s.request('PUT', '/v1/metrics/Web.Requests', {
    json: { type: 'gauge', display_name: 'Requests', description: 'per host', period: 60, attributes: { color: '#112233', display_units_short: 'req', summarize_function: 'sum' } },
    headers: { 'user-agent': 'librato-rb/2.0' },
  });
  t.equal(created.status, 201);
  t.equal(created.headers.location, '/v1/metrics/Web.Requests');
  t.same(created.body, {
    name: 'Web.Requests', display_name: 'Requests', description: 'per host', period: 60, type: 'gauge',
    attributes: { color: '#112233', display_units_short: 'req', summarize_function: 'sum', created_by_ua: 'librato-rb/2.0' },
    source_lag: null,
  });

  const updated = await s.request('PUT', '/v1/metrics/web.requests', { json: { description: 'all hosts', attributes: { display_stacked: true, created_by_ua: 'forged' } }, headers: { 'user-agent': 'other' } });
  t.equal(updated.status, 204);
  t.equal(updated.text, '');
  const got = await s.get('/v1/metrics/WEB.requests');
  t.equal(got.status, 200);
  t.equal(got.body.description, 'all hosts');
  t.equal(got.body.display_name, 'Requests', 'fields not sent are kept');
  t.same(got.body.attributes, { color: '#112233', display_units_short: 'req', summarize_function: 'sum', created_by_ua: 'librato-rb/2.0', display_stacked: true });

  // A GET body can be PUT back unchanged.
  t.equal((await s.request('PUT', '/v1/metrics/web.requests', { json: got.body })).status, 204);

  // a key it does not know is refused, not answered 204 with nothing changed
  const typo = await s.request('PUT', '/v1/metrics/web.requests', { json: { perod: 300 } });
  t.equal(typo.status, 400);
  t.same(typo.body, { errors: { params: { perod: ['is not a known field'] } } });
  const form = await s.request('PUT', '/v1/metrics/web.requests', { form: 'perod=300' });
  t.equal(form.status, 400, 'in a form too');
  t.equal((await s.get('/v1/metrics/web.requests')).body.period, 60, 'nothing changed');
});

t.test('PUTs of one new name at once: one creates it (201), the others update it (204)', async (t) => {
  const s = await startTestServer(t);
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => s.request('PUT', '/v1/metrics/raced', { json: { description: `d${i}` } })));
  t.same(answers.map((r) => r.status).sort(), [201, 204, 204, 204, 204, 204, 204, 204]);
});

t.test('attribute and field rules', async (t) => {
  const s = await startTestServer(t);
  const put = (json: unknown, name = 'rules.metric') => s.request('PUT', `/v1/metrics/${name}`, { json });
  const cases: [unknown, Record<string, unknown>][] = [
    [{ attributes: { color: 'red' } }, { 'attributes.color': [/pattern/] }],
    [{ attributes: { color: '#12345' } }, { 'attributes.color': [/pattern/] }],
    [{ attributes: { summarize_function: 'median' } }, { 'attributes.summarize_function': [/must be one of: average, sum, count, min, max/] }],
    [{ attributes: { aggregate: 'yes' } }, { 'attributes.aggregate': ['must be true or false'] }],
    [{ attributes: { display_min: 'low' } }, { 'attributes.display_min': ['must be a number or null'] }],
    [{ attributes: { unknown_attribute: 1 } }, { 'attributes.unknown_attribute': ['is not a known field'] }],
    [{ type: 'histogram' }, { type: [/must be one of/] }],
    [{ period: 0 }, { period: [/>= 1/] }],
    [{ period: 1.5 }, { period: ['must be an integer or null'] }],
    [{ type: 'composite' }, { composite: ['is required for a composite metric'] }],
    [{ composite: 's("a", "*")' }, { composite: ['is only allowed when type is composite'] }],
    [{ period: 5, attributes: { aggregate: true } }, { period: [/10 to 600/] }],
  ];
  for (const [json, params] of cases) {
    const r = await put(json);
    t.equal(r.status, 400, JSON.stringify(json));
    t.match(r.body, { errors: { params } }, JSON.stringify(json));
  }
  const badName = await put({}, 'bad%20name');
  t.equal(badName.status, 400);
  t.match(badName.body, { errors: { params: { name: [/255 characters/] } } });
  t.equal((await put({}, 'x'.repeat(256))).status, 400);
  t.equal((await put({}, 'a.b:c-d_e')).status, 201);

  t.equal((await put({ type: 'composite', composite: 'sum(s("a.*", "*"))' }, 'my.composite')).status, 201);
  const composite = await s.get('/v1/metrics/my.composite');
  t.equal(composite.body.type, 'composite');
  t.equal(composite.body.composite, 'sum(s("a.*", "*"))');
  const change = await put({ type: 'gauge' }, 'my.composite');
  t.equal(change.status, 400);
  t.match(change.body, { errors: { params: { type: [/cannot change/] } } });
  t.equal((await s.get('/v1/metrics/rules.metric')).status, 404, 'no rejected PUT created anything');
});

t.test('a display name is text people read: no control characters, wherever a metric gets one', async (t) => {
  const s = await startTestServer(t);
  const refused = { errors: { params: { display_name: ['must not contain control characters'] } } };
  const put = await s.request('PUT', '/v1/metrics/dn.a', { json: { display_name: 'a\u0007b' } });
  t.equal(put.status, 400);
  t.same(put.body, refused);
  t.equal((await s.get('/v1/metrics/dn.a')).status, 404, 'not created');
  t.equal((await s.request('PUT', '/v1/metrics/dn.a', { json: { display_name: 'A' } })).status, 201);
  t.same((await s.request('PUT', '/v1/metrics/dn.a', { json: { display_name: 'x\ny' } })).body, refused, 'nor on update');
  t.same((await s.request('PUT', '/v1/metrics', { json: { names: ['dn.a'], display_name: 'x\u0000' } })).body, refused, 'nor in a batch');
  t.equal((await s.get('/v1/metrics/dn.a')).body.display_name, 'A');
  const sourced = await s.request('POST', '/v1/metrics', { json: { gauges: { 'dn.b': { value: 1, display_name: 'x\u0000' } } } });
  t.same(sourced.body, { errors: { params: { 'gauges[dn.b].display_name': ['must not contain control characters'] } } }, 'nor on creation by a measurement');
  t.equal((await s.request('PUT', '/v1/metrics/dn.a', { json: { display_name: '', description: 'two\nlines' } })).status, 204, 'empty clears it; a description may have lines');
});

t.test('GET /v1/metrics filters by name and paginates', async (t) => {
  const s = await startTestServer(t);
  for (const n of ['cpu.user', 'cpu.system', 'Mem.free', 'disk.cpu_wait', 'net.rx']) {
    t.equal((await s.request('PUT', `/v1/metrics/${n}`, { json: {} })).status, 201);
  }
  const all = await s.get('/v1/metrics');
  t.same(all.body.query, { found: 5, length: 100, offset: 0, total: 5 });
  t.same(all.body.metrics.map((m: { name: string }) => m.name), ['cpu.system', 'cpu.user', 'disk.cpu_wait', 'Mem.free', 'net.rx'], 'in name order whatever the case');

  const cpu = await s.get('/v1/metrics?name=CPU');
  t.same(cpu.body.query, { found: 3, length: 100, offset: 0, total: 5 });

  const page = await s.get('/v1/metrics?offset=1&length=2&sort=desc');
  t.same(page.body.query, { found: 5, length: 2, offset: 1, total: 5 });
  t.same(page.body.metrics.map((m: { name: string }) => m.name), ['Mem.free', 'disk.cpu_wait']);

  for (const bad of ['length=101', 'length=0', 'offset=-1', 'offset=x', 'sort=up', 'orderby=type']) {
    const r = await s.get(`/v1/metrics?${bad}`);
    t.equal(r.status, 400, bad);
    t.ok(r.body.errors.params, bad);
  }
});

t.test('single and batch delete, by list and by wildcard', async (t) => {
  const s = await startTestServer(t);
  for (const n of ['app.a', 'app.b', 'app.c', 'sys.a', 'sys.b']) await s.request('PUT', `/v1/metrics/${n}`, { json: {} });
  t.equal((await s.request('DELETE', '/v1/metrics/app.a')).status, 204);
  t.equal((await s.request('DELETE', '/v1/metrics/app.a')).status, 404);
  t.equal((await s.request('DELETE', '/v1/metrics', { json: { names: 'APP.*' } })).status, 204);
  t.same((await s.get('/v1/metrics')).body.metrics.map((m: { name: string }) => m.name), ['sys.a', 'sys.b']);
  t.equal((await s.request('DELETE', '/v1/metrics', { json: { names: ['sys.a', 'not.there'] } })).status, 204);
  t.same((await s.get('/v1/metrics')).body.metrics.map((m: { name: string }) => m.name), ['sys.b']);
  const missing = await s.request('DELETE', '/v1/metrics', { json: {} });
  t.equal(missing.status, 400);
  t.same(missing.body.errors.params, { names: ['is required'] });
  t.equal((await s.request('DELETE', '/v1/metrics', { json: { names: [] } })).status, 400);
});

t.test('batch update: names list creates or updates, wildcards touch existing metrics', async (t) => {
  const s = await startTestServer(t);
  await s.request('PUT', '/v1/metrics/svc.latency', { json: { display_name: 'Latency' } });
  await s.request('PUT', '/v1/metrics/svc.errors', { json: {} });
  const r = await s.request('PUT', '/v1/metrics', { json: { names: ['svc.latency', 'svc.new'], period: 30, display_units_short: 'ms' } });
  t.equal(r.status, 204);
  const latency = (await s.get('/v1/metrics/svc.latency')).body;
  t.equal(latency.period, 30);
  t.equal(latency.display_name, 'Latency');
  t.equal(latency.attributes.display_units_short, 'ms');
  t.equal((await s.get('/v1/metrics/svc.new')).body.period, 30);
  t.equal((await s.get('/v1/metrics/svc.errors')).body.period, null);

  t.equal((await s.request('PUT', '/v1/metrics', { form: 'names=svc.*&attributes[color]=%23abcdef' })).status, 204);
  for (const n of ['svc.latency', 'svc.errors', 'svc.new']) t.equal((await s.get(`/v1/metrics/${n}`)).body.attributes.color, '#abcdef');
  t.equal((await s.get('/v1/metrics/svc.nothing')).status, 404, 'a wildcard creates nothing');

  const bad = await s.request('PUT', '/v1/metrics', { json: { names: 'svc.*', color: 'blue' } });
  t.equal(bad.status, 400);
  t.match(bad.body.errors.params, { color: [/pattern/] });
});

t.test('large batches run as jobs: 202 + Location, then GET /v1/jobs/:id', async (t) => {
  const s = await startTestServer(t, 'limits:\n  batch_job_threshold: 3\n');
  const names = Array.from({ length: 8 }, (_, i) => `job.m${i}`);
  const put = await s.request('PUT', '/v1/metrics', { json: { names, period: 120 } });
  t.equal(put.status, 202);
  t.match(put.headers.location, /^\/v1\/jobs\/\d+$/);
  const job = await waitForJob(s, put.headers.location!);
  t.match(job, { state: 'complete', progress: 100 });
  t.equal((await s.get('/v1/metrics')).body.query.total, 8);
  t.equal((await s.get('/v1/metrics/job.m7')).body.period, 120);

  const del = await s.request('DELETE', '/v1/metrics', { json: { names: 'job.*' } });
  t.equal(del.status, 202);
  t.match(await waitForJob(s, del.headers.location!), { state: 'complete', progress: 100, output: { deleted: 8 } });
  t.equal((await s.get('/v1/metrics')).body.query.total, 0);

  // Small batches stay synchronous.
  t.equal((await s.request('PUT', '/v1/metrics', { json: { names: ['a', 'b'] } })).status, 204);

  const other = await s.newAccount('jobs-other@example.com');
  t.equal((await s.get(put.headers.location!, { auth: other })).status, 404, "another account's job is a 404");
  t.equal((await s.get('/v1/jobs/999999')).status, 404);
  t.equal((await s.get('/v1/jobs/abc')).status, 404);
});

async function waitForJob(s: { get(p: string): Promise<{ body: { state: string } }> }, location: string) {
  for (let i = 0; i < 200; i++) {
    const job = (await s.get(location)).body;
    if (job.state === 'complete' || job.state === 'failed') return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('job did not finish');
}

t.test('fields the official clients send: source_lag and attributes.display_transform are stored and returned', async (t) => {
  const s = await startTestServer(t);
  const created = await s.request('PUT', '/v1/metrics/mem.used', { json: { source_lag: 120, attributes: { display_transform: 'x/1024' } } });
  t.equal(created.status, 201);
  t.match(created.body, { source_lag: 120, attributes: { display_transform: 'x/1024' } });
  t.equal((await s.request('PUT', '/v1/metrics/mem.used', { json: { description: 'd' } })).status, 204);
  t.match((await s.get('/v1/metrics/mem.used')).body, { source_lag: 120, attributes: { display_transform: 'x/1024' } }, 'kept by an update that does not name them');
  t.equal((await s.request('PUT', '/v1/metrics', { json: { names: ['mem.used'], display_transform: 'x*8', source_lag: null } })).status, 204);
  t.match((await s.get('/v1/metrics/mem.used')).body, { source_lag: null, attributes: { display_transform: 'x*8' } }, 'batch updates take them too');
  const bad = await s.request('PUT', '/v1/metrics/mem.used', { json: { attributes: { display_transform: 'rm -rf' } } });
  t.equal(bad.status, 400);
  t.match(bad.body, { errors: { params: { attributes: [/^display_transform may contain only/] } } });
  t.equal((await s.request('PUT', '/v1/metrics/mem.used', { json: { source_lag: -1 } })).status, 400);
});
