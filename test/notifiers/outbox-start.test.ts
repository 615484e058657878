// Entries handed to the outbox twice, by `schedule` and by `start` reading them back from
// LevelDB (an evaluation that commits while the outbox is still loading), are delivered once.
import t from 'tap';
import { Store } from '../../src/store/db.js';
import { CommitQueue } from '../../src/store/commit.js';
import { Outbox, type AttemptOutcome, type OutboxHooks } from '../../src/notifiers/outbox.js';
import { sampleNotification } from '../helpers/notification.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/tmp.js';

const notification = sampleNotification();

t.test('an entry scheduled before start reads it back is delivered once', async (t) => {
  const store = await Store.open(tempDir(t), { sync: false });
  t.teardown(() => store.close());
  const commit = new CommitQueue(store.db, false);
  const sent: number[] = [];
  const hooks: OutboxHooks = {
    deliver: async (e): Promise<AttemptOutcome> => { sent.push(e.id); return { status: 'sent', error: null, duration_ms: 1 }; },
    record: async () => {},
    count: () => {},
  };
  const outbox = new Outbox(store, commit, hooks, () => ({ retryInitialMs: 60_000, maxAgeMs: 86_400_000 }), createLogger('silent'));
  t.teardown(() => outbox.stop());
  const { ops, entries } = await outbox.prepare(1, [7, 8], notification);
  await commit.write(ops);
  outbox.schedule(entries);
  await outbox.start();
  await outbox.idle();
  t.equal(outbox.length, 0);
  t.same(sent.sort(), entries.map((e) => e.id).sort(), 'each entry once');
});
