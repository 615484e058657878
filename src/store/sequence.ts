// Monotonic integer ids per kind. The next value lives in memory (one process owns the
// database) and is persisted in the same batch as the record that uses it.
//
// `next()`'s op persists the id it reserved. That is only safe when nothing else can
// reserve and write between that reservation and the write: otherwise a later id can be
// written first and this op then sets the stored value back, and after a restart the ids
// in between are handed out a second time (a record with one of them is overwritten).
// Writers that await between reserving and writing use `highWaterOp()` instead.
import type { Store } from './db.js';
import { putOp, type WriteOp } from './commit.js';

export class Sequence {
  private readonly level;
  private current: number | null = null;
  private loading: Promise<void> | null = null;

  constructor(store: Store, private readonly name: string) {
    this.level = store.json<number>('seq');
  }

  /** Reserve the next id; returns it with the operation that persists the reservation. */
  async next(): Promise<{ id: number; op: WriteOp }> {
    if (this.current === null) {
      this.loading ??= this.level.get(this.name).then((v) => { this.current ??= v ?? 0; });
      await this.loading;
    }
    const id = ++this.current!;
    return { id, op: putOp(this.level, this.name, id) };
  }

  /**
   * The op that persists every id reserved so far, or null before the first reservation.
   * Taken right before the write that stores the records (no await in between), the last
   * one written is also the highest, whatever order the writers reserved in.
   */
  highWaterOp(): WriteOp | null {
    return this.current === null ? null : putOp(this.level, this.name, this.current);
  }
}
