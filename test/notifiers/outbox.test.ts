// The durable outbox through a running service: retries with backoff until the receiver
// answers, one idempotency key for every attempt, a drop after retry_max_age, a hanging
// receiver holding up no other service, and its self-metrics.
import t from 'tap';
import http from 'node:http';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fireAlert } from '../helpers/notification.js';
import { listener } from '../helpers/listener.js';
import { poll } from '../helpers/poll.js';

const yaml = (maxAge = '1d') => `alerts:\n  check_schedule: "0 0 1 1 *"\nnotifications:\n  retry_initial_ms: 100\n  retry_max_age: ${maxAge}\n  timeout_ms: 10000`;


const hook = async (s: TestServer, url: string) => (await s.request('POST', '/v1/services', { json: { title: url, type: 'webhook', settings: { url } } })).body.id as number;
const metric = async (s: TestServer, line: RegExp) => Number(line.exec((await s.get('/metrics', { auth: null })).text)?.[1] ?? NaN);

t.test('a failing receiver is retried until it answers; every attempt carries the same idempotency key', async (t) => {
  const s = await startTestServer(t, yaml());
  const l = await listener(t, 503);
  const sid = await hook(s, l.url);
  await fireAlert(s, [sid]);
  await poll(async () => (l.received.length >= 2 ? true : undefined));
  l.setStatus(200);
  await poll(async () => ((await metric(s, /gaugeway_notification_queue_length (\d+)/)) === 0 ? true : undefined));
  const keys = new Set(l.received.map((r) => r.headers['idempotency-key']));
  t.equal(keys.size, 1, 'one key for every attempt at one notification');
  const deliveries = (await s.get(`/v1/services/${sid}/deliveries`)).body.deliveries;
  t.equal(deliveries[0].status, 'sent', 'the last attempt was sent');
  t.ok(deliveries.slice(1).every((d: { status: string; error: string }) => d.status === 'failed' && d.error === 'the webhook answered HTTP 503'), 'the earlier ones failed, with the reason');
  t.equal(await metric(s, /gaugeway_notifications_total\{result="sent"\} (\d+)/), 1);
  t.equal(await metric(s, /gaugeway_notifications_total\{result="retried"\} (\d+)/), deliveries.length - 1);
});

t.test('a notification still failing after retry_max_age is dropped and recorded as failed', async (t) => {
  const s = await startTestServer(t, yaml('1'));
  const l = await listener(t, 500);
  const sid = await hook(s, l.url);
  await fireAlert(s, [sid]);
  await poll(async () => ((await metric(s, /gaugeway_notifications_total\{result="dropped"\} (\d+)/)) === 1 ? true : undefined));
  t.equal(await metric(s, /gaugeway_notification_queue_length (\d+)/), 0);
  t.equal((await s.get(`/v1/services/${sid}/deliveries`)).body.deliveries[0].status, 'failed');
});

t.test('a receiver that never answers holds up no other service', async (t) => {
  const s = await startTestServer(t, yaml());
  const held: http.ServerResponse[] = [];
  const hang = http.createServer((_req, res) => { held.push(res); });
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { hang.closeAllConnections(); hang.close(() => r()); }));
  const l = await listener(t);
  const slow = await hook(s, `http://127.0.0.1:${(hang.address() as { port: number }).port}/`);
  const fast = await hook(s, l.url);
  await fireAlert(s, [slow, fast]);
  await poll(async () => (l.received.length === 1 ? true : undefined));
  t.equal(held.length, 1, 'the other service got its notification while the first still hangs');
  // the answered one leaves the queue just after its receiver saw it: wait for that
  await poll(async () => ((await metric(s, /gaugeway_notification_queue_length (\d+)/)) === 1 ? true : undefined));
  t.equal(held.length, 1, 'the hanging one is still in the outbox, still waiting for its answer');
});
