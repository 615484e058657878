import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { parseBasic, permitted } from '../../src/http/auth.js';

t.test('missing, malformed and wrong credentials get 401 with errors.request', async (t) => {
  const s = await startTestServer(t);
  const none = await s.get('/v1/metrics', { auth: null });
  t.equal(none.status, 401);
  t.same(none.body, { errors: { request: ['Please provide credentials for authentication.'] } });
  t.match(none.headers['www-authenticate'], /^Basic/);

  const garbage = await s.get('/v1/metrics', { auth: null, headers: { authorization: 'Basic !!!' } });
  t.equal(garbage.status, 401);
  const bearer = await s.get('/v1/metrics', { auth: null, headers: { authorization: 'Bearer abc' } });
  t.equal(bearer.status, 401);

  const wrongToken = await s.get('/v1/metrics', { auth: { user: s.admin.user, password: 'f'.repeat(64) } });
  t.equal(wrongToken.status, 401);
  t.match(wrongToken.body, { errors: { request: [/Authorization failed/] } });
  const unknownUser = await s.get('/v1/metrics', { auth: { user: 'nobody@example.com', password: s.admin.password } });
  t.equal(unknownUser.status, 401);

  const ok = await s.get('/v1/metrics');
  t.equal(ok.status, 200);
  // The e-mail is case-insensitive; URL-style escaping of @ is understood.
  const upper = await s.get('/v1/metrics', { auth: { user: s.admin.user.toUpperCase(), password: s.admin.password } });
  t.equal(upper.status, 200);
  const escaped = await s.get('/v1/metrics', { auth: { user: s.admin.user.replace('@', '%40'), password: s.admin.password } });
  t.equal(escaped.status, 200);
});

t.test('unknown /v1 paths are authenticated before they are a 404', async (t) => {
  const s = await startTestServer(t);
  t.equal((await s.get('/v1/nothing-here', { auth: null })).status, 401);
  const r = await s.get('/v1/nothing-here');
  t.equal(r.status, 404);
  t.match(r.body, { errors: { request: [/No route/] } });
  const other = await s.get('/not-api');
  t.equal(other.status, 404);
  t.ok(other.body.errors);
});

t.test('a disabled token or account stops working at once', async (t) => {
  const s = await startTestServer(t);
  const creds = await s.newAccount('ops@example.com', 'admin');
  t.equal((await s.get('/v1/metrics', { auth: creds })).status, 200);
  const token = s.server.rt.accounts.listTokens('ops@example.com')[0]!;
  await s.server.rt.accounts.setTokenActive('ops@example.com', token.name, false);
  t.equal((await s.get('/v1/metrics', { auth: creds })).status, 401);
  await s.server.rt.accounts.setTokenActive('ops@example.com', token.name, true);
  t.equal((await s.get('/v1/metrics', { auth: creds })).status, 200);
  await s.server.rt.accounts.setAccountActive('ops@example.com', false);
  t.equal((await s.get('/v1/metrics', { auth: creds })).status, 401);
});

t.test('roles: viewer reads, recorder reads and submits, admin does everything', async (t) => {
  const s = await startTestServer(t);
  const viewer = await s.newAccount('v@example.com', 'viewer');
  const recorder = await s.newAccount('r@example.com', 'recorder');
  const forbidden = { errors: { request: ['This token is not permitted to perform this action on this resource'] } };

  const put = (auth: { user: string; password: string }) => s.request('PUT', '/v1/metrics/role.test', { json: { type: 'gauge' }, auth });
  const vp = await put(viewer);
  t.equal(vp.status, 403);
  t.same(vp.body, forbidden);
  t.equal((await put(recorder)).status, 403);
  t.equal((await s.get('/v1/metrics', { auth: viewer })).status, 200);
  t.equal((await s.request('DELETE', '/v1/metrics/x', { auth: recorder })).status, 403);
  t.equal((await put(s.admin)).status, 201);
  const options = await s.request('OPTIONS', '/v1/metrics', { auth: viewer });
  t.equal(options.status, 200, 'OPTIONS only says which methods a path takes');
  t.match(options.headers.allow, /GET/);
});

t.test('permitted() is the one role table', async (t) => {
  t.ok(permitted('viewer', 'GET', '/v1/spaces'));
  t.notOk(permitted('viewer', 'POST', '/v1/measurements'));
  t.ok(permitted('recorder', 'POST', '/v1/measurements'));
  t.ok(permitted('recorder', 'POST', '/v1/metrics/'));
  t.ok(permitted('recorder', 'POST', '/v1/Measurements'), 'paths in any case, as the router routes them');
  t.ok(permitted('viewer', 'POST', '/V1/alerts/preview'));
  t.notOk(permitted('recorder', 'PUT', '/v1/metrics/x'));
  t.notOk(permitted('recorder', 'POST', '/v1/spaces'));
  t.ok(permitted('admin', 'DELETE', '/v1/metrics'));
});

t.test('parseBasic', async (t) => {
  const enc = (s: string) => 'Basic ' + Buffer.from(s).toString('base64');
  t.same(parseBasic(enc('a@b:tok:with:colons')), { user: 'a@b', password: 'tok:with:colons' });
  t.equal(parseBasic(enc('nocolon')), null);
  t.equal(parseBasic(enc(':pw')), null);
  t.equal(parseBasic(''), null);
});

t.test("another account's metric is a 404, never a 403", async (t) => {
  const s = await startTestServer(t);
  const other = await s.newAccount('other@example.com', 'admin');
  t.equal((await s.request('PUT', '/v1/metrics/private.metric', { json: {} })).status, 201);
  t.equal((await s.get('/v1/metrics/private.metric', { auth: other })).status, 404);
  t.equal((await s.request('DELETE', '/v1/metrics/private.metric', { auth: other })).status, 404);
  const list = await s.get('/v1/metrics', { auth: other });
  t.equal(list.body.query.total, 0);
  // Creating the same name in the other account is its own metric.
  t.equal((await s.request('PUT', '/v1/metrics/private.metric', { json: { description: 'mine' }, auth: other })).status, 201);
  t.equal((await s.get('/v1/metrics/private.metric')).body.description, null);
});
