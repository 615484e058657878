import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';

async function space(s: TestServer, name: string): Promise<number> {
  const r = await s.request('POST', '/v1/spaces', { json: { name } });
  if (r.status !== 201) throw new Error(`space ${name}: ${r.status} ${r.text}`);
  return r.body.id as number;
}

t.test('a space is created (JSON and form), read with its chart ids, renamed and deleted', async (t) => {
  const s = await startTestServer(t);
  const created = await s.request('POST', '/v1/spaces', { json: { name: 'Production' } });
  t.equal(created.status, 201);
  t.same(created.body, { id: created.body.id, name: 'Production', tags: false });
  t.equal(created.headers.location, `/v1/spaces/${created.body.id}`);
  const id = created.body.id as number;

  const form = await s.request('POST', '/v1/spaces', { form: 'name=Staging%20area' });
  t.equal(form.status, 201);
  t.equal(form.body.name, 'Staging area');

  const c1 = await s.request('POST', `/v1/spaces/${id}/charts`, { json: { name: 'cpu', streams: [{ metric: 'cpu' }] } });
  const c2 = await s.request('POST', `/v1/spaces/${id}/charts`, { json: { name: 'mem', streams: [{ metric: 'mem' }] } });
  const got = await s.get(`/v1/spaces/${id}`);
  t.equal(got.status, 200);
  t.same(got.body, { name: 'Production', id, tags: false, charts: [{ id: c1.body.id }, { id: c2.body.id }] });

  const renamed = await s.request('PUT', `/v1/spaces/${id}`, { form: 'name=Prod' });
  t.equal(renamed.status, 204);
  t.equal(renamed.text, '');
  t.equal((await s.get(`/v1/spaces/${id}`)).body.name, 'Prod');
  t.equal((await s.request('PUT', `/v1/spaces/${id}`, { json: { name: 'Prod' } })).status, 204, 'keeping its own name is fine');

  const deleted = await s.request('DELETE', `/v1/spaces/${id}`);
  t.equal(deleted.status, 204);
  t.equal((await s.get(`/v1/spaces/${id}`)).status, 404);
  t.equal((await s.get(`/v1/spaces/${id}/charts/${c1.body.id}`)).status, 404, 'its charts went with it');
  t.equal((await s.request('DELETE', `/v1/spaces/${id}`)).status, 404);
});

t.test('server-owned fields in the body are ignored', async (t) => {
  const s = await startTestServer(t);
  const r = await s.request('POST', '/v1/spaces', { json: { id: 999, name: 'mine', charts: [{ id: 5 }] } });
  t.equal(r.status, 201);
  t.not(r.body.id, 999);
  t.same((await s.get(`/v1/spaces/${r.body.id}`)).body.charts, []);
});

