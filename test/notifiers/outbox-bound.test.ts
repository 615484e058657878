// A dead receiver's backlog is bounded: past MAX_PENDING_PER_SERVICE waiting entries for one
// service, the oldest are dropped (recorded, counted, deleted from disk), newest kept;
// other services and a restart see exactly what is left. Driven directly, with the first
// attempt held open as a receiver that does not answer.
import t from 'tap';
import { Store } from '../../src/store/db.js';
import { CommitQueue } from '../../src/store/commit.js';
import { MAX_PENDING_PER_SERVICE, Outbox, type AttemptOutcome, type OutboxEntry, type OutboxHooks } from '../../src/notifiers/outbox.js';
import { sampleNotification } from '../helpers/notification.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/tmp.js';
import { poll } from '../helpers/poll.js';

t.test('past the bound the oldest waiting entries of a service are dropped, the one under way and other services kept', async (t) => {
  const dir = tempDir(t);
  const store = await Store.open(dir, { sync: false });
  const commit = new CommitQueue(store.db, false);
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const attempted: number[] = [];
  const recorded: { alert: number; error: string | null }[] = [];
  const counts: string[] = [];
  const hooks: OutboxHooks = {
    // service 7 is down: its first attempt hangs until released, every attempt fails;
    // service 8 answers at once
    deliver: async (e): Promise<AttemptOutcome> => {
      attempted.push(e.notification.alert.id);
      if (e.service === 8) return { status: 'sent', error: null, duration_ms: 1 };
      if (e.notification.alert.id === 1) await held;
      return { status: 'failed', error: 'down', duration_ms: 1 };
    },
    record: async (e, o) => { recorded.push({ alert: e.notification.alert.id, error: o.error }); },
    count: (r) => { counts.push(r); },
  };
  const outbox = new Outbox(store, commit, hooks, () => ({ retryInitialMs: 60_000, maxAgeMs: 86_400_000 }), createLogger('silent'));
  await outbox.start();
  const extra = 5;
  for (let alert = 1; alert <= MAX_PENDING_PER_SERVICE + extra; alert++) {
    const { ops, entries } = await outbox.prepare(1, alert === 1 ? [7, 8] : [7], sampleNotification(alert));
    await commit.write(ops);
    outbox.schedule(entries);
    if (alert === 1) await poll(async () => (attempted.length === 2 ? true : undefined)); // alert 1 to service 7 is under way
  }
  await poll(async () => (recorded.filter((r) => r.error?.startsWith('dropped unsent')).length === extra ? true : undefined));
  await poll(async () => (counts.filter((c) => c === 'dropped').length === extra ? true : undefined));
  t.equal(outbox.length, MAX_PENDING_PER_SERVICE, 'service 7 holds the bound; service 8 delivered its one');
  t.same(recorded.filter((r) => r.error?.startsWith('dropped unsent')).map((r) => r.alert), [2, 3, 4, 5, 6], 'the oldest waiting were dropped, not the one under way');
  t.equal(counts.filter((c) => c === 'dropped').length, extra);
  const onDisk = async () => (await store.json<OutboxEntry>('outbox').values().all()).map((e) => e.notification.alert.id);
  await poll(async () => ((await onDisk()).length === MAX_PENDING_PER_SERVICE ? true : undefined));
  const kept = await onDisk();
  t.same([kept[0], kept[1], kept.at(-1)], [1, 7, MAX_PENDING_PER_SERVICE + extra], 'on disk: the one under way and the newest');

  // a restart finds exactly those (the failed attempts wait a minute for their retry)
  release();
  await outbox.stop();
  await store.close();
  const store2 = await Store.open(dir, { sync: false });
  t.teardown(() => store2.close());
  const again = new Outbox(store2, new CommitQueue(store2.db, false), hooks, () => ({ retryInitialMs: 60_000, maxAgeMs: 86_400_000 }), createLogger('silent'));
  t.teardown(() => again.stop());
  await again.start();
  t.equal(again.length, MAX_PENDING_PER_SERVICE);
});
