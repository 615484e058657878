// The durable outbox: every notification for every service is an entry in LevelDB, put in
// the same batch as the alert state that decided it, and delivered by a worker apart from
// requests and evaluations. A failed attempt is retried with exponential backoff and
// jitter until the entry is older than `notifications.retry_max_age`, then dropped (and
// recorded as failed). Entries survive kill -9: a restart delivers what was pending. A
// delivery that succeeded just before a crash may be repeated once after it: receivers
// get the same idempotency key for every attempt at one notification.
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

/** `permanent`: no retry can succeed (the service is gone) */
export type AttemptOutcome = DeliveryOutcome & { permanent?: boolean };

export interface OutboxHooks {
  /** one attempt (never throws) */
  deliver(entry: OutboxEntry): Promise<AttemptOutcome>;
  /** the attempt's outcome, for the service's delivery log */
  record(entry: OutboxEntry, outcome: AttemptOutcome): Promise<void>;
  /** counts: sent, failed (an attempt), retried, dropped */
  count(result: 'sent' | 'failed' | 'retried' | 'dropped'): void;
}

const RETRY_CAP_MS = 10 * 60_000;
/** The one outbox key space: all accounts' entries, in id order. */
const ACCOUNT = 0;

export class Outbox {
  private readonly entries: Collection<OutboxEntry>;
  private readonly ids: Sequence;
  private readonly pending = new Map<number, OutboxEntry>();
  /** services with an attempt under way: one at a time each, so a slow one holds up only itself */
  private readonly busy = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    store: Store,
    private readonly commit: CommitQueue,
    private readonly hooks: OutboxHooks,
    private readonly settings: () => OutboxSettings,
    private readonly log: Logger,
  ) {
    this.entries = new Collection<OutboxEntry>(store, 'outbox');
    this.ids = new Sequence(store, 'outbox');
  }

  get length(): number {
    return this.pending.size;
  }

  /** Loads what a previous run left and starts delivering it. */
  async start(): Promise<void> {
    for (const e of await this.entries.list(ACCOUNT)) this.pending.set(e.id, e);
    if (this.pending.size) this.log.info({ pending: this.pending.size }, 'delivering notifications left by the previous run');
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
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
    for (const e of entries) this.pending.set(e.id, e);
    this.wake();
  }

  /** Resolves once nothing is due now or under way (tests). Entries waiting for a retry stay. */
  async idle(): Promise<void> {
    for (;;) {
      await Promise.allSettled([...this.running]);
      const now = Date.now();
      if (this.running.size === 0 && ![...this.pending.values()].some((e) => e.next_at <= now && !this.busy.has(this.serviceKey(e)))) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  private serviceKey(e: OutboxEntry): string {
    return `${e.account}!${e.service}`;
  }

  /** Starts every due entry whose service is free, and sets the timer for the next one. */
  private wake(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const now = Date.now();
    let next = Infinity;
    for (const e of [...this.pending.values()].sort((a, b) => a.id - b.id)) {
      const key = this.serviceKey(e);
      if (this.busy.has(key)) continue;
      if (e.next_at > now) {
        next = Math.min(next, e.next_at);
        continue;
      }
      this.busy.add(key);
      const run = this.attempt(e).finally(() => {
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
    try {
      const outcome = await this.hooks.deliver(e);
      const now = Date.now();
      e.attempts++;
      const done = outcome.status === 'sent' || outcome.permanent === true || now - e.created_at >= this.settings().maxAgeMs;
      if (outcome.status === 'sent') this.hooks.count('sent');
      else this.hooks.count('failed');
      // the attempt is history whatever becomes of the entry; recorded first so that anyone
      // who sees the entry leave the queue (or the dropped count rise) also finds its delivery
      await this.hooks.record(e, outcome).catch((err: unknown) => this.log.error({ err, service: e.service }, 'could not record a delivery'));
      if (done) {
        await this.commit.write([this.entries.del(ACCOUNT, idKey(e.id))]);
        this.pending.delete(e.id);
        if (outcome.status !== 'sent') {
          this.hooks.count('dropped');
          this.log.warn({ service: e.service, alert: e.notification.alert.id, attempts: e.attempts, error: outcome.error }, 'notification dropped after its last retry');
        }
      } else {
        const { retryInitialMs } = this.settings();
        const backoff = Math.min(RETRY_CAP_MS, retryInitialMs * 2 ** (e.attempts - 1));
        // jitter: receivers coming back are not hit by every sender at once
        e.next_at = now + Math.round(backoff * (0.5 + Math.random() / 2));
        await this.commit.write([this.entries.put(ACCOUNT, idKey(e.id), e)]);
        this.hooks.count('retried');
      }
    } catch (err) {
      // the store refused the write (full disk): try again later, nothing is lost
      e.next_at = Date.now() + this.settings().retryInitialMs;
      this.log.error({ err, service: e.service }, 'outbox could not update an entry');
    }
  }
}
