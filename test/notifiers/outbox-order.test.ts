// The order in which one attempt's outcome becomes visible: the delivery is recorded before
// the entry leaves the queue or the dropped count rises, so whoever watches the queue or
// the counts finds the delivery already there. Driven directly, with `record` held open.
import t, { type Test } from 'tap';
import { Store } from '../../src/store/db.js';
import { CommitQueue } from '../../src/store/commit.js';
import { Outbox, type AttemptOutcome, type OutboxHooks, type OutboxSettings } from '../../src/notifiers/outbox.js';
import { sampleNotification } from '../helpers/notification.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/tmp.js';
import { poll } from '../helpers/poll.js';

const notification = sampleNotification();

/** An outbox on a fresh store with one notification to service 7 scheduled. */
async function scheduled(t: Test, hooks: OutboxHooks, settings: OutboxSettings): Promise<Outbox> {
  const store = await Store.open(tempDir(t), { sync: false });
  t.teardown(() => store.close());
  const commit = new CommitQueue(store.db, false);
  const outbox = new Outbox(store, commit, hooks, () => settings, createLogger('silent'));
  await outbox.start();
  t.teardown(() => outbox.stop());
  const { ops, entries } = await outbox.prepare(1, [7], notification);
  await commit.write(ops);
  outbox.schedule(entries);
  return outbox;
}

for (const outcome of [
  { status: 'sent', error: null, duration_ms: 1 },
  { status: 'failed', error: 'the webhook answered HTTP 500', duration_ms: 1 },
] as AttemptOutcome[]) {
  t.test(`a ${outcome.status} last attempt is recorded before the entry leaves the queue`, async (t) => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const recording: string[] = [];
    const counts: string[] = [];
    const hooks: OutboxHooks = {
      deliver: async () => outcome,
      record: async (_e, o) => { recording.push(o.status); await held; },
      count: (r) => { counts.push(r); },
    };
    // retry_max_age 0: a failed attempt is the last one
    const outbox = await scheduled(t, hooks, { retryInitialMs: 100, maxAgeMs: 0 });

    await poll(async () => (recording.length === 1 ? true : undefined));
    t.equal(outbox.length, 1, 'still queued while its delivery is being recorded');
    t.notOk(counts.includes('dropped'), 'not yet counted as dropped');
    release();
    await outbox.idle();
    t.equal(outbox.length, 0, 'gone once recorded');
    t.same(counts, outcome.status === 'sent' ? ['sent'] : ['failed', 'dropped']);
  });
}

t.test('a delivery log that cannot be written does not send the notification again', async (t) => {
  let attempts = 0;
  const hooks: OutboxHooks = {
    deliver: async () => { attempts++; return { status: 'sent', error: null, duration_ms: 1 }; },
    record: async () => { throw new Error('disk full'); },
    count: () => {},
  };
  const outbox = await scheduled(t, hooks, { retryInitialMs: 10, maxAgeMs: 60_000 });
  await poll(async () => (outbox.length === 0 ? true : undefined));
  await new Promise((r) => setTimeout(r, 100));
  t.equal(attempts, 1, 'sent once');
});
