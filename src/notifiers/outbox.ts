// The durable outbox: every notification for every service is an entry in LevelDB, put in
// the same batch as the alert state that decided it, and delivered by a worker apart from
// requests and evaluations. A failed attempt is retried with exponential backoff and
// jitter until the entry is older than `notifications.retry_max_age`, then dropped (and
// recorded as failed). Entries survive kill -9: a restart delivers what was pending. A
// delivery that succeeded just before a crash may be repeated once after it: receivers
// get the same idempotency key for every attempt at one notification.
import { setMaxListeners } from 'node:events';
import type { Store } from '../store/db.js';
import type { CommitQueue, WriteOp } from '../store/commit.js';
import { Collection, idKey } from '../store/collection.js';
import { Sequence } from '../store/sequence.js';
import type { Logger } from '../log.js';
import type { Notification } from './plugin.js';
import type { DeliveryOutcome } from './deliver.js';

export interface OutboxEntry {
  id: number;
  account: number;
  service: number;
  notification: Notification;
  attempts: number;
  /** epoch ms */
  created_at: number;
  next_at: number;
}

export interface OutboxSettings {
  /** the first retry waits about this long; each later one twice as long, up to RETRY_CAP_MS */
  retryInitialMs: number;
  /** an entry this old is dropped after its failed attempt */
  maxAgeMs: number;
}

/** An attempt's outcome; `permanent`: no retry can succeed (refused for good, or the service is gone) */
export type AttemptOutcome = DeliveryOutcome;

export interface OutboxHooks {
  /** one attempt (never throws); `signal` aborts when the outbox stops: pass it on to the plugin */
  deliver(entry: OutboxEntry, signal: AbortSignal): Promise<AttemptOutcome>;
  /** the attempt's outcome, for the service's delivery log */
  record(entry: OutboxEntry, outcome: AttemptOutcome): Promise<void>;
  /** counts: sent, failed (an attempt), retried, dropped */
  count(result: 'sent' | 'failed' | 'retried' | 'dropped'): void;
}

/** An entry whose delivery has ended, waiting for its delete to be written. */
interface Settled {
  outcome: AttemptOutcome;
  /** refused deletes so far: the next one waits as a retry would */
  writeFailures: number;
}

/** Retries are at most this far apart (reliability.md rule 8: from 1 s, doubling, capped at 60 s). */
const RETRY_CAP_MS = 60_000;
/**
 * Notifications waiting for one service, at most. A receiver down for a day behind a
 * thousand firing alerts would otherwise gather ~10^5 entries in memory and on disk, more
 * than one attempt at a time could ever send before retry_max_age; past the bound the
 * oldest are dropped (recorded and counted as such), since the newest say most about now.
 */
export const MAX_PENDING_PER_SERVICE = 1000;
/** The one outbox key space: all accounts' entries, in id order. */
const ACCOUNT = 0;

export class Outbox {
  private readonly entries: Collection<OutboxEntry>;
  private readonly ids: Sequence;
  /** pending entries by service, each list in id order (the order they were decided) */
  private readonly queues = new Map<string, OutboxEntry[]>();
  /** ids of the entries in `queues`: an entry handed in twice (by `schedule` and by `start` reading it back) is queued once */
  private readonly queued = new Set<number>();
  private size = 0;
  /** services with an attempt under way, and its entry: one at a time each, so a slow one holds up only itself */
  private readonly busy = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  /** entries whose delivery has ended (sent, or given up) but whose delete has not been written yet */
  private readonly settled = new Map<number, Settled>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /**
   * Nothing is attempted before start() has read what is stored: an entry delivered (and
   * deleted) meanwhile could be read back by it and delivered again.
   */
  private started = false;
  /** aborted by stop: attempts in progress are cut short */
  private readonly stopping = new AbortController();

  constructor(
    store: Store,
    private readonly commit: CommitQueue,
    private readonly hooks: OutboxHooks,
    private readonly settings: () => OutboxSettings,
    private readonly log: Logger,
  ) {
    this.entries = new Collection<OutboxEntry>(store, 'outbox');
    this.ids = new Sequence(store, 'outbox');
    // one listener per attempt in progress, one attempt per service: not a leak
    setMaxListeners(0, this.stopping.signal);
  }

  get length(): number {
    return this.size;
  }

