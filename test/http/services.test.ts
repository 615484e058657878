// Notification services through the API: CRUD with settings checked by the plugin's
// schema, secrets masked, a test notification in Librato's webhook format received by a
// real listener on loopback, the last deliveries, and plugins from a configured folder.
import t, { type Test } from 'tap';
import http from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { listener } from '../helpers/listener.js';

t.test('services: create, read, list, update, delete, with settings checked by the plugin', async (t) => {
  const s = await startTestServer(t);
  const created = await s.request('POST', '/v1/services', { json: { title: 'Ops hook', type: 'webhook', settings: { url: 'https://hooks.example.com/x' } } });
  t.equal(created.status, 201);
  t.equal(created.headers.location, `/v1/services/${created.body.id}`);
  t.same(created.body, { id: created.body.id, title: 'Ops hook', type: 'webhook', settings: { url: 'https://hooks.example.com/x' } });
  const id = created.body.id;

  const bad = async (json: unknown) => (await s.request('POST', '/v1/services', { json })).body;
  t.same(await bad({ title: 'x', type: 'webhook', settings: {} }), { errors: { params: { 'settings.url': ['Is required'] } } });
  t.same(await bad({ title: 'x', type: 'webhook', settings: { url: 'hooks.example.com' } }), { errors: { params: { 'settings.url': ['Is not a valid URL'] } } });
  t.same(await bad({ title: 'x', type: 'webhook', settings: { url: 'https://h/', colour: 1 } }), { errors: { params: { 'settings.colour': ['is not a setting of this type'] } } });
  t.match(await bad({ title: 'x', type: 'campfire', settings: {} }), { errors: { params: { type: [/^must be one of: .*webhook/] } } });
  t.same(await bad({ type: 'webhook', settings: { url: 'https://h/' } }), { errors: { params: { title: ['is required'] } } });

  t.equal((await s.request('PUT', `/v1/services/${id}`, { json: { title: 'Renamed' } })).status, 204);
  t.equal((await s.get(`/v1/services/${id}`)).body.title, 'Renamed');
  t.equal((await s.request('PUT', `/v1/services/${id}`, { json: { settings: { url: 'nope' } } })).status, 400, 'updates are checked too');
  await s.request('POST', '/v1/services', { json: { title: 'Another', type: 'webhook', settings: { url: 'https://b/' } } });
  const list = await s.get('/v1/services?orderby=title');
  t.same(list.body.services.map((x: { title: string }) => x.title), ['Another', 'Renamed']);
  t.same(list.body.query, { found: 2, length: 100, offset: 0, total: 2 });
  t.equal((await s.get('/v1/services?orderby=type')).status, 400);

  const other = await s.newAccount('other@example.com');
  t.equal((await s.get(`/v1/services/${id}`, { auth: other })).status, 404, 'another account\'s service does not exist for them');
  t.equal((await s.request('DELETE', `/v1/services/${id}`)).status, 204);
  t.equal((await s.get(`/v1/services/${id}`)).status, 404);
});

