// Checkpoints (timer, WAL size, shutdown) write what the head received since the last
// one, and no more: each window's new points become one chunk part per tier (flush.ts),
// so the work follows the arrival rate, never the size of the open windows. The parts go
// in batches of a few thousand operations, encoded in slices (slice.ts), so appends
// interleave with them; the last batch deletes the WAL records taken at the start. A
// crash between batches is safe: replay skips the samples a written part already holds.
// After writing, windows idle past their end leave the head and are sealed (compaction.ts).
import { putOp, delOp, type WriteOp } from '../store/commit.js';
import type { EngineState } from './state.js';
import type { Compactor } from './compaction.js';
import { encodeFlush, takeFlush, type Flush } from './flush.js';
import { TimeSlice } from './slice.js';
import { WINDOW, walKey } from './keys.js';

/** Operations a batch: large enough to be cheap, small enough not to hold appends up. */
const BATCH_OPS = 2000;

export class Checkpointer {
  private running: Promise<void> | null = null;

  constructor(private readonly st: EngineState, private readonly compactor: Compactor) {}

  /** Resolves once no checkpoint is running (failed or not). */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  /** One checkpoint at a time; a call during one waits for it, then runs its own. */
  checkpoint(): Promise<void> {
    if (this.running) return this.running.then(() => this.checkpoint());
    const run = this.write().finally(() => { this.running = null; });
    this.running = run;
    return run;
  }

  private async write(): Promise<void> {
    const st = this.st;
    const { pts, heads, wal, meta } = st.keyspaces;
    // Synchronously: the WAL records so far and the points they hold. Appends from now on
    // go to fresh head columns and later WAL records, which the next checkpoint takes.
    const walSeqs = st.walSeqs;
    const headDeletes = st.headDeletes;
    const orphans = st.orphanChunks;
    st.walSeqs = [];
    st.headDeletes = [];
    st.orphanChunks = [];
    st.walBytes = 0;
    const flushes: Flush[] = [];
    for (const c of st.head.chunks()) if (c.size > 0) flushes.push(takeFlush(st, c));
    let ops: WriteOp[] = [];
    let batchFlushes: Flush[] = [];
    let next = 0;
    const writeBatch = async () => {
      const batch = ops;
      ops = [];
      await st.commit.write(batch);
      const written = batchFlushes;
      batchFlushes = [];
      for (const f of written) this.landed(f);
    };
    try {
      const slice = new TimeSlice();
      for (; next < flushes.length; next++) {
        const f = flushes[next]!;
        const bufs = encodeFlush(f);
        f.parts.forEach((p, i) => ops.push(putOp(pts, p.key, bufs[i]!)));
        batchFlushes.push(f);
        if (ops.length >= BATCH_OPS) await writeBatch();
        await slice.pause();
      }
      for (const key of headDeletes) ops.push(delOp(heads, key));
      for (const key of orphans) ops.push(delOp(pts, key));
      for (const seq of walSeqs) ops.push(delOp(wal, walKey(seq)));
      ops.push(putOp(meta, 'seq', st.seq));
      await writeBatch();
    } catch (err) {
      // What was not written goes back, so nothing lives only in a lost batch (the store
      // is being reopened and the engine reloaded from disk; until then reads stay whole).
      for (const f of [...batchFlushes, ...flushes.slice(next + 1)]) f.chunk.restore();
      st.walSeqs = [...walSeqs, ...st.walSeqs];
      st.headDeletes = [...headDeletes, ...st.headDeletes];
      st.orphanChunks = [...orphans, ...st.orphanChunks];
      throw err;
    }
    this.sealIdle(Date.now());
  }

  /** A flush's parts are in LevelDB: the catalog lists them and the head lets go of them. */
  private landed(f: Flush): void {
    const st = this.st;
    const c = f.chunk;
    c.flushing = null;
    for (const p of f.parts) {
      if (!st.index.byId.has(c.series)) {
        st.orphanChunks.push(p.key); // its metric was deleted meanwhile
        continue;
      }
      st.catalog.add(c.series, p.tier, p.window, p.part);
      this.compactor.added(c.account, c.series, p.tier, p.window);
    }
  }

  /** Windows whose end has passed and that had no write for `sealIdleMs` leave the head. */
  private sealIdle(nowMs: number): void {
    const st = this.st;
    for (const c of [...st.head.chunks()]) {
      if (c.size > 0 || c.flushing) continue;
      if (nowMs - c.lastAppendMs < st.opts.sealIdleMs || nowMs / 1000 < c.window + WINDOW) continue;
      st.forget(c);
      this.compactor.seal(c.account, c.series, c.window);
    }
  }
}
