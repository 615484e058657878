// Batch updates and deletes with `exclude`, in JSON and form bodies, immediate and as
// jobs; a batch key we do not understand is a 400 naming it, and changes nothing.
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hourBase, post } from '../helpers/measurements.js';
import { poll } from '../helpers/poll.js';

async function withData(s: TestServer, names: string[], base: number) {
  t.equal((await post(s, { measurements: names.map((name) => ({ name, value: 7, time: base, tags: { host: 'a' } })) })).status, 200);
}

async function points(s: TestServer, name: string, base: number): Promise<number | null> {
  const r = await s.get(`/v1/measurements/${name}?start_time=${base}&end_time=${base + 59}&resolution=60`);
  return r.status === 200 ? r.body.series.reduce((n: number, x: { measurements: unknown[] }) => n + x.measurements.length, 0) : null;
}

async function job(s: TestServer, location: string) {
  return poll(async () => {
    const j = (await s.get(location)).body;
    return j.state === 'complete' || j.state === 'failed' ? j : undefined;
  });
}

t.test('DELETE with exclude keeps the excluded metric and its data', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  await withData(s, ['foo', 'foobar', 'foobaz', 'food.x'], base);
  const del = await s.request('DELETE', '/v1/metrics', { json: { names: 'fo*', exclude: ['foobar', 'food.*'] } });
  t.equal(del.status, 204);
  t.equal((await s.get('/v1/metrics/foo')).status, 404);
  t.equal((await s.get('/v1/metrics/foobaz')).status, 404);
  t.equal((await s.get('/v1/metrics/foobar')).status, 200, 'the excluded metric is kept');
  t.equal(await points(s, 'foobar', base), 1, 'with its data');
  t.equal(await points(s, 'food.x', base), 1, 'a pattern excludes too');

  const form = await s.request('DELETE', '/v1/metrics', { form: 'names=fo*&exclude[]=foobar' });
  t.equal(form.status, 204);
  t.equal((await s.get('/v1/metrics/food.x')).status, 404);
  t.equal(await points(s, 'foobar', base), 1, 'form bodies take exclude too');
  const single = await s.request('DELETE', '/v1/metrics', { form: 'names[]=foobar&exclude=foobar' });
  t.equal(single.status, 204);
  t.equal((await s.get('/v1/metrics/foobar')).status, 200, 'exclude as one string');
});

t.test('PUT with exclude leaves the excluded metrics as they were', async (t) => {
  const s = await startTestServer(t);
  for (const n of ['svc.a', 'svc.b', 'svc.c']) t.equal((await s.request('PUT', `/v1/metrics/${n}`, { json: { period: 60 } })).status, 201);
  t.equal((await s.request('PUT', '/v1/metrics', { json: { names: 'svc.*', exclude: 'svc.b', period: 300 } })).status, 204);
  t.same(await Promise.all(['svc.a', 'svc.b', 'svc.c'].map(async (n) => (await s.get(`/v1/metrics/${n}`)).body.period)), [300, 60, 300]);
  t.equal((await s.request('PUT', '/v1/metrics', { json: { names: ['svc.x', 'svc.y'], exclude: ['svc.y'] } })).status, 204);
  t.equal((await s.get('/v1/metrics/svc.y')).status, 404, 'an excluded name is not created either');
  t.equal((await s.get('/v1/metrics/svc.x')).status, 200);
  t.equal((await s.request('PUT', '/v1/metrics', { json: { names: 'svc.*', exclude: ['SVC.A'], period: 600 } })).status, 204);
  t.equal((await s.get('/v1/metrics/svc.a')).body.period, 300, 'an exact exclude ignores case');

  // exact names to exclude are many and cheap; patterns are bounded
  const names = Array.from({ length: 9000 }, (_, i) => `bulk.${i}`);
  t.equal((await s.request('PUT', '/v1/metrics', { json: { names, exclude: names.slice(1) } })).status, 204);
  t.equal((await s.get('/v1/metrics/bulk.0')).status, 200);
  t.equal((await s.get('/v1/metrics/bulk.1')).status, 404);
  const globs = await s.request('PUT', '/v1/metrics', { json: { names, exclude: Array.from({ length: 101 }, (_, i) => `x${i}*`) } });
  t.equal(globs.status, 400);
  t.same(globs.body, { errors: { params: { exclude: ['at most 100 patterns with *'] } } });
});

t.test('exclude holds in batches run as jobs', async (t) => {
  const s = await startTestServer(t, 'limits:\n  batch_job_threshold: 2\n');
  const base = hourBase();
  await withData(s, ['j.a', 'j.b', 'j.c', 'j.d'], base);
  const put = await s.request('PUT', '/v1/metrics', { json: { names: 'j.*', exclude: ['j.b'], period: 120 } });
  t.equal(put.status, 202);
  t.match(await job(s, put.headers.location!), { state: 'complete' });
  t.equal((await s.get('/v1/metrics/j.b')).body.period, null);
  t.equal((await s.get('/v1/metrics/j.c')).body.period, 120);
  const del = await s.request('DELETE', '/v1/metrics', { json: { names: 'j.*', exclude: ['j.b'] } });
  t.equal(del.status, 202);
  t.match(await job(s, del.headers.location!), { state: 'complete', output: { deleted: 3 } });
  t.equal(await points(s, 'j.b', base), 1, 'the excluded metric and its data survive the job');
  t.equal((await s.get('/v1/metrics/j.a')).status, 404);
});

