// Checkpoints (timer, WAL size, shutdown) write what the head received since the last
// one, and no more: each window's new points become chunk parts (flush.ts: one per tier
// and window, the coarse tiers one per coarse window a series), so the work follows the
// arrival rate, never the size of the open windows. The parts go in batches of a few
// thousand operations, a series' parts always in one, encoded in slices (slice.ts), so
// appends interleave with them; the last batch deletes the WAL records taken at the start.
// A crash between batches is safe: replay skips the samples a written part already holds.
// After writing, windows idle past their end leave the head and are sealed (compaction.ts).
import { putOp, delOp, type WriteOp } from '../store/commit.js';
import type { EngineOptions, EngineState } from './state.js';
import type { Compactor } from './compaction.js';
import { encodeFlush, forEachPart, takeFlush, type Flush } from './flush.js';
import { TimeSlice } from './slice.js';
import { WINDOW, chunkKey, walKey } from './keys.js';
import type { HeadChunk } from './head.js';

/** A series' fixed place in [0, 1), spread evenly over consecutive ids (Fibonacci hashing). */
export function seriesPlace(series: number): number {
  return (Math.imul(series, 2654435761) >>> 0) / 4294967296;
}

/**
 * A series' place for its window's next part: its fixed place for the first, then a new
 * one a part. With one place a series, a size limit of L points is reached every
 * ceil(L / points a checkpoint interval) intervals, a whole number (8 to 13 for scrapes
 * every 5 s): series that started together stayed in step, so at minutes that number's
 * multiples share (24, 36, 40...) most of them wrote a part at once, and every 4 minutes
 * from minute 32 the fourth parts of a sixth of the series were merged at once (the
 * scrape workload's 12-25 CPU s minutes beside 5 s ones).
 */
export function partPlace(series: number, captures: number): number {
  return captures === 0 ? seriesPlace(series) : seriesPlace(series ^ Math.imul(captures, 0x27d4eb2f));
}

/**
 * Whether a window is sealed now: its end has passed and it had no write for
 * `sealIdleMs`, stretched by the series' place to up to twice that. Windows that end
 * together also go idle together: 50,000 series sealed at one checkpoint queued 200,000
 * merges at once, and the wide soak's read p99 reached 629 ms in the minute after.
 */
export function sealDue(c: Pick<HeadChunk, 'series' | 'window' | 'lastAppendMs'>, nowMs: number, sealIdleMs: number): boolean {
  return nowMs / 1000 >= c.window + WINDOW && nowMs - c.lastAppendMs >= sealIdleMs * (1 + seriesPlace(c.series));
}

/** An ended window's points are written within this many checkpoint intervals of its end. */
const END_SPREAD = 5;

/**
 * Whether a window's new points are written now: enough of them (a part of 120 points, as
 * Prometheus cuts its head chunks), or the oldest old enough, or the window has ended.
 * Sparse series wait: with an age limit of 10 minutes, 50,000 series at one point in 10 s
 * made parts of 30-60 points, and a grouped 1-hour read fetched several parts a series
 * and tier from LevelDB, one value each (the wide soak's read p99). Spread by series:
 * 50,000 series that start a window together would otherwise all reach the age limit, or
 * see their window end, at the same checkpoint, and write 200,000 parts in one go. Each
 * series has a place in [0, 1) for each part (partPlace): its age limit is 50-100 % of headMaxAgeMs, its
 * size limit 75-125 % of flushPoints (120 on average, as before: series at one point in
 * 10 s that started a window together all reached 120 points at one checkpoint, 20
 * minutes after the boundary, and the wide soak's read p99 reached 609 ms in that minute),
 * and an ended window waits up to END_SPREAD checkpoint intervals.
 */
export function writeDue(c: Pick<HeadChunk, 'series' | 'window' | 'size' | 'firstAppendMs'> & { captures?: number }, nowMs: number, opts: Pick<EngineOptions, 'flushPoints' | 'headMaxAgeMs' | 'checkpointMs'>): boolean {
  const { flushPoints = 120, headMaxAgeMs = 1_800_000, checkpointMs } = opts;
  const place = partPlace(c.series, c.captures ?? 0);
  if (c.size >= flushPoints * (0.75 + place / 2)) return true;
  const ended = (c.window + WINDOW) * 1000 + seriesPlace(c.series) * END_SPREAD * checkpointMs;
  return nowMs - c.firstAppendMs >= headMaxAgeMs * (0.5 + place / 2) || nowMs >= ended;
}

/** Operations a batch: large enough to be cheap, small enough not to hold appends up. */
const BATCH_OPS = 2000;

export class Checkpointer {
  private running: Promise<void> | null = null;
  /** st.walWritten as of the last checkpoint's cut that landed */
  private walCounted = 0;
  /** true once a checkpoint must stop writing (shutdown past its deadline) */
  private stopNow: () => boolean = () => false;

  constructor(private readonly st: EngineState, private readonly compactor: Compactor) {}