t.test('space names: required, bounded, unique per account regardless of case', async (t) => {
  const s = await startTestServer(t);
  const other = await s.newAccount('other@example.com');
  const missing = await s.request('POST', '/v1/spaces', { json: {} });
  t.equal(missing.status, 400);
  t.same(missing.body, { errors: { params: { name: ['is required'] } } });
  for (const [bad, message] of [
    [{ name: '' }, 'must NOT have fewer than 1 characters'], [{ name: '   ' }, 'must not be blank'],
    [{ name: 'a'.repeat(256) }, 'must NOT have more than 255 characters'], [{ name: 'tab\there' }, 'must not contain control characters'],
    // C1 controls, a line separator, a right-to-left override; invisible only; half a surrogate pair
    [{ name: 'a\u0085b' }, 'must not contain control characters'], [{ name: 'a\u2028b' }, 'must not contain control characters'],
    [{ name: 'gpj.\u202eexe' }, 'must not contain control characters'], [{ name: '\u200b \u200b' }, 'must not be blank'],
    [{ name: 'a\ud800' }, 'must be valid Unicode (it holds half of a surrogate pair)'],
    [{ name: 5 }, 'must be a string'],
  ] as const) {
    const r = await s.request('POST', '/v1/spaces', { json: bad });
    // (escaped: a raw U+2028 in an assertion's name ends its TAP line)
    const named = JSON.stringify(bad).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    t.equal(r.status, 400, named);
    t.same(r.body, { errors: { params: { name: [message] } } }, named);
  }
  const unknown = await s.request('POST', '/v1/spaces', { json: { name: 'x', colour: 'red' } });
  t.equal(unknown.status, 400);
  t.same(unknown.body.errors.params, { colour: ['is not a known field'] });

  const first = await space(s, 'Web');
  const dup = await s.request('POST', '/v1/spaces', { json: { name: ' web ' } });
  t.equal(dup.status, 422);
  t.same(dup.body, { errors: { params: { name: ['is already the name of another space'] } } });
  const second = await space(s, 'Db');
  const renameDup = await s.request('PUT', `/v1/spaces/${second}`, { json: { name: 'WEB' } });
  t.equal(renameDup.status, 422);
  t.equal((await s.request('PUT', `/v1/spaces/${first}`, { json: {} })).status, 400, 'rename needs a name');
  t.same((await s.request('PUT', `/v1/spaces/${first}`, { json: { name: ' ' } })).body.errors.params, { name: ['must not be blank'] });

  const elsewhere = await s.request('POST', '/v1/spaces', { json: { name: 'Web' }, auth: other });
  t.equal(elsewhere.status, 201, 'another account may use the same name');

  const concurrent = await Promise.all([1, 2, 3].map(() => s.request('POST', '/v1/spaces', { json: { name: 'race' } })));
  t.same(concurrent.map((r) => r.status).sort(), [201, 422, 422], 'concurrent creates cannot both win');
});

t.test('listing: name search, pagination, orderby and sort', async (t) => {
  const s = await startTestServer(t);
  for (const name of ['beta', 'Alpha', 'gamma', 'alpine', 'delta']) await space(s, name);
  const all = await s.get('/v1/spaces');
  t.equal(all.status, 200);
  t.same(all.body.query, { found: 5, length: 100, offset: 0, total: 5 });
  t.same(all.body.spaces.map((x: { name: string }) => x.name), ['Alpha', 'alpine', 'beta', 'delta', 'gamma']);
  t.same(Object.keys(all.body.spaces[0]).sort(), ['id', 'name', 'tags']);

  const search = await s.get('/v1/spaces?name=ALP');
  t.same((await s.get('/v1/spaces?name=a&name=b')).body, { errors: { params: { name: ['must be given once'] } } }, 'a repeated search is a 400');
  t.same(search.body.query, { found: 2, length: 100, offset: 0, total: 5 });
  t.same(search.body.spaces.map((x: { name: string }) => x.name), ['Alpha', 'alpine']);

  const page = await s.get('/v1/spaces?offset=1&length=2&orderby=name&sort=desc');
  t.same(page.body.query, { found: 5, length: 2, offset: 1, total: 5 });
  t.same(page.body.spaces.map((x: { name: string }) => x.name), ['delta', 'beta']);

  t.same((await s.get('/v1/spaces?name=nothing')).body, { query: { found: 0, length: 100, offset: 0, total: 5 }, spaces: [] });

  const badOrder = await s.get('/v1/spaces?orderby=id');
  t.equal(badOrder.status, 400);
  t.same(badOrder.body, { errors: { params: { orderby: ['must be one of: name'] } } });
  t.equal((await s.get('/v1/spaces?sort=up')).status, 400);
  t.equal((await s.get('/v1/spaces?length=101')).status, 400);
  t.equal((await s.get('/v1/spaces?offset=-1')).status, 400);
});

