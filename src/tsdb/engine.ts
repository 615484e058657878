// The time-series engine on LevelDB: the narrow interface the rest of Gaugeway uses
// (append samples, select series, read a range at a tier, purge a metric) and nothing
// of keys, chunks or sublevels above it. The parts (docs/storage.md):
// - append.ts: series ids from the in-memory index (new series records go in the same
//   batch), points into the head, and one WAL record, all group-committed; the promise
//   resolves only once the batch is in LevelDB.
// - checkpoint.ts, flush.ts (timer, WAL size, shutdown): what the head received since the
//   last checkpoint becomes one chunk part per window and tier; the WAL records it covers
//   are deleted; the head empties. Work per checkpoint follows the arrival rate.
// - compaction.ts: parts are merged in the background (binary-counter levels), and a
//   window idle past its end is merged whole (sealed).
// - read-gate.ts: how many wide reads run at once, the others queued in arrival order.
// - wal-replay.ts: recovery = series records + chunk catalog + WAL replay.
// - read.ts, purge.ts: the read path and metric deletion.
import type { Store } from '../store/db.js';
import { SpaceReclaimer } from '../store/reclaim.js';
import type { CommitQueue } from '../store/commit.js';
import type { Logger } from '../log.js';
import type { Sample, ValueColumns } from './sample.js';
import type { TagExpr } from './tag-expr.js';
import type { SeriesRef } from './series-index.js';
import type { Points } from './points.js';
import { EngineState, engineKeyspaces, type EngineOptions } from './state.js';
import { Appender } from './append.js';
import { Checkpointer } from './checkpoint.js';
import { Compactor } from './compaction.js';
import { Mutex } from './slice.js';
import { recover } from './wal-replay.js';
import { BATCH_SERIES, readEach, readSeries, type SeriesVisitor } from './read.js';
import { ReadGate, type Admission } from './read-gate.js';
import { purgeMetrics, type PurgeBatch } from './purge.js';
import { parseChunkKey, type Tier } from './keys.js';

export type { Tier } from './keys.js';
export type { SeriesRef } from './series-index.js';
export type { Points } from './points.js';
export { COLUMN, ALL_COLUMNS } from './points.js';
export type { EngineOptions } from './state.js';
export type { SeriesVisitor } from './read.js';
export type { PurgeBatch } from './purge.js';

/**
 * How a wide read (more series than one read batch) is admitted (read-gate.ts); the
 * signal also stops any read between batches.
 */
export type ReadOptions = Admission;

/** What the HTTP, ingest and query layers may use. A second backend implements this. */
export interface SeriesStore {
  append(account: number, samples: readonly Sample[]): Promise<void>;
  /** The same for single values in columns. */
  appendValues(account: number, values: ValueColumns): Promise<void>;
  select(account: number, metric: string, expr: TagExpr): SeriesRef[];
  /** Points of each series at a tier, from <= t < to, sorted, equal times merged. */
  read(account: number, series: readonly number[], tier: Tier, from: number, to: number, opts?: ReadOptions): Promise<Points[]>;
  /**
   * The same points handed to `visit` one series at a time, for reads too wide to hold
   * whole. `columns` (COLUMN bits, default all): the summary columns `visit` reads besides
   * time and sum; the others may hold anything.
   */
  readEach(account: number, series: readonly number[], tier: Tier, from: number, to: number, visit: SeriesVisitor, columns?: number, opts?: ReadOptions): Promise<void>;
  /** The operations deleting these metrics' data; `release` once they are committed. */
  purge(account: number, metrics: readonly string[]): Promise<PurgeBatch>;
  /** The distinct values of one tag across all the account's series. */
  tagValues(account: number, tag: string): Set<string>;
  /** The distinct series these samples would create. */
  unknownSeries(account: number, samples: readonly Sample[]): { metric: string; tags: Sample['tags'] }[];
  /** ...each with the batch's own tag-pairs array (the first of equal ones): callers match rows by it. */
  unknownValueSeries(account: number, values: ValueColumns): { metric: string; tags: Sample['tags'] }[];
  /** Series per metric of the account. */
  seriesCounts(account: number): Map<string, number>;
  /** Series of every account. */
  seriesTotal(): number;
}

