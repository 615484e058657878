// While the store refuses writes (the free-disk floor), a notification that was delivered
// is not delivered again: only its delete is tried again, until writes are accepted.
import t from 'tap';
import { Store } from '../../src/store/db.js';
import { CommitQueue, DISK_FULL } from '../../src/store/commit.js';
import { ApiError } from '../../src/errors.js';
import { Outbox, type AttemptOutcome, type OutboxEntry, type OutboxHooks } from '../../src/notifiers/outbox.js';
import { sampleNotification } from '../helpers/notification.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/tmp.js';
import { poll } from '../helpers/poll.js';

const notification = sampleNotification();

t.test('a delivered entry whose delete is refused is not sent again; the delete lands once writes are accepted', async (t) => {
  const store = await Store.open(tempDir(t), { sync: false });
  t.teardown(() => store.close());
  const commit = new CommitQueue(store.db, false);
  let sends = 0;
  const counts: string[] = [];
  const hooks: OutboxHooks = {
    deliver: async (): Promise<AttemptOutcome> => { sends++; return { status: 'sent', error: null, duration_ms: 1 }; },
    record: async () => {},
    count: (r) => { counts.push(r); },
  };
  const outbox = new Outbox(store, commit, hooks, () => ({ retryInitialMs: 10, maxAgeMs: 86_400_000 }), createLogger('silent'));
  await outbox.start();
  t.teardown(() => outbox.stop());
  const { ops, entries } = await outbox.prepare(1, [7], notification);
  await commit.write(ops);
  // the disk floor, as DiskGuard sets it: every write refused from now on
  let refusals = 0;
  commit.admit = () => { refusals++; return new ApiError(507, { system: [DISK_FULL] }); };
  outbox.schedule(entries);
  await poll(async () => (refusals >= 5 ? true : undefined));
  t.equal(sends, 1, 'delivered once while its delete was refused again and again');
  t.equal(outbox.length, 1, 'still queued: on disk it still is');

  commit.admit = () => null;
  await poll(async () => (outbox.length === 0 ? true : undefined));
  t.equal(sends, 1);
  t.same(counts, ['sent']);
  t.same(await store.json<OutboxEntry>('outbox').values().all(), [], 'deleted on disk');
});