t.test('another account sees none of it: 404, never 403', async (t) => {
  const s = await startTestServer(t);
  const other = await s.newAccount('other@example.com');
  const id = await space(s, 'secret');
  const chart = await s.request('POST', `/v1/spaces/${id}/charts`, { json: { name: 'c' } });
  for (const [method, path, json] of [
    ['GET', `/v1/spaces/${id}`], ['PUT', `/v1/spaces/${id}`, { name: 'mine now' }], ['DELETE', `/v1/spaces/${id}`],
    ['GET', `/v1/spaces/${id}/charts`], ['POST', `/v1/spaces/${id}/charts`, { name: 'x' }],
    ['GET', `/v1/spaces/${id}/charts/${chart.body.id}`], ['PUT', `/v1/spaces/${id}/charts/${chart.body.id}`, { name: 'x' }],
    ['DELETE', `/v1/spaces/${id}/charts/${chart.body.id}`],
  ] as const) {
    const r = await s.request(method, path, { auth: other, ...(json ? { json } : {}) });
    t.equal(r.status, 404, `${method} ${path}`);
    t.same(r.body, { errors: { request: ['Space not found'] } }, 'the same answer as for a space that never existed');
  }
  t.same((await s.get('/v1/spaces', { auth: other })).body.query, { found: 0, length: 100, offset: 0, total: 0 });
  t.equal((await s.get(`/v1/spaces/${id}`)).status, 200, 'still there for its owner');
});

t.test('ids that are not numbers are simply not found', async (t) => {
  const s = await startTestServer(t);
  for (const path of ['/v1/spaces/abc', '/v1/spaces/1e3', '/v1/spaces/9999999999999', '/v1/spaces/1/charts/x']) {
    const r = await s.get(path);
    t.equal(r.status, 404, path);
    t.ok(r.body.errors.request, path);
  }
});

t.test('viewers may read spaces but not change them', async (t) => {
  const s = await startTestServer(t);
  const id = await space(s, 'shared');
  const viewer = await s.newAccount(s.admin.user, 'viewer');
  t.equal((await s.get(`/v1/spaces/${id}`, { auth: viewer })).status, 200);
  for (const [method, path] of [['POST', '/v1/spaces'], ['PUT', `/v1/spaces/${id}`], ['DELETE', `/v1/spaces/${id}`], ['POST', `/v1/spaces/${id}/charts`]] as const) {
    t.equal((await s.request(method, path, { auth: viewer, json: { name: 'x' } })).status, 403, `${method} ${path}`);
  }
});

t.test('spaces survive a restart', async (t) => {
  const s = await startTestServer(t, '', { keepData: true });
  const id = await space(s, 'durable');
  await s.stop();
  const again = await startTestServer(t, '', { dataDir: s.dataDir });
  t.same((await again.get(`/v1/spaces/${id}`)).body, { name: 'durable', id, tags: false, charts: [] });
  const next = await space(again, 'after restart');
  t.ok(next > id, 'ids keep counting up');
});

t.test('spaces take, keep and return tags (the Python client always sends it)', async (t) => {
  const s = await startTestServer(t);
  const created = await s.request('POST', '/v1/spaces', { json: { name: 'tagged', tags: true } });
  t.equal(created.status, 201);
  t.same(created.body, { id: created.body.id, name: 'tagged', tags: true });
  const id = created.body.id;
  t.match((await s.get(`/v1/spaces/${id}`)).body, { name: 'tagged', tags: true });
  t.equal((await s.request('PUT', `/v1/spaces/${id}`, { json: { name: 'tagged' } })).status, 204);
  t.equal((await s.get(`/v1/spaces/${id}`)).body.tags, true, 'an update without tags keeps them');
  t.equal((await s.request('PUT', `/v1/spaces/${id}`, { form: 'name=tagged&tags=false' })).status, 204);
  t.equal((await s.get(`/v1/spaces/${id}`)).body.tags, false, 'form bodies too');
  const plain = await s.request('POST', '/v1/spaces', { json: { name: 'plain' } });
  t.equal(plain.body.tags, false, 'default false');
  t.same((await s.get('/v1/spaces')).body.spaces.map((x: { name: string; tags: boolean }) => [x.name, x.tags]), [['plain', false], ['tagged', false]]);
  const bad = await s.request('POST', '/v1/spaces', { json: { name: 'x', tags: 'yes' } });
  t.equal(bad.status, 400);
  t.same(bad.body, { errors: { params: { tags: ['must be true or false'] } } });
});
