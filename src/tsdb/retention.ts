// Scheduled maintenance of the chunk keyspace (node-cron, `storage.retention_schedule`):
// chunks whose window lies wholly before their tier's retention are deleted; windows
// that have been written in several parts (late or out-of-order data, restarts) are
// merged into one chunk; then LevelDB compacts the range so the space is really freed.
import { scheduleJob } from '../cron.js';
import type { Store, Sublevel } from '../store/db.js';
import { putOp, delOp, type CommitQueue, type WriteOp } from '../store/commit.js';
import type { Engine } from './engine.js';
import type { Logger } from '../log.js';
import { MINUTE_RAW, TIER_WINDOW, chunkKey, parseChunkKey, type ChunkKey, type PartTier, type Tier } from './keys.js';
import { decodeChunk, encodeChunk } from './chunk.js';
import { sortMerge } from './points.js';

const BATCH_OPS = 2000;
/** Keys listed by one iterator, closed before any of them is acted on. */
const KEYS_A_PAGE = 4096;

/**
 * Every key of a keyspace in order, listed a page at a time. An iterator holds a LevelDB
 * snapshot while it is open, and a compaction must keep every value a snapshot may still
 * read: a pass that merged and deleted parts under one iterator left the replaced values
 * beside the new ones in LevelDB's bottom level, which its manual compaction never
 * rewrites.
 */
export async function* keysInPages(keyspace: Sublevel<Buffer>, pageSize = KEYS_A_PAGE): AsyncGenerator<string> {
  let after: string | undefined;
  for (;;) {
    const page = await keyspace.keys(after === undefined ? { limit: pageSize } : { gt: after, limit: pageSize }).all();
    yield* page;
    if (page.length < pageSize) return;
    after = page[page.length - 1];
  }
}

export interface RetentionResult {
  expired: number;
  merged: number;
}

/** Seconds each tier is kept (`storage.retention` of the config). */
export interface Retention {
  raw: number;
  '60': number;
  '900': number;
  '3600': number;
}

/** What the job reads from the configuration, afresh at each run (a reload may change it). */
export interface RetentionSettings {
  retention: Retention;
  /** cron expression */
  retention_schedule: string;
}

const TIER_NAMES = ['raw', '60', '900', '3600'] as const;

/** The tiers `retention` keeps for less time than `served`, described; empty if none. */
export function shorterTiers(retention: Retention, served: Retention): string[] {
  const days = (s: number) => `${+(s / 86400).toFixed(2)} d`;
  return TIER_NAMES.filter((k) => retention[k] < served[k]).map((k) => `${k === 'raw' ? 'raw' : `${k} s`}: ${days(retention[k])} where the service keeps ${days(served[k])}`);
}

function retentionOf(storage: RetentionSettings, tier: Tier): number {
  return tier === 0 ? storage.retention.raw : storage.retention[String(tier) as '60' | '900' | '3600'];
}

export class RetentionJob {
  private task: { stop(): void | Promise<void> } | null = null;
  /** the cron expression the job runs on now (a reload may change it) */
  scheduled: string | null = null;
  private running: Promise<RetentionResult> | null = null;
  /**
   * The retention the serving process runs with, kept in the store: `store compact`, run
   * offline with whatever configuration it found (a missing `--config` falls back to the
   * installed file or the embedded default, two days of raw points), would otherwise
   * expire what the service still serves.
   */
  private readonly served: Sublevel<Retention>;

  constructor(
    private readonly store: Store,
    private readonly commit: CommitQueue,
    private readonly engine: Engine,
    private readonly storage: () => RetentionSettings,
    private readonly log: Logger,
  ) {
    this.served = store.json<Retention>('retention');
  }

  /** Records the retention in force as the service's (at start and when a reload changes it). */
  async recordServed(): Promise<void> {
    await this.commit.write([putOp(this.served, 'served', { ...this.storage().retention })]);
  }

  /** The retention the service last ran with, if one was recorded. */
  async lastServed(): Promise<Retention | null> {
    return (await this.served.get('served')) ?? null;
  }

  schedule(): void {
    this.scheduled = this.storage().retention_schedule;
    this.task = scheduleJob(this.scheduled, 'retention', this.log, () => {
      void this.run().catch((err) => this.log.error({ err }, 'retention run failed'));
    });
  }