/** What /metrics reports of the engine. */
export interface EngineStats {
  series: number;
  headPoints: number;
  walBytes: number;
  chunkParts: number;
  /** keyspace compactions run to free deleted space, since the start */
  reclaims: number;
  /** bytes deleted by checkpoints and merges and not yet compacted away (an estimate) */
  reclaimPendingBytes: number;
}

/** as the configuration's defaults (limits.wide_reads) */
const DEFAULT_WIDE_READS = { concurrency: 3, queueTimeoutMs: 10_000 };

export class Engine implements SeriesStore {
  private appender: Appender;
  private checkpointer: Checkpointer;
  private compactor: Compactor;
  /** compaction and the retention pass both rewrite chunk parts: one at a time */
  private readonly maintenance = new Mutex();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  /** wide reads (more series than one read batch) admitted a few at a time */
  readonly wideReads: ReadGate;

  private constructor(private st: EngineState) {
    this.wideReads = new ReadGate(st.opts.wideReads ?? (() => DEFAULT_WIDE_READS));
    this.appender = new Appender(st);
    this.compactor = new Compactor(st, this.maintenance);
    this.checkpointer = new Checkpointer(st, this.compactor);
  }

  static async open(store: Store, commit: CommitQueue, log: Logger, opts: EngineOptions): Promise<Engine> {
    const e = new Engine(new EngineState(engineKeyspaces(store), commit, log, opts, new SpaceReclaimer(store.db, log, opts.reclaim)));
    await recover(e.st);
    // Everything replayed (and old-layout snapshots) is written and the WAL trimmed in the
    // background: the service serves meanwhile from the head, which holds it all (400,000
    // series replayed after a kill -9 took 23 s to start when this was awaited). A crash
    // before it ends replays the same records again.
    e.checkpointLogged(true);
    e.timer = setInterval(() => e.checkpointLogged(), opts.checkpointMs);
    e.timer.unref();
    return e;
  }

  /**
   * After a failed write, rebuilds the in-memory state (index, head, catalog) from the
   * reopened store: a failed batch may have left new series or points only in memory,
   * and everything acknowledged is in the snapshots and WAL that recovery reads.
   */
  async reload(): Promise<void> {
    await this.checkpointer.idle();
    await this.compactor.stop();
    const st = new EngineState(this.st.keyspaces, this.st.commit, this.st.log, this.st.opts, this.st.reclaim);
    await recover(st);
    this.st.index.retire();
    this.st = st;
    this.appender = new Appender(st);
    this.compactor = new Compactor(st, this.maintenance);
    this.checkpointer = new Checkpointer(st, this.compactor);
  }

  /** Durable once resolved: series records, WAL record and head update in one group commit. */
  append(account: number, samples: readonly Sample[]): Promise<void> {
    return this.write(samples.length, () => this.appender.append(account, samples));
  }

  appendValues(account: number, values: ValueColumns): Promise<void> {
    return this.write(values.length, () => this.appender.appendValues(account, values));
  }

  private write(rows: number, append: () => Promise<void>): Promise<void> {
    if (this.closed) return Promise.reject(new Error('storage engine is closed'));
    if (rows === 0) return Promise.resolve();
    // refused before the head or the index is touched: nothing lives only in memory
    const refusal = this.st.commit.refusal();
    if (refusal) return Promise.reject(refusal);
    const written = append();
    // the head holds what the WAL holds: bound both
    if (this.st.checkpointDue()) {
      this.st.walBytes = 0; // one checkpoint per crossing, not one per append
      this.checkpointLogged();
    }
    return written;
  }

  select(account: number, metric: string, expr: TagExpr): SeriesRef[] {
    return this.st.index.select(account, metric, expr);
  }

  tagValues(account: number, tag: string): Set<string> {
    return this.st.index.tagValues(account, tag);
  }

