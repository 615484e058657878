// Group commit: concurrent writers hand in their operations; whichever batch is open
// when the previous fsync finishes is written as one LevelDB batch. Each caller's
// promise resolves only after the batch holding its operations is on disk, so an
// acknowledged write survives kill -9 (and, with sync, a machine crash).
import type { Db, Sublevel } from './db.js';
import { ApiError } from '../errors.js';

/**
 * A sublevel whatever its value type, as LevelDB's batch takes it. Sublevel types are
 * invariant in their value type, so `any` is the only argument that admits them all
 * (abstract-level's own batch signature uses it); putOp below is where types are checked.
 */
type AnySublevel = Sublevel<any>;

/**
 * One put or del aimed at a sublevel of the database, built by putOp / delOp: a put's
 * value has its sublevel's value type, and the batch encodes it with that sublevel's
 * encoding.
 */
export type WriteOp =
  | { readonly type: 'put'; readonly sublevel: AnySublevel; readonly key: string; readonly value: unknown }
  | { readonly type: 'del'; readonly sublevel: AnySublevel; readonly key: string };

export function putOp<V>(sublevel: Sublevel<V>, key: string, value: NoInfer<V>): WriteOp {
  return { type: 'put', sublevel, key, value };
}

export function delOp<V>(sublevel: Sublevel<V>, key: string): WriteOp {
  return { type: 'del', sublevel, key };
}

interface Pending {
  ops: WriteOp[];
  waiters: { resolve: () => void; reject: (e: unknown) => void }[];
}

export const DISK_FULL = 'Not enough free disk space: writes are refused until space is freed; reads still work';

/** LevelDB reports a full disk as an IO error naming ENOSPC. */
export function isDiskFull(err: unknown): boolean {
  const text = (e: unknown): string => (e instanceof Error ? `${e.message} ${text(e.cause)}` : '');
  return /No space left on device|ENOSPC/i.test(text(err));
}

export class CommitQueue {
  private open: Pending | null = null;
  private writing = false;
  /**
   * set after a failed write: LevelDB refuses every later write until it is reopened, and
   * state built in memory for the failed batch must be rebuilt (store/recovery.ts)
   */
  failed: Error | null = null;

  /** consulted before every write: a reason to refuse it (full disk), or null */
  admit: () => ApiError | null = () => null;

  /**
   * Frozen on purpose: abstract-level copies the batch options into every operation
   * (`{ ...options, ...op }`), and V8 copies a plain `{ sync: true }` that way about five
   * times slower than a frozen one (5 against 1 µs an operation, measured on this
   * machine's Node 20): a checkpoint's thousands of chunk parts paid that on the request
   * thread.
   */
  private readonly batchOptions: { readonly sync: boolean };

  constructor(private readonly db: Db, sync: boolean, private readonly onError: (e: Error) => void = () => {}) {
    this.batchOptions = Object.freeze({ sync });
  }

  /** Why a write would be refused now (a failed store, a full disk), or null. */
  refusal(): ApiError | null {
    if (this.failed) {
      return isDiskFull(this.failed)
        ? new ApiError(507, { system: [DISK_FULL] })
        : new ApiError(503, { system: ['Storage failed a write and is being reopened: retry shortly; reads still work'] });
    }
    return this.admit();
  }

  /** The store was reopened and what depends on it rebuilt: writes are accepted again. */
  recovered(): void {
    this.failed = null;
  }

  write(ops: WriteOp[]): Promise<void> {
    const refusal = this.refusal();
    if (refusal) return Promise.reject(refusal);
    if (ops.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (!this.open) this.open = { ops: [], waiters: [] };
      for (const op of ops) this.open.ops.push(op);
      this.open.waiters.push({ resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.open) {
      const batch = this.open;
      this.open = null;
      try {
        await this.db.batch<string, unknown>(batch.ops, this.batchOptions);
        for (const w of batch.waiters) w.resolve();
      } catch (err) {
        this.failed = err as Error;
        this.onError(err as Error);
        const refused = isDiskFull(err)
          ? new ApiError(507, { system: [DISK_FULL] })
          : new ApiError(503, { system: ['Storage failed a write; nothing in this request was stored'] });
        for (const w of batch.waiters) w.reject(refused);
        const rest = this.open as Pending | null;
        this.open = null;
        for (const w of rest?.waiters ?? []) w.reject(refused);
      }
    }
    this.writing = false;
  }

  /** Resolves once everything handed in so far is written. */
  async idle(): Promise<void> {
    while (this.writing || this.open) await new Promise((r) => setImmediate(r));
  }
}