  /** Resolves once no checkpoint is running (failed or not). */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }

  /**
   * One checkpoint at a time; a call during one waits for it, then runs its own. `all`:
   * write every window's points, however few (at start and at shutdown).
   */
  checkpoint(all = false): Promise<void> {
    if (this.running) return this.running.then(() => this.checkpoint(all));
    const run = this.write(all).finally(() => { this.running = null; });
    this.running = run;
    return run;
  }

  /**
   * The shutdown checkpoint: every window's points, unless `stopNow` turns true first
   * (checked between series, the running checkpoint included). A million-series head
   * took longer to write than systemd waits; what is left unwritten stays in the WAL, as
   * after a crash between batches, and the next start replays it.
   */
  finish(stopNow: () => boolean): Promise<void> {
    this.stopNow = stopNow;
    return this.checkpoint(true);
  }

  /** Cut short by stopNow, it leaves everything unwritten in the head and the WAL. */
  private async write(all: boolean): Promise<void> {
    // past the deadline already (a checkpoint before this one used the time): take nothing
    if (this.stopNow()) return;
    const st = this.st;
    const { pts, heads, wal, meta } = st.keyspaces;
    // Synchronously: the windows written now and the WAL records they no longer need.
    // Appends from now on go to emptied head columns and later WAL records. A record stays
    // while a window still holds one of its points in the head; replay then skips the
    // samples of windows written since (wal-replay.ts).
    const nowMs = Date.now();
    // (an entry is let go once handed to a batch: what a flush holds, its points and
    // parts, then lives as long as its batch, not as long as the whole checkpoint)
    const flushes: (Flush | undefined)[] = [];
    // (a purge not yet committed has taken its windows from the head, not from the WAL)
    let keepFrom = st.purgeWalFloor();
    for (const chunks of st.head.series.values()) {
      const due: HeadChunk[] = [];
      for (const c of chunks) {
        if (c.size === 0) continue;
        if (all || writeDue(c, nowMs, st.opts)) due.push(c);
        else keepFrom = Math.min(keepFrom, c.firstSeq ?? Infinity);
      }
      if (due.length) flushes.push(takeFlush(st, due, !all));
    }
    const walSeqs = st.walSeqs.filter((seq) => seq < keepFrom);
    // (records kept for sparse windows are counted now, deleted later: an estimate)
    const walWritten = st.walWritten;
    const headDeletes = st.headDeletes;
    const orphans = st.orphanChunks;
    st.walSeqs = st.walSeqs.filter((seq) => seq >= keepFrom);
    st.headDeletes = [];
    st.orphanChunks = [];
    st.walBytes = 0;
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
    let cut = false;
    try {
      const slice = new TimeSlice();
      for (; next < flushes.length; next++) {
        if (this.stopNow()) {
          cut = true;
          break;
        }
        const f = flushes[next]!;
        flushes[next] = undefined;
        // in its batch before it is encoded: a flush that fails to encode goes back too
        batchFlushes.push(f);
        const { account, series } = f.windows[0]!.chunk;
        encodeFlush(f, (tier, window, part, buf) => ops.push(putOp(pts, chunkKey(account, tier, series, window, part), buf)));
        // a snapshot goes in the batch of the parts that hold its points: a checkpoint cut
        // short (or a crash) between batches never leaves a window in both
        for (const w of f.windows) if (w.chunk.snapshotKey !== null) ops.push(delOp(heads, w.chunk.snapshotKey));
        if (ops.length >= BATCH_OPS) await writeBatch();
        await slice.pause();
      }
      for (const key of orphans) ops.push(delOp(pts, key));
      // Cut short, the WAL records all stay (replay skips what the parts written hold).
      if (!cut) {
        for (const key of headDeletes) ops.push(delOp(heads, key));
        for (const seq of walSeqs) ops.push(delOp(wal, walKey(seq)));
      }
      ops.push(putOp(meta, 'seq', st.seq));
      await writeBatch();
      if (!cut) {
        st.reclaim.deleted('wal', walWritten - this.walCounted);
        this.walCounted = walWritten;
      }
    } catch (err) {
      // What was not written goes back, so nothing lives only in a lost batch (the store
      // is being reopened and the engine reloaded from disk; until then reads stay whole).
      // (flushes[next] is in batchFlushes, unless the loop was cut before taking it)
      for (const f of [...batchFlushes, ...flushes.slice(cut ? next : next + 1)]) for (const w of f!.windows) w.chunk.restore();
      st.walSeqs = [...walSeqs, ...st.walSeqs];
      st.headDeletes = [...headDeletes, ...st.headDeletes];
      st.orphanChunks = [...orphans, ...st.orphanChunks];
      throw err;
    }
    if (cut) {
      for (const f of flushes.slice(next)) for (const w of f!.windows) w.chunk.restore();
      st.walSeqs = [...walSeqs, ...st.walSeqs];
      st.headDeletes = [...headDeletes, ...st.headDeletes];
      st.log.warn({ written: next, left: flushes.length - next }, 'checkpoint stopped before its end (shutdown deadline): the series left are replayed from the write-ahead log at the next start');
      return;
    }
    this.sealIdle(Date.now());
  }

  /** A flush's parts are in LevelDB: the catalog lists them and the head lets go of them. */
  private landed(f: Flush): void {
    const st = this.st;
    for (const w of f.windows) {
      w.chunk.flushing = null;
      w.chunk.snapshotKey = null;
    }
    const { account, series } = f.windows[0]!.chunk;
    forEachPart(f, (tier, window, part) => {
      if (!st.index.byId.has(series)) {
        st.orphan(series, chunkKey(account, tier, series, window, part)); // its metric was deleted meanwhile
        return;
      }
      st.catalog.add(series, tier, window, part);
      this.compactor.added(account, series, tier, window);
    });
  }

  /** Windows whose end has passed and that had no write for a while leave the head (sealDue). */
  private sealIdle(nowMs: number): void {
    const st = this.st;
    for (const c of [...st.head.chunks()]) {
      if (c.size > 0 || c.flushing) continue;
      if (!sealDue(c, nowMs, st.opts.sealIdleMs)) continue;
      st.forget(c);
      this.compactor.seal(c.account, c.series, c.window);
    }
  }
}
