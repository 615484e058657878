// What the parts of the engine share: its keyspaces, the in-memory index, head and
// chunk catalog, and the counters. One object, built by Engine.open and handed to append,
// read, purge, checkpoint, compaction and replay; nothing of it lives in module globals,
// so two engines in one process stay apart.
import type { Store } from '../store/db.js';
import type { CommitQueue } from '../store/commit.js';
import type { Logger } from '../log.js';
import type { SeriesRecord } from './series-index.js';
import { SeriesIndex } from './series-index.js';
import { Head, type HeadChunk } from './head.js';
import { ChunkCatalog } from './catalog.js';
import type { ReadGateLimits } from './read-gate.js';
import type { ReclaimOptions, SpaceReclaimer } from '../store/reclaim.js';

export interface EngineOptions {
  /** checkpoint at least this often */
  checkpointMs: number;
  /** ...and whenever this many WAL bytes have accumulated */
  checkpointWalBytes: number;
  /** a window whose end has passed is sealed (merged whole) after this long without writes */
  sealIdleMs: number;
  /**
   * a checkpoint writes a window's new points once there are about this many (default 120,
   * as Prometheus cuts its head chunks), or once the oldest is `headMaxAgeMs` old (default
   * 30 minutes), or the window has ended (all three spread by series: checkpoint.ts); until then
   * they stay in the head and their WAL records stay too. 1: every checkpoint writes every
   * window of two points or more, and about half of those of one (why sparse series wait: `writeDue`).
   */
  flushPoints?: number;
  headMaxAgeMs?: number;
  /** how many wide reads run at once and how long one waits its turn (read per admission) */
  wideReads?: () => ReadGateLimits;
  /** when deleted space is compacted away (store/reclaim.ts; its defaults unless tests say) */
  reclaim?: ReclaimOptions;
}

/** The engine's sublevels of the one LevelDB (key layouts in keys.ts). */
export function engineKeyspaces(store: Store) {
  return {
    /** sealed chunks */
    pts: store.binary('pts'),
    /** snapshots of open windows, from the layout before incremental checkpoints: read once, then deleted */
    heads: store.binary('head'),
    wal: store.binary('wal'),
    series: store.json<SeriesRecord>('series'),
    /** counters: `seq`, `series` */
    meta: store.json<number>('engine'),
  };
}

export type EngineKeyspaces = ReturnType<typeof engineKeyspaces>;

/** What a purge holds back until its batch commits (purge.ts). */
export interface PendingPurge {
  /** the first WAL record of the windows it took from the head */
  walFloor: number;
  series: Set<number>;
  /** parts that landed for its series meanwhile */
  orphans: string[];
}

export class EngineState {
  readonly index = new SeriesIndex();
  readonly head = new Head();
  readonly catalog = new ChunkCatalog();
  /** the newest head window of each series, by series id: the append fast path */
  readonly current: (HeadChunk | undefined)[] = [];
  /** old-layout snapshots loaded into the head, deleted by the next checkpoint */
  headDeletes: string[] = [];
  /** chunk parts of series deleted while a checkpoint or merge was writing them */
  orphanChunks: string[] = [];
  /** purges whose batch is not committed yet (purge.ts) */
  readonly purges = new Set<PendingPurge>();
  /** WAL records written since the last checkpoint */
  walSeqs: number[] = [];
  walBytes = 0;
  /** WAL bytes ever written (and replayed): a checkpoint reports what it deleted from this */
  walWritten = 0;
  /** WAL record and chunk part numbers share this sequence */
  seq = 0;
  nextSeries = 0;

  constructor(
    readonly keyspaces: EngineKeyspaces,
    readonly commit: CommitQueue,
    readonly log: Logger,
    readonly opts: EngineOptions,
    /** told what checkpoints and merges delete, so LevelDB gives the space back */
    readonly reclaim: SpaceReclaimer,
  ) {}

  /** Whether the WAL (and with it the head) has grown enough for an early checkpoint. */
  checkpointDue(): boolean {
    return this.walBytes > this.opts.checkpointWalBytes;
  }

  /**
   * The oldest WAL record a checkpoint must keep: the first of the windows that purges not
   * yet committed took from the head (Infinity: none).
   */
  purgeWalFloor(): number {
    let floor = Infinity;
    for (const p of this.purges) floor = Math.min(floor, p.walFloor);
    return floor;
  }

  /**
   * A part landed for a series no longer indexed: deleted by the next checkpoint, or, while
   * the series' purge is uncommitted, once it is (a crash before then finds the metric whole).
   */
  orphan(series: number, key: string): void {
    for (const p of this.purges) {
      if (p.series.has(series)) {
        p.orphans.push(key);
        return;
      }
    }
    this.orphanChunks.push(key);
  }

  /** Drops a window from the head (sealed or purged). */
  forget(c: HeadChunk): void {
    this.head.remove(c);
    if (this.current[c.series] === c) this.current[c.series] = undefined;
  }
}