  /** Loads what a previous run left and starts delivering it. */
  async start(): Promise<void> {
    // key order is id order
    for await (const e of this.entries.range(ACCOUNT, '', '~')) this.enqueue(e);
    if (this.size) this.log.info({ pending: this.size }, 'delivering notifications left by the previous run');
    this.started = true;
    this.wake();
  }

  /**
   * Cuts the attempts in progress short and leaves their entries for the next start (as a
   * crash would): a receiver that hangs must not hold up the shutdown.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.stopping.abort();
    await Promise.allSettled([...this.running]);
  }

  /**
   * Entries for one notification to each service: write `ops` in the batch that decides
   * it, then hand `entries` to `schedule` once that batch is written.
   */
  async prepare(account: number, services: readonly number[], n: Notification): Promise<{ ops: WriteOp[]; entries: OutboxEntry[] }> {
    const ops: WriteOp[] = [];
    const entries: OutboxEntry[] = [];
    const now = Date.now();
    for (const service of services) {
      const { id, op } = await this.ids.next();
      const e: OutboxEntry = { id, account, service, notification: n, attempts: 0, created_at: now, next_at: now };
      ops.push(op, this.entries.put(ACCOUNT, idKey(id), e));
      entries.push(e);
    }
    return { ops, entries };
  }

  schedule(entries: readonly OutboxEntry[]): void {
    for (const e of entries) this.enqueue(e);
    this.wake();
  }

  /** Resolves once nothing is due now or under way (tests). Entries waiting for a retry stay. */
  async idle(): Promise<void> {
    for (;;) {
      await Promise.allSettled([...this.running]);
      const now = Date.now();
      // (before start nothing is attempted, so nothing is due)
      const due = this.started && [...this.queues].some(([key, queue]) => !this.busy.has(key) && queue[0]!.next_at <= now);
      if (this.running.size === 0 && !due) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  private serviceKey(e: OutboxEntry): string {
    return `${e.account}!${e.service}`;
  }

  /** Adds an entry to its service's queue in id order, dropping the oldest past the bound. */
  private enqueue(e: OutboxEntry): void {
    if (this.queued.has(e.id)) return;
    this.queued.add(e.id);
    const key = this.serviceKey(e);
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = []));
    queue.push(e);
    this.size++;
    if (queue.length > 1 && queue[queue.length - 2]!.id > e.id) queue.sort((a, b) => a.id - b.id);
    while (queue.length > MAX_PENDING_PER_SERVICE) {
      // the oldest that is neither being attempted nor delivered already (its delete pending)
      const at = queue.findIndex((x) => x.id !== this.busy.get(key) && !this.settled.has(x.id));
      const [old] = queue.splice(at, 1);
      this.queued.delete(old!.id);
      void this.drop(old!);
    }
  }

  private dequeue(e: OutboxEntry): void {
    const key = this.serviceKey(e);
    const queue = this.queues.get(key);
    const at = queue?.findIndex((x) => x.id === e.id) ?? -1;
    if (at < 0) return;
    queue!.splice(at, 1);
    this.queued.delete(e.id);
    this.size--;
    if (queue!.length === 0) this.queues.delete(key);
  }

  /**
   * An entry pushed out by newer ones (already out of its queue, never attempted again):
   * recorded as a failed delivery, then no longer counted in `length`, then counted as
   * dropped, as a last failed attempt is; then deleted from disk.
   */
  private async drop(e: OutboxEntry): Promise<void> {
    const error = `dropped unsent: more than ${MAX_PENDING_PER_SERVICE} newer notifications were waiting for this service`;
    this.log.warn({ service: e.service, alert: e.notification.alert.id, attempts: e.attempts }, 'notification dropped: too many waiting for its service');
    await this.hooks.record(e, { status: 'failed', error, duration_ms: 0 }).catch((err: unknown) => this.log.error({ err, service: e.service }, 'could not record a delivery'));
    this.size--;
    this.hooks.count('dropped');
    await this.commit.write([this.entries.del(ACCOUNT, idKey(e.id))])
      // left on disk, it is dropped again at the next start
      .catch((err: unknown) => this.log.error({ err, service: e.service }, 'outbox could not delete a dropped entry'));
  }