  /** A reload changed the schedule: the next run follows the new expression. */
  reschedule(): void {
    void this.task?.stop();
    this.schedule();
  }

  async stop(): Promise<void> {
    await this.task?.stop();
    this.task = null;
    await this.running?.catch(() => undefined);
  }

  /** One pass; concurrent calls share it. Compaction waits meanwhile (both rewrite parts). */
  run(nowSeconds = Math.floor(Date.now() / 1000)): Promise<RetentionResult> {
    this.running ??= this.engine.exclusive(() => this.pass(nowSeconds)).finally(() => { this.running = null; });
    return this.running;
  }

  private async pass(now: number): Promise<RetentionResult> {
    const storage = this.storage();
    const pts = this.engine.chunks;
    let ops: WriteOp[] = [];
    let deleted: string[] = [];
    const result: RetentionResult = { expired: 0, merged: 0 };
    const flush = async (force = false) => {
      if (ops.length && (force || ops.length >= BATCH_OPS)) {
        const batch = ops;
        const gone = deleted;
        ops = [];
        deleted = [];
        await this.commit.write(batch);
        this.engine.forgetChunks(gone);
      }
    };
    let group: { prefix: string; keys: string[]; first: ChunkKey } | null = null;
    const finish = async () => {
      if (!group) return;
      const g = group;
      group = null;
      const k = g.first;
      const expiredIn = (tier: Tier) => k.window + TIER_WINDOW[tier] <= now - retentionOf(storage, tier);
      // MINUTE_RAW parts hold the raw and the 60 s tier's points: kept while either is
      // (reads past the raw retention choose the 60 s tier, so they still see only that)
      const expired = (tier: PartTier) => (tier === MINUTE_RAW ? expiredIn(0) && expiredIn(60) : expiredIn(tier));
      // Raw parts of the old layout may be stored as their 60 s twin (catalog.ts), decided
      // by the retention of whichever start wrote them: such a 60 s part stays while the
      // raw parts of its window are kept, whatever the retention settings were then or are now.
      const rawNeedsIt = k.tier === 60 && !expired(0) && this.engine.hasLegacyPair(k.series, k.window);
      if (expired(k.tier) && !rawNeedsIt) {
        for (const key of g.keys) ops.push(delOp(pts, key));
        deleted.push(...g.keys);
        result.expired += g.keys.length;
      } else if (g.keys.length > 1 && !this.engine.hasOpenWindow(k.series, k.window) && !(k.tier === 60 && this.engine.hasLegacyPair(k.series, k.window))) {
        // (60 s parts stay apart while raw parts may point at them)
        const bufs = await pts.getMany(g.keys);
        for (let i = 0; i < bufs.length; i++) {
          if (bufs[i]?.length !== 0) continue;
          const raw = parseChunkKey(g.keys[i]!);
          bufs[i] = await pts.get(chunkKey(raw.account, 60, raw.series, raw.window, raw.part + 1));
        }
        const parts = bufs.flatMap((b) => (b ? [decodeChunk(b, k.window)] : []));
        const merged = encodeChunk(sortMerge(parts), k.window);
        const keep = g.keys[g.keys.length - 1]!;
        for (const key of g.keys.slice(0, -1)) ops.push(delOp(pts, key));
        deleted.push(...g.keys.slice(0, -1));
        ops.push(putOp(pts, keep, merged));
        result.merged += g.keys.length;
      }
      await flush();
    };
    for await (const key of keysInPages(pts)) {
      const prefix = key.slice(0, key.length - 12); // everything but the part number
      if (group && group.prefix === prefix) {
        group.keys.push(key);
        continue;
      }
      await finish();
      group = { prefix, keys: [key], first: parseChunkKey(key) };
    }
    await finish();
    await flush(true);
    await this.compact();
    this.log.info(result, 'retention pass done');
    return result;
  }

  /**
   * Lets LevelDB drop what was deleted: chunks, and the WAL records and snapshots that
   * checkpoints deleted (every sublevel key starts with `!`).
   */
  async compact(): Promise<void> {
    await this.store.db.compactRange('!', '"');
  }
}
