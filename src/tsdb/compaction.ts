// Compaction: every checkpoint adds one small part per tier to each window that received
// points, so parts are merged in the background, the way a binary counter carries: when
// the newest FANOUT parts of a window share a level, they become one part a level higher.
// A point is rewritten about log_FANOUT(checkpoints per window) times and a window holds
// at most (FANOUT - 1) parts per level. When a window closes (idle past its end) all its
// parts are merged into one, SEALED.
//
// A merged part takes the key of the newest part it replaces, in one batch that deletes
// the others: a read that listed the old keys gets either all of them or the merged part
// alone (getMany reads one LevelDB snapshot), never a point twice. Jobs run in slices on
// the request thread (slice.ts) and never beside the retention pass (the engine's mutex).
import { delOp, putOp, type WriteOp } from '../store/commit.js';
import type { EngineState } from './state.js';
import { SEALED } from './catalog.js';
import { decodeChunk, encodeChunk } from './chunk.js';
import { sortMerge } from './points.js';
import { PART_TIERS, chunkKey, windowOf, type PartTier } from './keys.js';
import { Mutex, TimeSlice } from './slice.js';

export const FANOUT = 4;
/** jobs read with one getMany and written in one batch */
const JOBS_A_ROUND = 256;

interface Job {
  account: number;
  series: number;
  /** where the parts are stored: parts are merged with their own kind only */
  tier: PartTier;
  window: number;
  /** part numbers to merge, oldest first */
  parts: number[];
  level: number;
}

export class Compactor {
  private readonly queue = new Map<string, Job>();
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly st: EngineState, private readonly mutex: Mutex) {}

  /** A checkpoint added a part to this window: merge its newest parts if they allow. */
  added(account: number, series: number, tier: PartTier, window: number): void {
    const parts = this.st.catalog.window(series, tier, window);
    const level = parts[parts.length - 1]?.level ?? -1;
    if (level < 0 || level >= SEALED) return;
    let run = 0;
    while (run < parts.length && parts[parts.length - 1 - run]!.level === level) run++;
    if (run < FANOUT) return;
    this.enqueue({ account, series, tier, window, parts: parts.slice(-run).map((p) => p.part), level: level + 1 });
  }

  /** A raw window closed: merge each tier's window holding it into one part (one a place parts are stored). */
  seal(account: number, series: number, rawWindow: number): void {
    for (const tier of PART_TIERS) this.sealWindow(account, series, tier, windowOf(rawWindow, tier));
  }

  private sealWindow(account: number, series: number, tier: PartTier, window: number): void {
    const parts = this.st.catalog.window(series, tier, window).filter((p) => p.level >= 0);
    if (parts.length > 1) this.enqueue({ account, series, tier, window, parts: parts.map((p) => p.part), level: SEALED });
    else if (parts.length === 1) this.st.catalog.setLevel(series, tier, window, parts[0]!.part, SEALED);
  }

  /** Plans a job again after its window changed under it (a merge before it took some parts). */
  private replan(j: Job): void {
    if (!this.st.index.byId.has(j.series)) return;
    if (j.level === SEALED) this.sealWindow(j.account, j.series, j.tier, j.window);
    else this.added(j.account, j.series, j.tier, j.window);
  }

  private enqueue(job: Job): void {
    if (this.stopped) return;
    const key = `${job.series}:${job.tier}:${job.window}`;
    // A seal merges every part a level merge would. The merge running when a seal is
    // queued plans the next level's when it lands: in the seal's place, it left the
    // window in a few parts until the retention pass.
    if (job.level < SEALED && this.queue.get(key)?.level === SEALED) return;
    this.queue.set(key, job);
    this.running ??= this.drain().finally(() => { this.running = null; });
  }

  /** Resolves once the queue is empty (or the compactor stopped). */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
  }

  /** Finishes the round under way and takes no more jobs. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.clear();
    await this.running?.catch(() => undefined);
  }

  private async drain(): Promise<void> {
    while (this.queue.size && !this.stopped) {
      const jobs: Job[] = [];
      for (const [key, job] of this.queue) {
        this.queue.delete(key);
        jobs.push(job);
        if (jobs.length === JOBS_A_ROUND) break;
      }
      try {
        await this.mutex.run(() => this.round(jobs));
      } catch (err) {
        // nothing is lost: the parts stay as they were, and a later checkpoint plans again
        this.st.log.error({ err }, 'chunk compaction failed');
        return;
      }
    }
  }

  /** Whether a job's parts are all still stored and its series still exists. */
  private valid(j: Job): boolean {
    const { catalog, index } = this.st;
    return index.byId.has(j.series) && j.parts.every((p) => catalog.has(j.series, j.tier, j.window, p));
  }

  private async round(planned: Job[]): Promise<void> {
    const st = this.st;
    const pts = st.keyspaces.pts;
    const jobs: Job[] = [];
    for (const j of planned) {
      if (this.valid(j)) jobs.push(j);
      else this.replan(j);
    }
    const keys = jobs.flatMap((j) => j.parts.map((p) => chunkKey(j.account, j.tier, j.series, j.window, p)));
    if (keys.length === 0) return;
    const bufs = await pts.getMany(keys);
    const slice = new TimeSlice();
    const merged: (Buffer | null)[] = [];
    let at = 0;
    for (const j of jobs) {
      const mine = bufs.slice(at, (at += j.parts.length));
      // a part gone or empty (an old-layout twin) means the window changed meanwhile
      if (mine.some((b) => !b || b.length === 0)) merged.push(null);
      else merged.push(encodeChunk(sortMerge(mine.map((b) => decodeChunk(b!, j.window))), j.window));
      await slice.pause();
    }
    // synchronously from here to the write: a purge or a checkpoint acting meanwhile is seen
    const ops: WriteOp[] = [];
    const done: Job[] = [];
    let replaced = 0; // bytes of the parts merged: deleted or overwritten
    let next = 0; // where the job's parts start in bufs
    jobs.forEach((j, i) => {
      const first = next;
      next += j.parts.length;
      const buf = merged[i];
      if (!buf) return; // left as it is: an unreadable part is not merged again and again
      if (!this.valid(j)) {
        this.replan(j);
        return;
      }
      const keep = j.parts[j.parts.length - 1]!;
      for (const p of j.parts.slice(0, -1)) ops.push(delOp(pts, chunkKey(j.account, j.tier, j.series, j.window, p)));
      ops.push(putOp(pts, chunkKey(j.account, j.tier, j.series, j.window, keep), buf));
      for (let k = first; k < next; k++) replaced += bufs[k]!.length;
      done.push(j);
    });
    if (ops.length === 0) return;
    await st.commit.write(ops);
    st.reclaim.deleted('pts', replaced);
    for (const j of done) {
      const keep = j.parts[j.parts.length - 1]!;
      for (const p of j.parts.slice(0, -1)) st.catalog.remove(j.series, j.tier, j.window, p);
      if (!st.index.byId.has(j.series)) {
        // purged while this batch waited its turn: the merged part must not outlive it
        st.orphan(j.series, chunkKey(j.account, j.tier, j.series, j.window, keep));
        continue;
      }
      st.catalog.setLevel(j.series, j.tier, j.window, keep, j.level);
      if (j.level < SEALED) this.added(j.account, j.series, j.tier, j.window);
    }
  }
}