  /**
   * Starts the head of every free service's queue if it is due, and sets the timer for the
   * next one. Only the head: a service gets its notifications in the order they were
   * decided, so a clear never overtakes its trigger waiting for a retry, and a backlog
   * after an outage goes out in id order. Per service, not one sorted list of all.
   */
  private wake(): void {
    if (this.stopped || !this.started) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const now = Date.now();
    let next = Infinity;
    for (const [key, queue] of this.queues) {
      if (this.busy.has(key)) continue;
      const e = queue[0]!;
      if (e.next_at > now) {
        next = Math.min(next, e.next_at);
        continue;
      }
      this.busy.set(key, e.id);
      const run = this.attempt(e).catch((err: unknown) => {
        // hooks do not throw; should one, the entry waits rather than spin
        e.next_at = Date.now() + this.settings().retryInitialMs;
        this.log.error({ err, service: e.service }, 'outbox attempt failed');
      }).finally(() => {
        this.busy.delete(key);
        this.running.delete(run);
        this.wake();
      });
      this.running.add(run);
    }
    if (next !== Infinity) {
      this.timer = setTimeout(() => this.wake(), Math.max(0, next - now));
      this.timer.unref();
    }
  }

  private async attempt(e: OutboxEntry): Promise<void> {
    const settled = this.settled.get(e.id);
    if (settled) return this.finish(e, settled);
    const outcome = await this.deliverUntilStopped(e);
    // cut short by stop: the entry stays as it is on disk, for the next start
    if (outcome === null) return;
    const now = Date.now();
    e.attempts++;
    const done = outcome.status === 'sent' || outcome.permanent === true || now - e.created_at >= this.settings().maxAgeMs;
    if (outcome.status === 'sent') this.hooks.count('sent');
    else this.hooks.count('failed');
    // the attempt is history whatever becomes of the entry; recorded first so that anyone
    // who sees the entry leave the queue (or the dropped count rise) also finds its delivery.
    // Only what happened: whether it is retried is the outbox's business.
    const attempt = { status: outcome.status, error: outcome.error, duration_ms: outcome.duration_ms };
    await this.hooks.record(e, attempt).catch((err: unknown) => this.log.error({ err, service: e.service }, 'could not record a delivery'));
    if (done) {
      const ended = { outcome, writeFailures: 0 };
      this.settled.set(e.id, ended);
      return this.finish(e, ended);
    }
    e.next_at = now + this.backoff(e.attempts);
    // refused (full disk): the retry time holds in memory; the one on disk only makes a
    // retry after a restart come sooner
    await this.commit.write([this.entries.put(ACCOUNT, idKey(e.id), e)])
      .catch((err: unknown) => this.log.error({ err, service: e.service }, 'outbox could not save an entry\'s next retry'));
    this.hooks.count('retried');
  }

  /** The attempt's outcome, or null once stop aborts it (a hook that does not heed the signal is not waited for). */
  private async deliverUntilStopped(e: OutboxEntry): Promise<AttemptOutcome | null> {
    const signal = this.stopping.signal;
    if (signal.aborted) return null;
    let onAbort!: () => void;
    const stopped = new Promise<null>((resolve) => {
      onAbort = () => resolve(null);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([this.hooks.deliver(e, signal), stopped]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Deletes an entry whose delivery has ended (sent, or given up), then lets it leave its
   * queue. A refused delete (full disk) is tried again with backoff, the delivery never:
   * the entry stays at the head of its queue, so the service's later notifications keep
   * their order behind it.
   */
  private async finish(e: OutboxEntry, ended: Settled): Promise<void> {
    try {
      await this.commit.write([this.entries.del(ACCOUNT, idKey(e.id))]);
    } catch (err) {
      ended.writeFailures++;
      e.next_at = Date.now() + this.backoff(ended.writeFailures);
      this.log.error({ err, service: e.service }, 'outbox could not delete an entry whose delivery ended; trying the delete again, not the delivery');
      return;
    }
    this.settled.delete(e.id);
    this.dequeue(e);
    const { outcome } = ended;
    if (outcome.status !== 'sent') {
      this.hooks.count('dropped');
      const why = outcome.permanent ? 'notification dropped: the failure is permanent, not retried' : 'notification dropped after its last retry';
      this.log.warn({ service: e.service, alert: e.notification.alert.id, attempts: e.attempts, error: outcome.error, permanent: outcome.permanent === true }, why);
    }
  }

  /** The wait before retry number `n` (from 1): doubling from retry_initial_ms up to the cap, jittered. */
  private backoff(n: number): number {
    const delay = Math.min(RETRY_CAP_MS, this.settings().retryInitialMs * 2 ** (n - 1));
    // jitter: receivers coming back are not hit by every sender at once
    return Math.round(delay * (0.5 + Math.random() / 2));
  }
}
