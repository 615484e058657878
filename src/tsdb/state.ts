// What the parts of the engine share: its keyspaces, the in-memory index, head and
// chunk catalog, the sealed chunks waiting for a checkpoint, and the counters. One object,
// built by Engine.open and handed to append, seal, read, purge, checkpoint and replay;
// nothing of it lives in module globals, so two engines in one process stay apart.
import type { Store } from '../store/db.js';
import type { CommitQueue } from '../store/commit.js';
import type { Logger } from '../log.js';
import type { SeriesRecord } from './series-index.js';
import { SeriesIndex } from './series-index.js';
import { Head, type HeadChunk } from './head.js';
import { ChunkCatalog } from './catalog.js';
import type { Tier } from './keys.js';

export interface EngineOptions {
  /** checkpoint at least this often */
  checkpointMs: number;
  /** ...and whenever this many WAL bytes have accumulated */
  checkpointWalBytes: number;
  /** a window whose end has passed is sealed after this long without writes */
  sealIdleMs: number;
  /**
   * store minute-aligned raw windows once, as their 60 s rollup; only safe while raw
   * retention is not longer than the 60 s tier's
   */
  shareRaw60: boolean;
}

/** Sealed chunks kept in memory before a checkpoint is started early. */
const MAX_PENDING_BYTES = 16 * 1024 * 1024;

/** A sealed chunk part waiting for the next checkpoint to write it. */
export interface Pending {
  key: string;
  series: number;
  tier: Tier;
  window: number;
  part: number;
  buf: Buffer;
}

/** The engine's sublevels of the one LevelDB (key layouts in keys.ts). */
export function engineKeyspaces(store: Store) {
  return {
    /** sealed chunks */
    pts: store.binary('pts'),
    /** snapshots of open head windows */
    heads: store.binary('head'),
    wal: store.binary('wal'),
    series: store.json<SeriesRecord>('series'),
    /** counters: `seq`, `series` */
    meta: store.json<number>('engine'),
  };
}

export type EngineKeyspaces = ReturnType<typeof engineKeyspaces>;

export class EngineState {
  readonly index = new SeriesIndex();
  readonly head = new Head();
  readonly catalog = new ChunkCatalog();
  /** the newest head window of each series, by series id: the append fast path */
  readonly current: (HeadChunk | undefined)[] = [];
  /** sealed chunks by series, then key, until a checkpoint writes them */
  readonly pending = new Map<number, Map<string, Pending>>();
  /** snapshots of sealed windows, deleted by the next checkpoint */
  headDeletes: string[] = [];
  /** WAL records written since the last checkpoint */
  walSeqs: number[] = [];
  walBytes = 0;
  /** bytes of sealed chunks waiting for the next checkpoint */
  pendingBytes = 0;
  /** WAL record and chunk part numbers share this sequence */
  seq = 0;
  nextSeries = 0;

  constructor(
    readonly keyspaces: EngineKeyspaces,
    readonly commit: CommitQueue,
    readonly log: Logger,
    readonly opts: EngineOptions,
  ) {}

  /** Whether the WAL or the sealed chunks in memory have grown enough for an early checkpoint. */
  checkpointDue(): boolean {
    return this.walBytes > this.opts.checkpointWalBytes || this.pendingBytes > MAX_PENDING_BYTES;
  }
}