t.test('a batch key we do not understand is a 400 naming it, and changes nothing', async (t) => {
  const s = await startTestServer(t);
  t.equal((await s.request('PUT', '/v1/metrics/keep.me', { json: {} })).status, 201);
  const typo = await s.request('DELETE', '/v1/metrics', { json: { names: 'keep.*', excludes: ['keep.me'] } });
  t.equal(typo.status, 400);
  t.same(typo.body, { errors: { params: { excludes: ['is not a known field'] } } });
  t.equal((await s.get('/v1/metrics/keep.me')).status, 200, 'nothing deleted');
  const put = await s.request('PUT', '/v1/metrics', { form: 'names=keep.*&colour=red' });
  t.equal(put.status, 400);
  t.same(put.body, { errors: { params: { colour: ['is not a known field'] } } });
});

t.test('a batch job refused part-way changes nothing: every update is checked before any is written', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  // more than one of the job's write chunks (500), and last in name order one the update must refuse
  const names = Array.from({ length: 520 }, (_, i) => `rp.m${String(i).padStart(3, '0')}`);
  t.equal((await post(s, { measurements: names.map((name) => ({ name, value: 1, time: base })) })).status, 200);
  t.equal((await s.request('PUT', '/v1/metrics/rp.zz', { json: { period: 60, attributes: { aggregate: true } } })).status, 201);
  const put = await s.request('PUT', '/v1/metrics', { json: { names: 'rp*', period: 5, description: 'partial' } });
  t.equal(put.status, 202);
  const done = await job(s, put.headers.location!);
  t.equal(done.state, 'failed');
  t.match(done.errors, { params: { period: [/from 10 to 600 seconds when service-side aggregation is on/] } }, 'the refusal in the envelope a request would get');
  const changed = (await Promise.all(['rp.m000', 'rp.m499', 'rp.m519'].map((n) => s.get(`/v1/metrics/${n}`)))).filter((r) => r.body.description === 'partial' || r.body.period === 5);
  t.equal(changed.length, 0, 'no metric took the update');
});

t.test('batch PUT takes type: it creates listed names with it, and refuses a change of an existing metric\'s type', async (t) => {
  const s = await startTestServer(t);
  t.equal((await s.request('PUT', '/v1/metrics/ty.gauge', { json: { period: 60 } })).status, 201);
  t.equal((await s.request('POST', '/v1/metrics', { json: { counters: { 'ty.counter': { value: 1 } } } })).status, 200);

  const change = await s.request('PUT', '/v1/metrics', { json: { names: ['ty.gauge', 'ty.new'], type: 'counter', period: 300 } });
  t.equal(change.status, 400, 'a gauge cannot become a counter through the batch either');
  t.match(change.body, { errors: { params: { type: [/cannot change ty\.gauge, a gauge metric, into a counter metric/] } } });
  t.equal((await s.get('/v1/metrics/ty.gauge')).body.type, 'gauge', 'nothing changed');
  t.equal((await s.get('/v1/metrics/ty.gauge')).body.period, 60);
  t.equal((await s.get('/v1/metrics/ty.new')).status, 404, 'nothing created');

  const pattern = await s.request('PUT', '/v1/metrics', { form: 'names=ty.*&type=gauge&description=x' });
  t.equal(pattern.status, 400, 'a pattern matching a counter refuses gauge');
  t.match(pattern.body, { errors: { params: { type: [/ty\.counter, a counter metric/] } } });
  t.equal((await s.get('/v1/metrics/ty.gauge')).body.description, null, 'nothing changed');

  t.equal((await s.request('PUT', '/v1/metrics', { json: { names: ['ty.counter', 'ty.made'], type: 'counter', description: 'c' } })).status, 204, 'the same type is no change');
  t.equal((await s.get('/v1/metrics/ty.counter')).body.description, 'c');
  const made = (await s.get('/v1/metrics/ty.made')).body;
  t.equal(made.type, 'counter', 'a listed name is created with the type given');
  t.equal(made.description, 'c');
});

t.test('a bad name or pattern in a batch is a 400 under names, and changes nothing', async (t) => {
  const s = await startTestServer(t);
  t.equal((await s.request('PUT', '/v1/metrics/keep.me', { json: {} })).status, 201);
  const pattern = 'must be a metric name, or one pattern of 1-255 letters, digits, . : - _ and *';
  const cases: [string, unknown, Record<string, string[]>][] = [
    ['PUT', { names: 'keep me*', description: 'x' }, { names: [pattern] }],
    ['DELETE', { names: 'keep/*' }, { names: [pattern] }],
    ['DELETE', { names: 'a b' }, { names: [pattern] }],
    ['PUT', { names: ['keep.me', 'a b'], description: 'x' }, { 'names[1]': ['must be 1-255 characters of letters, digits, . : - _'] }],
    ['DELETE', { names: ['keep.me', 'keep.*'] }, { 'names[1]': ['must be a metric name (a * pattern is given as names alone, not in a list)'] }],
  ];
  for (const [method, json, params] of cases) {
    const r = await s.request(method, '/v1/metrics', { json });
    t.equal(r.status, 400, `${method} ${JSON.stringify(json)}`);
    t.same(r.body, { errors: { params } });
  }
  const kept = await s.get('/v1/metrics/keep.me');
  t.equal(kept.status, 200, 'nothing deleted');
  t.equal(kept.body.description, null, 'nothing updated');
  t.equal((await s.request('PUT', '/v1/metrics', { form: 'names=keep.*&description=y' })).status, 204, 'a good pattern still works');
  t.equal((await s.get('/v1/metrics/keep.me')).body.description, 'y');
});
