// Serving the web UI's files (no browser here: test/web/ui.test.ts drives one): the
// security headers, caching, the external_url sub-path, paths that must not resolve, a
// checkout that was never built, and the 401 without a Basic challenge for the UI.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../helpers/server.js';
import { UI_HEADERS, loadUiFiles, uiPath, webUi } from '../../src/http/ui.js';

t.test('GET / serves the UI with strict security headers; assets are immutable', async (t) => {
  const s = await startTestServer(t);
  const index = await s.get('/', { auth: null });
  t.equal(index.status, 200);
  t.match(index.headers['content-type'], /text\/html/);
  for (const [name, value] of Object.entries(UI_HEADERS)) t.equal(index.headers[name.toLowerCase()], value, name);
  t.match(index.headers['content-security-policy'], /script-src 'self';/);
  t.notMatch(index.headers['content-security-policy'], /unsafe-inline/);
  t.match(index.headers['content-security-policy'], /frame-ancestors 'none'/);
  t.equal(index.headers['referrer-policy'], 'no-referrer');
  t.equal(index.headers['cache-control'], 'no-cache');
  const script = /src="(assets\/app-[^"]+\.js)"/.exec(index.text)![1]!;
  const asset = await s.get(`/${script}`, { auth: null });
  t.equal(asset.status, 200);
  t.match(asset.headers['content-type'], /javascript/);
  t.match(asset.headers['cache-control'], /immutable/);
  t.equal(asset.headers['content-security-policy'], UI_HEADERS['Content-Security-Policy']);
  const again = await s.get('/', { auth: null, headers: { 'if-none-match': String(index.headers.etag) } });
  t.equal(again.status, 304, 'an unchanged page is not sent again');
  t.equal((await s.request('HEAD', '/', { auth: null })).status, 200);
  t.equal((await s.request('POST', '/', { auth: null })).status, 404, 'only GET and HEAD');
  t.equal((await s.get('/assets/nothing.js', { auth: null })).status, 404);
  t.equal((await s.get('/v1/spaces', { auth: null })).status, 401, 'the API is unchanged');
});

t.test('under external_url\'s path too, for a proxy that keeps the prefix', async (t) => {
  const s = await startTestServer(t, 'http:\n  listen: "127.0.0.1:0"\n  external_url: "https://metrics.example.com/gw/"');
  for (const path of ['/', '/gw/', '/gw', '/gw/index.html']) t.equal((await s.get(path, { auth: null })).status, 200, path);
  const script = /src="(assets\/app-[^"]+\.js)"/.exec((await s.get('/gw/', { auth: null })).text)![1]!;
  t.equal((await s.get(`/gw/${script}`, { auth: null })).status, 200, 'relative asset names resolve under the prefix');
});

t.test('request paths that name no built file do not resolve', async (t) => {
  t.equal(uiPath('/', null), 'index.html');
  t.equal(uiPath('/assets/app-X1.js', null), 'assets/app-X1.js');
  for (const bad of ['/assets/../config.yaml', '/assets/.hidden.js', '/assets/a/b.js', '/assets/', '/index.htm', '/v1/', '/favicon.ico']) t.equal(uiPath(bad, null), null, bad);
  t.equal(uiPath('/gw/assets/app.css', 'https://x.example/gw'), 'assets/app.css');
  t.equal(uiPath('/other/', 'https://x.example/gw/'), null);
});

t.test('a checkout whose UI was never built says how to build it', async (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'gw-ui-'));
  t.teardown(() => rmSync(empty, { recursive: true, force: true }));
  t.equal(loadUiFiles(empty), null);
  const ctx = { method: 'GET', path: '/', status: 404, body: undefined as unknown, headers: {} as Record<string, string>, set(k: string, v: string) { this.headers[k] = v; } };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  await webUi(null, () => null)(ctx as any, async () => undefined);
  t.equal(ctx.status, 503);
  t.match(JSON.stringify(ctx.body), /npm run build/);
});

t.test('a 401 to the UI carries no Basic challenge (no browser login dialog); to other clients it does', async (t) => {
  const s = await startTestServer(t);
  const ui = await s.get('/v1/spaces', { auth: { user: 'x@example.com', password: 'nope' }, headers: { 'x-requested-with': 'XMLHttpRequest' } });
  t.equal(ui.status, 401);
  t.equal(ui.headers['www-authenticate'], undefined);
  t.match(ui.body.errors.request[0], /Authorization failed/);
  const other = await s.get('/v1/spaces', { auth: { user: 'x@example.com', password: 'nope' } });
  t.equal(other.headers['www-authenticate'], 'Basic realm="gaugeway"');
});