t.test('a test notification: the Librato webhook payload, basic auth from the URL, secrets masked, deliveries recorded', async (t) => {
  const s = await startTestServer(t);
  const hook = await listener(t);
  const secretUrl = hook.url.replace('http://', 'http://ops:s3cret@');
  const id = (await s.request('POST', '/v1/services', { json: { title: 'hook', type: 'webhook', settings: { url: secretUrl } } })).body.id;
  const shown = (await s.get(`/v1/services/${id}`)).body.settings.url;
  t.equal(shown, hook.url.replace('http://', 'http://ops:********@'), 'the password is masked');
  t.notMatch(JSON.stringify((await s.get('/v1/services')).body), /s3cret/, 'and never listed');
  // a GET body PUT back keeps the real secret
  t.equal((await s.request('PUT', `/v1/services/${id}`, { json: { title: 'hook', type: 'webhook', settings: { url: shown } } })).status, 204);

  const test = await s.request('POST', `/v1/services/${id}/test`);
  t.equal(test.status, 200);
  t.match(test.body, { status: 'sent', error: null, duration_ms: Number });
  t.equal(hook.received.length, 1);
  const got = hook.received[0]!;
  t.equal(got.method, 'POST');
  t.equal(got.headers['content-type'], 'application/x-www-form-urlencoded');
  t.equal(got.headers.authorization, 'Basic ' + Buffer.from('ops:s3cret').toString('base64'), 'basic auth with the stored secret');
  t.match(got.headers['idempotency-key'], /^test-\d+-\d+$/);
  const form = new URLSearchParams(got.body);
  t.same([...form.keys()], ['payload'], 'one form field: payload');
  const payload = JSON.parse(form.get('payload')!);
  t.same(Object.keys(payload), ['alert', 'account', 'trigger_time', 'incident_key', 'conditions', 'violations', 'triggered_by_user_test']);
  t.equal(payload.triggered_by_user_test, true);
  t.equal(payload.account, 'admin@localhost');
  t.match(payload.alert, { id: 0, name: 'gaugeway.test', version: 2 });
  t.match(payload.violations, { 'host=test': [{ metric: 'gaugeway.test', value: 1, condition_violated: 0 }] });
  t.ok(Math.abs(payload.trigger_time - Date.now() / 1000) < 600);

  const failing = await listener(t, 500);
  const id2 = (await s.request('POST', '/v1/services', { json: { title: 'broken', type: 'webhook', settings: { url: failing.url } } })).body.id;
  t.match((await s.request('POST', `/v1/services/${id2}/test`)).body, { status: 'failed', error: 'the webhook answered HTTP 500' });
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const deadPort = (closed.address() as { port: number }).port;
  await new Promise<void>((r) => closed.close(() => r()));
  await s.request('PUT', `/v1/services/${id2}`, { json: { settings: { url: `http://127.0.0.1:${deadPort}/nothing` } } });
  t.match((await s.request('POST', `/v1/services/${id2}/test`)).body, { status: 'failed', error: /ECONNREFUSED/ }, 'a dead receiver is a result, not a 5xx');
  const deliveries = (await s.get(`/v1/services/${id2}/deliveries`)).body.deliveries;
  t.same(deliveries.map((d: { status: string; kind: string }) => [d.kind, d.status]), [['test', 'failed'], ['test', 'failed']], 'newest first');
  t.match(deliveries[1], { error: 'the webhook answered HTTP 500', time: Number, duration_ms: Number });
  t.equal((await s.get(`/v1/services/${id}/deliveries`)).body.deliveries[0].status, 'sent');
});

t.test('a plugin folder in a configured directory works without touching src/; a broken one stops the start', async (t) => {
  const example = fileURLToPath(new URL('../../docs/plugin-example/', import.meta.url));
  const s = await startTestServer(t, `notifications:\n  plugin_dirs: ["${example}"]\n`);
  const topic = await listener(t);
  const created = await s.request('POST', '/v1/services', { json: { title: 'phone', type: 'ntfy', settings: { url: topic.url, token: 'tok-123' } } });
  t.equal(created.status, 201);
  t.same(created.body.settings, { url: topic.url, token: '********' }, 'the plugin\'s secret is masked');
  t.match((await s.request('POST', `/v1/services/${created.body.id}/test`)).body, { status: 'sent' });
  t.equal(topic.received[0]?.headers.authorization, 'Bearer tok-123');
  t.equal(topic.received[0]?.headers.title, '[Test] Alert gaugeway.test has triggered!');

  const { PluginRegistry, BUILTIN_PLUGINS } = await import('../../src/notifiers/registry.js');
  const dir = tempDir(t, 'gw-plugins-');
  mkdirSync(join(dir, 'broken'));
  writeFileSync(join(dir, 'broken', 'index.mjs'), 'export default { type: "broken" };\n');
  await t.rejects(PluginRegistry.load([BUILTIN_PLUGINS, dir]), { message: `notification plugin ${join(dir, 'broken')} failed to load: its default export has no \`send(notification, settings, context)\` function` });
  const dup = tempDir(t, 'gw-plugins-');
  mkdirSync(join(dup, 'my-webhook'));
  writeFileSync(join(dup, 'my-webhook', 'index.mjs'), 'export default { type: "webhook", async send() {} };\n');
  writeFileSync(join(dup, 'my-webhook', 'settings.schema.json'), '{}');
  await t.rejects(PluginRegistry.load([BUILTIN_PLUGINS, dup]), { message: /both deliver type "webhook": remove one/ });
});

t.test('deliveries finishing together are each recorded; none outlives its service', async (t) => {
  const s = await startTestServer(t);
  const hook = await listener(t);
  const id = (await s.request('POST', '/v1/services', { json: { title: 'hook', type: 'webhook', settings: { url: hook.url } } })).body.id;
  const tests = await Promise.all(Array.from({ length: 8 }, () => s.request('POST', `/v1/services/${id}/test`)));
  t.same(tests.map((r) => r.body.status), Array(8).fill('sent'));
  t.equal((await s.get(`/v1/services/${id}/deliveries`)).body.deliveries.length, 8, 'eight tests, eight records');
  await s.server.rt.services.recordDelivery(1, id + 1000, { time: Date.now(), kind: 'test', status: 'sent', error: null, duration_ms: 1 });
  t.equal((await s.server.rt.store.json('service_deliveries').keys().all()).length, 1, 'a record for a service that does not exist is dropped');
});
