// One service gets its notifications in the order they were decided: a clear waits behind
// its trigger while the trigger waits for a retry, and a backlog gathered while the
// receiver was down goes out in id order once it is back.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { listener } from '../helpers/listener.js';
import { poll } from '../helpers/poll.js';
import { Store } from '../../src/store/db.js';
import { CommitQueue } from '../../src/store/commit.js';
import { Outbox, type AttemptOutcome, type OutboxHooks } from '../../src/notifiers/outbox.js';
import { sampleNotification } from '../helpers/notification.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/tmp.js';

t.test('a clear decided while its trigger waits for a retry is delivered after the trigger', async (t) => {
  // a retry about a second away: long enough that a clear not held back would go first
  const s = await startTestServer(t, 'alerts:\n  check_schedule: "0 0 1 1 *"\nnotifications:\n  retry_initial_ms: 1000');
  const hook = await listener(t, 503);
  const sid = (await s.request('POST', '/v1/services', { json: { title: 'hook', type: 'webhook', settings: { url: hook.url } } })).body.id;
  const t0 = Math.floor(Date.now() / 1000) + 5;
  const r = await s.request('POST', '/v1/alerts', { json: { name: 'cpu.high', services: [sid], conditions: [{ type: 'above', metric_name: 'cpu', threshold: 90 }] } });
  t.equal(r.status, 201);
  const post = (time: number, value: number) => s.request('POST', '/v1/measurements', { json: { tags: { host: 'web1' }, measurements: [{ name: 'cpu', time, value }] } });
  await post(t0 + 1, 95);
  await s.server.rt.alertEngine.evaluateAll(t0 + 2);
  await poll(async () => (hook.received.length === 1 ? true : undefined));
  hook.setStatus(200);
  await post(t0 + 3, 10);
  await s.server.rt.alertEngine.evaluateAll(t0 + 4);
  await poll(async () => (hook.received.length === 3 ? true : undefined));
  const kinds = hook.received.map((x) => {
    const p = JSON.parse(new URLSearchParams(x.body).get('payload')!);
    return `${p.clear ? 'clear' : 'trigger'} ${x.status}`;
  });
  t.same(kinds, ['trigger 503', 'trigger 200', 'clear 200']);
});

t.test('a backlog gathered while the receiver was down goes out in id order', async (t) => {
  const store = await Store.open(tempDir(t), { sync: false });
  t.teardown(() => store.close());
  const commit = new CommitQueue(store.db, false);
  let down = true;
  const attempts: { alert: number; ok: boolean }[] = [];
  const hooks: OutboxHooks = {
    deliver: async (e): Promise<AttemptOutcome> => {
      attempts.push({ alert: e.notification.alert.id, ok: !down });
      return down ? { status: 'failed', error: 'down', duration_ms: 1 } : { status: 'sent', error: null, duration_ms: 1 };
    },
    record: async () => {},
    count: () => {},
  };
  const outbox = new Outbox(store, commit, hooks, () => ({ retryInitialMs: 100, maxAgeMs: 86_400_000 }), createLogger('silent'));
  await outbox.start();
  t.teardown(() => outbox.stop());
  const n = sampleNotification;
  for (let alert = 1; alert <= 8; alert++) {
    const { ops, entries } = await outbox.prepare(1, [7], n(alert));
    await commit.write(ops);
    outbox.schedule(entries);
  }
  await poll(async () => (attempts.length >= 3 ? true : undefined));
  down = false;
  await poll(async () => (outbox.length === 0 ? true : undefined));
  t.same(attempts.filter((a) => !a.ok).map((a) => a.alert), attempts.filter((a) => !a.ok).map(() => 1), 'while down, only the oldest was tried');
  t.same(attempts.filter((a) => a.ok).map((a) => a.alert), [1, 2, 3, 4, 5, 6, 7, 8], 'then all of them, in the order they were decided');
});
