// Many writes that need not land together (deleting a stream's events, a space's charts,
// expired jobs), cut into batches: one write of a million deletes would hold the whole
// list and one huge LevelDB batch in memory at once. Callers order their work so that a
// crash between batches leaves something that doing the work again finishes.
import type { CommitQueue, WriteOp } from './commit.js';

export const WRITE_BATCH = 1000;

export class BatchedWrites {
  private ops: WriteOp[] = [];

  constructor(private readonly commit: CommitQueue, private readonly size = WRITE_BATCH) {}

  /** Queues the operations, writing a batch once `size` are waiting. */
  async add(...ops: WriteOp[]): Promise<void> {
    this.ops.push(...ops);
    if (this.ops.length >= this.size) await this.flush();
  }

  /** Writes what is waiting. */
  async flush(): Promise<void> {
    if (this.ops.length === 0) return;
    const ops = this.ops;
    this.ops = [];
    await this.commit.write(ops);
  }
}
