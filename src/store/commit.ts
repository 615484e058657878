// Group commit: concurrent writers hand in their operations; whichever batch is open
// when the previous fsync finishes is written as one LevelDB batch. Each caller's
// promise resolves only after the batch holding its operations is on disk, so an
// acknowledged write survives kill -9 (and, with sync, a machine crash).
import type { Db } from './db.js';
import { ApiError } from '../errors.js';

/** One put or del, usually aimed at a sublevel of the root database. */
export type WriteOp =
  | { type: 'put'; sublevel?: unknown; key: string; value: unknown }
  | { type: 'del'; sublevel?: unknown; key: string };

interface Pending {
  ops: WriteOp[];
  waiters: { resolve: () => void; reject: (e: unknown) => void }[];
}

export class CommitQueue {
  private open: Pending | null = null;
  private writing = false;
  /** set after a failed write: nothing more is acknowledged until reset */
  failed: Error | null = null;

  /** consulted before every write: a reason to refuse it (full disk), or null */
  admit: () => ApiError | null = () => null;

  constructor(private readonly db: Db, private readonly sync: boolean, private readonly onError: (e: Error) => void = () => {}) {}

  write(ops: WriteOp[]): Promise<void> {
    if (this.failed) {
      return Promise.reject(new ApiError(503, { system: ['Storage failed a write and refuses further writes until the service is restarted; reads still work'] }));
    }
    const refusal = this.admit();
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
        await this.db.batch(batch.ops as never, { sync: this.sync });
        for (const w of batch.waiters) w.resolve();
      } catch (err) {
        this.failed = err as Error;
        this.onError(err as Error);
        const refused = new ApiError(503, { system: ['Storage failed a write; nothing in this request was stored'] });
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
