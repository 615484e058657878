// Checkpoints (timer, WAL size, shutdown): one atomic batch writes the sealed chunks,
// snapshots of the open windows changed since the last checkpoint, and deletes the WAL
// records they cover. After it, replay needs only the snapshots and the WAL records
// written since (wal-replay.ts).
import { putOp, delOp, type WriteOp } from '../store/commit.js';
import type { EngineState, Pending } from './state.js';
import { encodeChunk } from './chunk.js';
import { sealIdle } from './seal.js';
import { headKey, walKey } from './keys.js';

export class Checkpointer {
  private running: Promise<void> | null = null;

  constructor(private readonly st: EngineState) {}

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

  /** Writes sealed chunks and head snapshots, and drops the WAL records they cover. */
  private async write(): Promise<void> {
    const st = this.st;
    const { pts, heads, wal, meta } = st.keyspaces;
    sealIdle(st, Date.now());
    const ops: WriteOp[] = [];
    for (const key of st.headDeletes) ops.push(delOp(heads, key));
    st.headDeletes = [];
    const flushed: Pending[] = [];
    for (const bySeries of st.pending.values()) {
      for (const p of bySeries.values()) {
        ops.push(putOp(pts, p.key, p.buf));
        flushed.push(p);
      }
    }
    for (const c of st.head.chunks()) {
      if (!c.dirty) continue;
      ops.push(putOp(heads, headKey(c.account, c.series, c.window), encodeChunk(c.points(), c.window)));
      c.dirty = false;
      c.snapshotted = true;
    }
    for (const seq of st.walSeqs) ops.push(delOp(wal, walKey(seq)));
    st.walSeqs = [];
    st.walBytes = 0;
    st.pendingBytes = 0;
    if (ops.length === 0) return;
    ops.push(putOp(meta, 'seq', st.seq));
    await st.commit.write(ops);
    for (const p of flushed) {
      const bySeries = st.pending.get(p.series);
      if (!bySeries) continue; // purged meanwhile
      st.catalog.add(p.series, p.tier, p.window, p.part);
      bySeries.delete(p.key);
      if (bySeries.size === 0) st.pending.delete(p.series);
    }
  }
}
