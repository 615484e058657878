// LevelDB frees the space of a deleted or overwritten key only when a compaction rewrites
// the table file that holds it, and it compacts a level only once that level is full
// (10 MB, 100 MB, 1 GB, ...). So in a store of a few hundred MB, what the engine deletes
// stays on disk: after the issue-3 benchmark's ingest, the 58 MB of WAL records that
// checkpoints had deleted and the parts that merges had replaced doubled the data
// directory (9.1 bytes a sample as the service left it, 4.5 after `gaugeway store
// compact`), and sealing the windows later added more. The keyspaces that churn report
// what they leave behind here, and once that is both at least `minBytes` and a `share`
// of the keyspace's size on disk, the keyspace's range is compacted: the work is done
// on LevelDB's own thread, one range at a time, and never blocks the caller.
import type { Db } from './db.js';
import type { Logger } from '../log.js';

export interface ReclaimOptions {
  /** never compact for less than this */
  minBytes: number;
  /** compact once what was deleted is this share of the range's size on disk */
  share: number;
}

export const RECLAIM_DEFAULTS: ReclaimOptions = { minBytes: 16 * 1024 * 1024, share: 0.25 };

export class SpaceReclaimer {
  /** bytes deleted or overwritten since each keyspace's last compaction */
  private readonly left = new Map<string, number>();
  private running: Promise<void> | null = null;
  /** ranges compacted so far */
  reclaims = 0;

  constructor(private readonly db: Db, private readonly log: Logger, private readonly opts: ReclaimOptions = RECLAIM_DEFAULTS) {}

  /** `bytes` of the sublevel `keyspace` were deleted or overwritten (and that write landed). */
  deleted(keyspace: string, bytes: number): void {
    if (bytes <= 0) return;
    this.left.set(keyspace, (this.left.get(keyspace) ?? 0) + bytes);
    this.running ??= this.reclaim().finally(() => { this.running = null; });
  }

  /** Bytes deleted and not yet compacted away, all keyspaces together (an estimate: LevelDB may have freed some on its own). */
  get pending(): number {
    let sum = 0;
    for (const bytes of this.left.values()) sum += bytes;
    return sum;
  }

  /** Resolves once no compaction runs. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async reclaim(): Promise<void> {
    for (const [keyspace, bytes] of this.left) {
      if (bytes < this.opts.minBytes) continue;
      // a sublevel's keys are `!name!...` in the root database
      const start = `!${keyspace}!`;
      const end = `!${keyspace}"`;
      let taken = 0;
      try {
        const size = await this.db.approximateSize(start, end);
        if (bytes < this.opts.share * size) continue;
        // counted afresh from here: deletions that land during the compaction may stay
        taken = bytes;
        this.left.set(keyspace, this.left.get(keyspace)! - bytes);
        await this.db.compactRange(start, end);
        this.reclaims++;
        const after = await this.db.approximateSize(start, end);
        this.log.info({ keyspace, deletedBytes: bytes, bytesBefore: size, bytesAfter: after }, 'compacted a keyspace to free what was deleted');
      } catch (err) {
        // a closed or failing store: the bytes stay counted, and a later deletion tries again
        this.left.set(keyspace, (this.left.get(keyspace) ?? 0) + taken);
        this.log.warn({ err, keyspace }, 'could not compact a keyspace to free what was deleted');
        return;
      }
    }
  }
}
