// Admission of wide reads (more series than one read batch): at most `concurrency` run at
// once, the rest wait their turn, and one that waits longer than `queueTimeoutMs` is
// refused with 503 instead of joining an ever-longer queue. Turns go round the accounts
// that are waiting, in arrival order within each: one account's burst of dashboards
// cannot push another account's reads past the timeout.
//
// Why: every read shares the one request thread. Unlimited, N wide reads in flight each
// get 1/N of it and all finish late together; once they arrive faster than the thread
// clears them, the pile grows and every read waits seconds (measured in process: 10,000
// series a read, reads every 60 ms: p50 7.5-8.8 s unlimited, p99 0.64-0.74 s with two at
// a time). One at a time leaves the thread idle while a read waits for LevelDB. The same
// guard as Prometheus's --query.max-concurrency and VictoriaMetrics's
// -search.maxConcurrentRequests / -search.maxQueueDuration.
import { ApiError } from '../errors.js';

export interface ReadGateLimits {
  /** wide reads running at once */
  concurrency: number;
  /** longest a wide read waits for its turn before it is refused (503) */
  queueTimeoutMs: number;
}

export interface Admission {
  /**
   * wait for its turn however long it takes, never refused: alert checks, where a refused
   * read would skip a round of evaluation
   */
  patient?: boolean;
  /** aborted: the read leaves the queue at once, rejected with the signal's reason */
  signal?: AbortSignal;
  /** whose read it is (the account): waiting reads are admitted round-robin by owner */
  owner?: number;
}

interface Waiter {
  owner: number | undefined;
  admit: () => void;
  timer: NodeJS.Timeout | null;
}

export class ReadGate {
  private running = 0;
  /** the waiting reads by owner; the map's order is the order of turns */
  private readonly queues = new Map<number | undefined, Waiter[]>();
  private queued = 0;
  /** wide reads refused because they waited too long (a self-metric) */
  refused = 0;

  /** `limits` is read on every admission, so a configuration reload applies at once. */
  constructor(private readonly limits: () => ReadGateLimits) {}

  /** wide reads waiting for their turn now */
  get waiting(): number {
    return this.queued;
  }

  /**
   * Runs `read` once its turn comes; rejects with 503 if that takes too long, unless
   * `patient`, and with the signal's reason if it is aborted first.
   */
  async run<T>(read: () => Promise<T>, { patient = false, signal, owner }: Admission = {}): Promise<T> {
    await this.enter(patient, signal, owner);
    try {
      return await read();
    } finally {
      this.leave();
    }
  }

  private enter(patient: boolean, signal: AbortSignal | undefined, owner: number | undefined): Promise<void> {
    // a client that went away while its request was parsed: nothing to admit
    if (signal?.aborted) return Promise.reject(signal.reason);
    // a reload may have raised the limit since the last read ended: those waiting go first
    this.admitWaiting();
    const { concurrency, queueTimeoutMs } = this.limits();
    if (this.running < concurrency && this.queued === 0) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      // A read whose client went away leaves the queue: left in it, it would run later for
      // nobody and hold the thread from those still waiting.
      const abandon = () => {
        this.dequeue(waiter);
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        owner,
        admit: () => {
          if (waiter.timer) clearTimeout(waiter.timer);
          signal?.removeEventListener('abort', abandon);
          this.running++;
          resolve();
        },
        timer: patient ? null : setTimeout(() => {
          signal?.removeEventListener('abort', abandon);
          this.dequeue(waiter);
          this.refused++;
          reject(new ApiError(503, {
            system: [`Too many wide queries (over ${concurrency} at once) waited longer than ${queueTimeoutMs} ms for their turn; retry shortly (limits.wide_reads)`],
          }, { 'Retry-After': '1' }));
        }, queueTimeoutMs),
      };
      signal?.addEventListener('abort', abandon, { once: true });
      const mine = this.queues.get(owner);
      if (mine) mine.push(waiter);
      else this.queues.set(owner, [waiter]);
      this.queued++;
    });
  }

  private dequeue(waiter: Waiter): void {
    if (waiter.timer) clearTimeout(waiter.timer);
    const mine = this.queues.get(waiter.owner);
    const at = mine ? mine.indexOf(waiter) : -1;
    if (at < 0) return;
    mine!.splice(at, 1);
    this.queued--;
    if (mine!.length === 0) this.queues.delete(waiter.owner);
  }

  /** The first waiting read of the owner whose turn it is; that owner goes to the back. */
  private next(): Waiter {
    const [owner, mine] = this.queues.entries().next().value!;
    const waiter = mine.shift()!;
    this.queued--;
    this.queues.delete(owner);
    if (mine.length) this.queues.set(owner, mine);
    return waiter;
  }

  private leave(): void {
    this.running--;
    this.admitWaiting();
  }

  /** Lets waiting reads in while there is room (more room after a reload raised the limit). */
  private admitWaiting(): void {
    const { concurrency } = this.limits();
    while (this.running < concurrency && this.queued > 0) this.next().admit();
  }
}