  unknownSeries(account: number, samples: readonly Sample[]): { metric: string; tags: Sample['tags'] }[] {
    return this.appender.unknown(account, samples);
  }

  unknownValueSeries(account: number, values: ValueColumns): { metric: string; tags: Sample['tags'] }[] {
    return this.appender.unknownValues(account, values);
  }

  seriesCounts(account: number): Map<string, number> {
    return this.st.index.seriesCounts(account);
  }

  seriesTotal(): number {
    return this.st.index.byId.size;
  }

  read(account: number, series: readonly number[], tier: Tier, from: number, to: number, opts?: ReadOptions): Promise<Points[]> {
    return this.admitted(account, series, opts, () => readSeries(this.st, account, series, tier, from, to, undefined, opts?.signal));
  }

  readEach(account: number, series: readonly number[], tier: Tier, from: number, to: number, visit: SeriesVisitor, columns?: number, opts?: ReadOptions): Promise<void> {
    return this.admitted(account, series, opts, () => readEach(this.st, account, series, tier, from, to, visit, columns, opts?.signal));
  }

  /** A read of one batch is over in milliseconds and never waits; a wide one takes its turn. */
  private admitted<T>(account: number, series: readonly number[], opts: ReadOptions | undefined, read: () => Promise<T>): Promise<T> {
    return series.length > BATCH_SERIES ? this.wideReads.run(read, { ...opts, owner: account }) : read();
  }

  /** Operations that remove every series, chunk and snapshot of these metrics. */
  purge(account: number, metrics: readonly string[]): Promise<PurgeBatch> {
    return purgeMetrics(this.st, account, metrics);
  }

  /** Writes what the head received as chunk parts, and drops the WAL records they cover. */
  checkpoint(): Promise<void> {
    return this.checkpointer.checkpoint();
  }

  private checkpointLogged(all = false): void {
    void this.checkpointer.checkpoint(all).catch((err) => this.st.log.error({ err }, 'checkpoint failed'));
  }

  /** For the retention job: the chunk keyspace and a way to know a window is still open. */
  get chunks() {
    return this.st.keyspaces.pts;
  }

  /** The retention job deleted these chunk keys. */
  forgetChunks(keys: readonly string[]): void {
    for (const key of keys) {
      const k = parseChunkKey(key);
      this.st.catalog.remove(k.series, k.tier, k.window, k.part);
    }
  }

  /** Whether a raw window holds a part of the old layout that may read its 60 s twin. */
  hasLegacyPair(series: number, window: number): boolean {
    return this.st.catalog.hasLegacyPair(series, window);
  }

  /** Whether the head holds this raw window (it is still receiving points). */
  hasOpenWindow(series: number, window: number): boolean {
    return this.st.head.has(series, window);
  }

  /** Runs `fn` while no compaction runs (the retention pass rewrites parts too). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.maintenance.run(fn);
  }

  /** Resolves once no compaction is queued or running (tests, benchmarks). */
  compacted(): Promise<void> {
    return this.compactor.idle();
  }

  /** For self-metrics: series known, points held in the head, WAL bytes since the last checkpoint, chunk parts. */
  stats(): EngineStats {
    let headPoints = 0;
    for (const c of this.st.head.chunks()) headPoints += c.size + (c.flushing?.size ?? 0);
    const { reclaims, pending } = this.st.reclaim;
    return { series: this.st.index.byId.size, headPoints, walBytes: this.st.walBytes, chunkParts: this.st.catalog.size, reclaims, reclaimPendingBytes: pending };
  }

  /**
   * Writes the head and stops. Once `stopWriting` says so (asked between series), the
   * last checkpoint writes no more, and what it leaves is replayed from the WAL at the
   * next start.
   */
  async close(stopWriting: () => boolean = () => false): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.closed) return;
    await this.checkpointer.finish(stopWriting);
    await this.compactor.stop();
    await this.st.reclaim.idle();
    this.closed = true;
  }
}
