// After a failed write, LevelDB refuses every later write until it is reopened. This
// brings the service back without a restart: once the disk guard sees room again, it
// reopens the store, lets the owners of in-memory state rebuild it from what is stored
// (the engine replays its snapshots and WAL: everything acknowledged is there), and
// only then lets the commit queue accept writes again.
import type { Logger } from '../log.js';
import type { Store } from './db.js';
import { isDiskFull, type CommitQueue } from './commit.js';
import type { DiskGuard } from './disk-guard.js';

export class StoreRecovery {
  private timer: NodeJS.Timeout | null = null;
  private attempt: Promise<void> | null = null;
  private waitingForSpace = false;

  constructor(
    private readonly store: Store,
    private readonly commit: CommitQueue,
    private readonly disk: DiskGuard,
    /** rebuilds in-memory state from the reopened store (the engine's reload) */
    private readonly rebuild: () => Promise<void>,
    private readonly log: Logger,
    private readonly intervalMs = 2000,
  ) {}

  /** A write failed: refuse writes (the commit queue does) and start trying to recover. */
  failed(err: Error): void {
    const full = isDiskFull(err);
    this.log.error({ err: err.message }, full
      ? 'the disk is full: writes are refused (507) until space is freed; the store is reopened then, without a restart'
      : 'LevelDB failed a write: writes are refused (503) while the store is reopened');
    // the guard polls once a second; read it now so refusals say 507 at once
    void this.disk.check();
    if (this.timer) return;
    this.timer = setInterval(() => { this.attempt ??= this.tryRecover().finally(() => { this.attempt = null; }); }, this.intervalMs);
    this.timer.unref();
  }

  private async tryRecover(): Promise<void> {
    if (!this.commit.failed) return this.done();
    await this.disk.check();
    if (this.disk.refusing || (isDiskFull(this.commit.failed) && !this.disk.hasRoom())) {
      if (!this.waitingForSpace) this.log.warn({ free: this.disk.free }, 'waiting for free disk space before reopening the store');
      this.waitingForSpace = true;
      return;
    }
    try {
      await this.commit.idle();
      await this.store.reopen();
      await this.rebuild();
      this.commit.recovered();
      this.log.info({ free: this.disk.free }, 'the store was reopened: accepting writes again');
      this.done();
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'reopening the store failed; trying again');
    }
  }

  private done(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.waitingForSpace = false;
  }

  stop(): void {
    this.done();
  }

  /** Resolves once no attempt is running (shutdown waits for it). */
  async idle(): Promise<void> {
    await this.attempt;
  }
}
