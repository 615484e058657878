// The spec serves the API over HTTPS only; plain HTTP on the same port gets a 403 with
// a fixed body, except the operations endpoints. Behind a TLS-terminating proxy,
// http.trust_proxy makes X-Forwarded-Proto: https count.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const REFUSAL = '{"errors":{"request":["Please use secured connection through https!"]}}';

t.test('plain HTTP: 403 with the exact spec body on every API path, auth or not', async (t) => {
  const s = await startTestServer(t);
  for (const [method, path] of [['GET', '/v1/metrics'], ['PUT', '/v1/metrics/x'], ['GET', '/v1/nothing-here'], ['GET', '/nothing-here']]) {
    for (const auth of [undefined, null]) {
      const r = await s.request(method!, path!, { plain: true, auth, ...(method === 'PUT' ? { json: { type: 'gauge' } } : {}) });
      t.equal(r.status, 403, `${method} ${path}`);
      t.equal(r.text, REFUSAL);
      t.match(r.headers['content-type'], /^application\/json/);
    }
  }
  const https = await s.get('/v1/metrics');
  t.equal(https.status, 200, 'the same port answers HTTPS');
  // the web UI's page is the exception: a browser sent to a plain-HTTP address gets the
  // page that tells its user to switch (it never sends a token over plain HTTP)
  const page = await s.get('/', { plain: true, auth: null });
  t.equal(page.status, 200);
  t.match(page.headers['content-type'], /^text\/html/);
});

t.test('without trust_proxy, X-Forwarded-Proto: https on plain HTTP is still refused', async (t) => {
  const s = await startTestServer(t);
  const r = await s.get('/v1/metrics', { plain: true, headers: { 'x-forwarded-proto': 'https' } });
  t.equal(r.status, 403);
  t.equal(r.text, REFUSAL);
});

t.test('with trust_proxy, X-Forwarded-Proto decides', async (t) => {
  const s = await startTestServer(t, 'http:\n  listen: "127.0.0.1:0"\n  trust_proxy: true\n');
  const proxied = await s.get('/v1/metrics', { plain: true, headers: { 'x-forwarded-proto': 'https' } });
  t.equal(proxied.status, 200, 'a proxy-terminated HTTPS request is served');
  const unauthenticated = await s.get('/v1/metrics', { plain: true, auth: null, headers: { 'x-forwarded-proto': 'https' } });
  t.equal(unauthenticated.status, 401, 'and still needs credentials');
  const proxiedPlain = await s.get('/v1/metrics', { plain: true, headers: { 'x-forwarded-proto': 'http' } });
  t.equal(proxiedPlain.status, 403, 'a request the proxy received over plain HTTP is refused');
  t.equal(proxiedPlain.text, REFUSAL);
  const direct = await s.get('/v1/metrics', { plain: true });
  t.equal(direct.status, 403, 'no header: plain HTTP');
  const tls = await s.get('/v1/metrics');
  t.equal(tls.status, 200, 'direct HTTPS keeps working');
});
