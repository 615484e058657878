// A notification decided while its receiver is down survives kill -9: after the restart
// it is delivered, exactly once, and the firing alert is not notified again.
import t from 'tap';
import { join } from 'node:path';
import { startServe, eventually } from '../helpers/cli.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';
import { httpsRequest, initialCredentials, selfSignedCa } from '../helpers/client.js';
import { listener } from '../helpers/listener.js';

t.test('SIGKILL while the webhook target is down: delivered exactly once after the restart', async (t) => {
  const dir = tempDir(t);
  const config = writeServeConfig(dir, 'alerts:\n  check_schedule: "* * * * * *"\nnotifications:\n  retry_initial_ms: 200\n');
  const hook = await listener(t, 503);
  let serve = await startServe(t, ['--config', config]);
  const data = join(dir, 'data');
  const auth = initialCredentials(data);
  const ca = selfSignedCa(data);
  const api = (method: string, path: string, json?: unknown) => httpsRequest(serve.port, ca, method, path, { auth, json });
  const sid = JSON.parse((await api('POST', '/v1/services', { title: 'down', type: 'webhook', settings: { url: hook.url } })).text).id;
  t.equal((await api('POST', '/v1/alerts', { name: 'hot', services: [sid], conditions: [{ type: 'above', metric_name: 'cpu', threshold: 1 }] })).status, 201);
  // a point a little ahead of the clock: tracking starts when the alert was created
  const at = Math.floor(Date.now() / 1000) + 2;
  t.equal((await api('POST', '/v1/measurements', { tags: { host: 'a' }, measurements: [{ name: 'cpu', time: at, value: 5 }] })).status, 200);
  await eventually(() => hook.received.length >= 2, 'two failed attempts');
  serve.child.kill('SIGKILL');
  await serve.exited;
  const failedAttempts = hook.received.length;
  hook.setStatus(200);

  serve = await startServe(t, ['--config', config]);
  await eventually(() => hook.received.some((r) => r.status === 200), 'the delivery after the restart');
  await eventually(async () => /gaugeway_notification_queue_length 0/.test((await httpsRequest(serve.port, ca, 'GET', '/metrics')).text), 'an empty outbox');
  const sent = hook.received.filter((r) => r.status === 200);
  t.equal(sent.length, 1, 'delivered exactly once');
  t.ok(hook.received.length > failedAttempts, 'after the restart');
  t.equal(new Set(hook.received.map((r) => r.headers['idempotency-key'])).size, 1, 'every attempt was the same notification');
  t.equal(JSON.parse(new URLSearchParams(sent[0]!.body).get('payload')!).alert.name, 'hot');
  const status = JSON.parse((await api('GET', '/v1/alerts/status')).text);
  t.equal(status.firing.length, 1, 'the alert is still firing, and was not notified again');
  serve.child.kill('SIGTERM');
  await serve.exited;
});
