// Monotonic integer ids per kind. The next value lives in memory (one process owns the
// database) and is persisted in the same batch as the record that uses it.
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
}
