// Stopping the outbox cuts a delivery in progress short, whatever the receiver does, and
// leaves its entry for the next start, which delivers it.
import t from 'tap';
import http from 'node:http';
import { Store } from '../../src/store/db.js';
import { CommitQueue } from '../../src/store/commit.js';
import { Outbox, type OutboxEntry, type OutboxHooks } from '../../src/notifiers/outbox.js';
import { PluginRegistry, BUILTIN_PLUGINS } from '../../src/notifiers/registry.js';
import { UrlPolicy } from '../../src/notifiers/url-policy.js';
import { deliverOnce } from '../../src/notifiers/deliver.js';
import { sampleNotification } from '../helpers/notification.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/tmp.js';
import { poll } from '../helpers/poll.js';

const log = createLogger('silent');
const notification = sampleNotification();

t.test('stop aborts a delivery to a receiver that never answers; the next start delivers it', async (t) => {
  // a receiver that holds its first request open and answers the later ones
  let hang = true;
  const requests: { key: string | undefined; closed: boolean }[] = [];
  const server = http.createServer((req, res) => {
    const seen = { key: req.headers['idempotency-key'] as string | undefined, closed: false };
    requests.push(seen);
    req.resume();
    res.on('close', () => { seen.closed = true; });
    if (!hang) res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;

  const registry = await PluginRegistry.load([BUILTIN_PLUGINS]);
  const policy = new UrlPolicy(() => ({ allow: [], deny: [] }));
  const recorded: string[] = [];
  const counts: string[] = [];
  const hooks: OutboxHooks = {
    // as the alert engine's dispatch does, with a deadline far beyond the test
    deliver: (e, signal) => deliverOnce(registry, { type: 'webhook', settings: { url } }, e.notification, {
      timeoutMs: 60_000, idempotencyKey: `gaugeway-${e.account}-${e.id}`, externalUrl: null, log, pluginConfig: {}, policy, signal,
    }),
    record: async (_e, o) => { recorded.push(o.status); },
    count: (r) => { counts.push(r); },
  };
  const settings = () => ({ retryInitialMs: 100, maxAgeMs: 86_400_000 });
  const dir = tempDir(t);
  const store = await Store.open(dir, { sync: false });
  const commit = new CommitQueue(store.db, false);
  const outbox = new Outbox(store, commit, hooks, settings, log);
  await outbox.start();
  const { ops, entries } = await outbox.prepare(1, [7], notification);
  await commit.write(ops);
  outbox.schedule(entries);
  await poll(async () => (requests.length === 1 ? true : undefined));

  await outbox.stop();
  await poll(async () => (requests[0]!.closed ? true : undefined));
  t.same(recorded, [], 'a cut-short attempt is no delivery: nothing recorded');
  t.same(counts, [], 'nor counted');
  const onDisk = await store.json<OutboxEntry>('outbox').values().all();
  t.same(onDisk.map((e) => [e.id, e.attempts]), [[entries[0]!.id, 0]], 'the entry is left as it was');
  await store.close();

  hang = false;
  const store2 = await Store.open(dir, { sync: false });
  t.teardown(() => store2.close());
  const again = new Outbox(store2, new CommitQueue(store2.db, false), hooks, settings, log);
  t.teardown(() => again.stop());
  await again.start();
  await poll(async () => (again.length === 0 ? true : undefined));
  t.same(recorded, ['sent']);
  t.equal(requests.length, 2);
  t.equal(requests[1]!.key, requests[0]!.key, 'the same idempotency key as the attempt cut short');
});
