// Failures no retry can mend (HTTP 4xx but 408 and 429, a redirect not followed) are not
// retried: recorded, counted as dropped and logged once; 408, 429 and 5xx are retried.
// The backoff and deadline bounds follow reliability.md rule 8.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { fireAlert } from '../helpers/notification.js';
import { listener } from '../helpers/listener.js';
import { poll } from '../helpers/poll.js';
import { tempDir } from '../helpers/tmp.js';
import { loadConfig } from '../../src/config/load.js';

const YAML = 'alerts:\n  check_schedule: "0 0 1 1 *"\nnotifications:\n  retry_initial_ms: 100';
const metric = async (s: TestServer, line: RegExp) => Number(line.exec((await s.get('/metrics', { auth: null })).text)?.[1] ?? NaN);


for (const status of [400, 404, 302]) {
  t.test(`a webhook answering ${status}: one attempt, recorded, dropped, not retried`, async (t) => {
    const s = await startTestServer(t, YAML);
    const l = await listener(t, status);
    const sid = (await s.request('POST', '/v1/services', { json: { title: 'h', type: 'webhook', settings: { url: l.url } } })).body.id;
    await fireAlert(s, [sid]);
    await poll(async () => ((await metric(s, /gaugeway_notifications_total\{result="dropped"\} (\d+)/)) === 1 ? true : undefined));
    t.equal(await metric(s, /gaugeway_notification_queue_length (\d+)/), 0);
    t.equal(l.received.length, 1, 'sent once');
    const deliveries = (await s.get(`/v1/services/${sid}/deliveries`)).body.deliveries;
    t.same(deliveries.map((d: { status: string; error: string }) => [d.status, d.error]), [['failed', `the webhook answered HTTP ${status}`]]);
  });
}

for (const status of [408, 429, 503]) {
  t.test(`a webhook answering ${status} is retried`, async (t) => {
    const s = await startTestServer(t, YAML);
    const l = await listener(t, status);
    const sid = (await s.request('POST', '/v1/services', { json: { title: 'h', type: 'webhook', settings: { url: l.url } } })).body.id;
    await fireAlert(s, [sid]);
    await poll(async () => (l.received.length >= 2 ? true : undefined));
    t.notOk((await metric(s, /gaugeway_notifications_total\{result="dropped"\} (\d+)/)) >= 1, 'not dropped');
  });
}

t.test('POST /test says whether a failure is permanent', async (t) => {
  const s = await startTestServer(t, YAML);
  const l = await listener(t, 403);
  const sid = (await s.request('POST', '/v1/services', { json: { title: 'h', type: 'webhook', settings: { url: l.url } } })).body.id;
  t.match((await s.request('POST', `/v1/services/${sid}/test`)).body, { status: 'failed', error: 'the webhook answered HTTP 403', permanent: true });
  l.setStatus(500);
  t.notOk((await s.request('POST', `/v1/services/${sid}/test`)).body.permanent);
});

t.test('retry and deadline settings: 1 s first retry by default, a deadline of at most 10 s', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'c.yaml');
  writeFileSync(file, 'data_dir: ./data\n');
  const c = loadConfig({ file, env: {} });
  t.same([c.notifications.retry_initial_ms, c.notifications.timeout_ms], [1000, 10000]);
  writeFileSync(file, 'data_dir: ./data\nnotifications:\n  timeout_ms: 30000\n');
  t.throws(() => loadConfig({ file, env: {} }), /notifications\.timeout_ms/);
  writeFileSync(file, 'data_dir: ./data\nnotifications:\n  retry_initial_ms: 120000\n');
  t.throws(() => loadConfig({ file, env: {} }), /notifications\.retry_initial_ms/);
});
