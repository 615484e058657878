// The time-series engine on LevelDB: the narrow interface the rest of Gaugeway uses
// (append samples, select series, read a range at a tier, purge a metric) and nothing
// of keys, chunks or sublevels above it. How it keeps data (docs/storage.md):
// - append: series ids from the in-memory index (new series records go in the same
//   batch), points into the head, and one WAL record, all group-committed; the promise
//   resolves only once the batch is in LevelDB.
// - a head window is sealed when its series moves to a later window (or it has been idle
//   past its end): it is encoded once, rolled up to 60/900/3600 s, and queued.
// - checkpoint (timer, WAL size, shutdown): one atomic batch writes the sealed chunks,
//   snapshots of changed open windows, and deletes the WAL records it covers. Replay
//   = snapshots + the WAL records left.
import type { Store } from '../store/db.js';
import type { CommitQueue, WriteOp } from '../store/commit.js';
import type { Logger } from '../log.js';
import type { Sample, Summary } from './sample.js';
import type { TagExpr } from './tag-expr.js';
import { SeriesIndex, tagKey, type SeriesRecord, type SeriesRef } from './series-index.js';
import { Head, type HeadChunk } from './head.js';
import { encodeChunk, decodeChunk } from './chunk.js';
import { decodeWal, encodeWal } from './wal.js';
import { rollUp, sortMerge, type Points } from './points.js';
import { ChunkCatalog } from './catalog.js';
import {
  TIERS, WINDOW, chunkKey, headKey, parseChunkKey, parseHeadKey, seriesKey, seriesRange, walKey, windowOf, type Tier,
} from './keys.js';

export type { Tier } from './keys.js';
export type { SeriesRef } from './series-index.js';
export type { Points } from './points.js';

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

/** A raw part stored empty: its points are the 60 s part with the next part number. */
export const SHARED_WITH_60: Buffer = Buffer.alloc(0);

/** What the HTTP, ingest and query layers may use. A second backend implements this. */
export interface SeriesStore {
  append(account: number, samples: readonly Sample[]): Promise<void>;
  select(account: number, metric: string, expr: TagExpr): SeriesRef[];
  /** Points of each series at a tier, from <= t < to, sorted, equal times merged. */
  read(account: number, series: readonly number[], tier: Tier, from: number, to: number): Promise<Points[]>;
  purge(account: number, metrics: readonly string[]): Promise<WriteOp[]>;
}

interface Pending {
  key: string;
  series: number;
  tier: Tier;
  window: number;
  part: number;
  buf: Buffer;
}

export class Engine implements SeriesStore {
  private readonly pts;
  private readonly heads;
  private readonly wal;
  private readonly seriesDb;
  private readonly meta;
  private readonly index = new SeriesIndex();
  private readonly head = new Head();
  private readonly catalog = new ChunkCatalog();
  /** ingest hands in one array per tag set; its key string is built (and hashed) once */
  private readonly tagKeys = new WeakMap<Sample['tags'], string>();
  /** ...and the series it last resolved to (checked against account and metric) */
  private readonly lastRef = new WeakMap<Sample['tags'], SeriesRef>();
  /** the newest head window of each series, by series id: the append fast path */
  private readonly current: (HeadChunk | undefined)[] = [];
  private readonly pending = new Map<number, Map<string, Pending>>();
  private headDeletes: string[] = [];
  private walSeqs: number[] = [];
  private walBytes = 0;
  /** bytes of sealed chunks waiting for the next checkpoint */
  private pendingBytes = 0;
  private seq = 0;
  private nextSeries = 0;
  private timer: NodeJS.Timeout | null = null;
  private checkpointing: Promise<void> | null = null;
  private closed = false;

  private constructor(store: Store, private readonly commit: CommitQueue, private readonly log: Logger, private readonly opts: EngineOptions) {
    this.pts = store.binary('pts');
    this.heads = store.binary('head');
    this.wal = store.binary('wal');
    this.seriesDb = store.json<SeriesRecord>('series');
    this.meta = store.json<number>('engine');
  }

  static async open(store: Store, commit: CommitQueue, log: Logger, opts: EngineOptions): Promise<Engine> {
    const e = new Engine(store, commit, log, opts);
    await e.recover();
    e.timer = setInterval(() => { void e.checkpoint().catch((err) => e.log.error({ err }, 'checkpoint failed')); }, opts.checkpointMs);
    e.timer.unref();
    return e;
  }

  private async recover(): Promise<void> {
    this.seq = (await this.meta.get('seq')) ?? 0;
    this.nextSeries = (await this.meta.get('series')) ?? 0;
    // Chunk part numbers share the sequence: start it above every WAL record left.
    for await (const key of this.wal.keys({ reverse: true, limit: 1 })) this.seq = Math.max(this.seq, parseInt(key, 16));
    for await (const [key, rec] of this.seriesDb.iterator()) {
      const bang = key.indexOf('!');
      const id = parseInt(key.slice(bang + 1), 16);
      this.index.add({ id, account: Number(key.slice(0, bang)), metric: rec.m, tags: rec.t });
      if (id > this.nextSeries) this.nextSeries = id;
    }
    for await (const key of this.pts.keys()) {
      const k = parseChunkKey(key);
      this.catalog.add(k.series, k.tier, k.window, k.part);
    }
    let snapshots = 0;
    for await (const [key, buf] of this.heads.iterator()) {
      const k = parseHeadKey(key);
      if (!this.index.byId.has(k.series)) continue;
      const c = this.head.chunk(k.account, k.series, k.window);
      c.load(decodeChunk(buf, k.window));
      c.dirty = false;
      c.snapshotted = true;
      snapshots++;
    }
    let records = 0;
    let samples = 0;
    for await (const [key, buf] of this.wal.iterator()) {
      this.walSeqs.push(parseInt(key, 16));
      const rec = decodeWal(buf);
      for (const s of rec.samples) {
        if (!this.index.byId.has(s.series)) continue; // its metric was deleted
        this.appendPoint(rec.account, s.series, s.time, s);
        samples++;
      }
      records++;
    }
    if (snapshots || records) this.log.info({ snapshots, walRecords: records, walSamples: samples }, 'storage engine recovered its head');
    await this.checkpoint();
  }

  /** Durable once resolved: series records, WAL record and head update in one group commit. */
  append(account: number, samples: readonly Sample[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('storage engine is closed'));
    if (samples.length === 0) return Promise.resolve();
    const ops: WriteOp[] = [];
    const ids: number[] = new Array(samples.length);
    for (let i = 0; i < samples.length; i++) {
      const s = samples[i]!;
      let ref = this.lastRef.get(s.tags);
      if (ref === undefined || ref.account !== account || ref.metric !== s.metric || ref.gone) ref = this.lookup(account, s, ops);
      ids[i] = ref.id;
      this.appendPoint(account, ref.id, s.time, s);
    }
    const seq = ++this.seq;
    const buf = encodeWal(account, ids, samples);
    this.walSeqs.push(seq);
    this.walBytes += buf.length;
    ops.push({ type: 'put', sublevel: this.wal, key: walKey(seq), value: buf });
    // Enqueue this record before any checkpoint that deletes it: the commit queue writes
    // in order, and a delete queued ahead of its put would leave the record to replay twice.
    const written = this.commit.write(ops);
    // sealed chunks wait in memory for a checkpoint: bound that memory too
    if (this.walBytes > this.opts.checkpointWalBytes || this.pendingBytes > MAX_PENDING_BYTES) {
      this.walBytes = this.pendingBytes = 0; // one checkpoint per crossing, not one per append
      void this.checkpoint().catch((err) => this.log.error({ err }, 'checkpoint failed'));
    }
    return written;
  }

  /** The series of a sample, created (with its record in `ops`) on first sight. */
  private lookup(account: number, s: Sample, ops: WriteOp[]): SeriesRef {
    let key = this.tagKeys.get(s.tags);
    if (key === undefined) this.tagKeys.set(s.tags, (key = tagKey(s.tags)));
    let ref = this.index.find(account, s.metric, key);
    if (!ref) {
      ref = { id: ++this.nextSeries, account, metric: s.metric, tags: s.tags.map(([k, v]) => [k, v] as const) };
      this.index.add(ref, key);
      const rec: SeriesRecord = { m: ref.metric, t: ref.tags.map(([k, v]) => [k, v]) };
      ops.push({ type: 'put', sublevel: this.seriesDb, key: seriesKey(account, ref.id), value: rec });
      ops.push({ type: 'put', sublevel: this.meta, key: 'series', value: this.nextSeries });
    }
    this.lastRef.set(s.tags, ref);
    return ref;
  }

  private appendPoint(account: number, series: number, t: number, s: Summary): void {
    const w = windowOf(t);
    let c = this.current[series];
    if (c === undefined || c.window !== w) {
      const windows = this.head.get(series);
      if (windows) for (const old of windows.values()) if (old.window < w) this.seal(old);
      c = this.head.chunk(account, series, w);
      const newest = this.current[series];
      if (newest === undefined || newest.window <= w || !this.head.get(series)?.has(newest.window)) this.current[series] = c;
    }
    c.append(t, s);
  }

  /** Encodes a head window and its rollups into pending chunks for the next checkpoint. */
  private seal(c: HeadChunk): void {
    this.forget(c);
    const points = c.points();
    // Raw points all on whole minutes are their own 60 s rollup: the raw part is then
    // stored empty, meaning "read the 60 s part numbered one higher" (docs/storage.md).
    const shared = this.opts.shareRaw60 && points.t.every((t) => t % 60 === 0);
    for (const tier of TIERS) {
      const p = tier === 0 || (tier === 60 && shared) ? points : rollUp(points, tier);
      if (p.t.length === 0) continue;
      const part = ++this.seq;
      const window = windowOf(c.window, tier); // rollup tiers: a part of a longer window
      const key = chunkKey(c.account, tier, c.series, window, part);
      let bySeries = this.pending.get(c.series);
      if (!bySeries) this.pending.set(c.series, (bySeries = new Map()));
      const buf = tier === 0 && shared ? SHARED_WITH_60 : encodeChunk(p, window);
      bySeries.set(key, { key, series: c.series, tier, window, part, buf });
      this.pendingBytes += buf.length;
    }
    if (c.snapshotted) this.headDeletes.push(headKey(c.account, c.series, c.window));
  }

  private forget(c: HeadChunk): void {
    this.head.remove(c);
    if (this.current[c.series] === c) this.current[c.series] = undefined;
  }

  select(account: number, metric: string, expr: TagExpr): SeriesRef[] {
    return this.index.select(account, metric, expr);
  }

  async read(account: number, series: readonly number[], tier: Tier, from: number, to: number): Promise<Points[]> {
    const fromW = windowOf(from, tier);
    const toW = windowOf(to - 1, tier);
    const step = tier === 0 ? 0 : tier;
    // Synchronously, what to read: stored keys from the catalog, pending chunks and head
    // windows, so a checkpoint landing meanwhile cannot make a chunk count twice or not
    // at all. Only references are taken here; decoding waits until after the LevelDB
    // read, so nothing big is allocated across the await (it would outlive a young-GC).
    const keys: string[] = [];
    const keyOwner: number[] = [];
    const keyWindow: number[] = [];
    const keyPart: number[] = [];
    const pendingParts: { owner: number; part: number; window: number; buf: Buffer }[] = [];
    const heads: (HeadChunk[] | undefined)[] = new Array(series.length);
    series.forEach((id, n) => {
      const ref = this.index.byId.get(id);
      if (!ref || ref.account !== account || to <= from) return;
      this.catalog.each(id, tier, fromW, toW, (window, part) => {
        keys.push(chunkKey(account, tier, id, window, part));
        keyOwner.push(n);
        keyWindow.push(window);
        keyPart.push(part);
      });
      const pend = this.pending.get(id);
      if (pend) {
        for (const p of pend.values()) {
          if (p.tier !== tier || p.window < fromW || p.window > toW) continue;
          const buf = p.buf.length ? p.buf : pend.get(chunkKey(account, 60, id, p.window, p.part + 1))?.buf;
          if (buf) pendingParts.push({ owner: n, part: p.part, window: p.window, buf });
        }
      }
      const windows = this.head.get(id);
      if (windows) {
        for (const c of windows.values()) {
          // a window sealed while we wait keeps its columns: reading it later is safe
          if (c.window + WINDOW > from && c.window < to) (heads[n] ??= []).push(c);
        }
      }
    });
    const bufs = keys.length ? await this.pts.getMany(keys) : [];
    // raw parts stored as their 60 s twin: one more getMany for those
    const shared: number[] = [];
    for (let i = 0; i < keys.length; i++) if (bufs[i]?.length === 0) shared.push(i);
    if (shared.length) {
      const twins = await this.pts.getMany(shared.map((i) => chunkKey(account, 60, series[keyOwner[i]!]!, keyWindow[i]!, keyPart[i]! + 1)));
      shared.forEach((i, j) => { bufs[i] = twins[j]; });
    }
    const stored: ({ part: number; points: Points }[] | undefined)[] = new Array(series.length);
    for (let i = 0; i < keys.length; i++) {
      const buf = bufs[i];
      if (!buf) continue; // merged or expired meanwhile
      (stored[keyOwner[i]!] ??= []).push({ part: keyPart[i]!, points: decodeChunk(buf, keyWindow[i]!, from, to) });
    }
    for (const p of pendingParts) (stored[p.owner] ??= []).push({ part: p.part, points: decodeChunk(p.buf, p.window, from, to) });
    return series.map((_, n) => {
      const parts = (stored[n] ?? []).sort((a, b) => a.part - b.part).map((p) => p.points);
      // head points are the newest writes of their windows
      const memory = (heads[n] ?? []).sort((a, b) => a.window - b.window).map((c) => c.range(from, to, step));
      return sortMerge(parts.length === 0 && memory.length === 1 ? memory : [...parts, ...memory]);
    });
  }

  /** Operations that remove every series, chunk and snapshot of these metrics. */
  async purge(account: number, metrics: readonly string[]): Promise<WriteOp[]> {
    const ops: WriteOp[] = [];
    const refs: SeriesRef[] = [];
    // Synchronously first: later appends must create fresh series, not feed these.
    for (const m of metrics) refs.push(...this.index.removeMetric(account, m));
    for (const ref of refs) {
      ops.push({ type: 'del', sublevel: this.seriesDb, key: seriesKey(account, ref.id) });
      this.catalog.removeSeries(ref.id);
      for (const c of [...(this.head.get(ref.id)?.values() ?? [])]) {
        this.forget(c);
        ops.push({ type: 'del', sublevel: this.heads, key: headKey(account, ref.id, c.window) });
      }
      for (const p of this.pending.get(ref.id)?.values() ?? []) ops.push({ type: 'del', sublevel: this.pts, key: p.key });
      this.pending.delete(ref.id);
    }
    for (const ref of refs) {
      for (const tier of TIERS) {
        for await (const key of this.pts.keys(seriesRange(account, tier, ref.id))) ops.push({ type: 'del', sublevel: this.pts, key });
      }
      for await (const key of this.heads.keys({ gte: headKey(account, ref.id, 0), lt: headKey(account, ref.id, 0xffffffff) })) {
        ops.push({ type: 'del', sublevel: this.heads, key });
      }
    }
    return ops;
  }

  /** Writes sealed chunks and head snapshots, and drops the WAL records they cover. */
  checkpoint(): Promise<void> {
    if (this.checkpointing) return this.checkpointing.then(() => this.checkpoint());
    const run = this.writeCheckpoint().finally(() => { this.checkpointing = null; });
    this.checkpointing = run;
    return run;
  }

  private async writeCheckpoint(): Promise<void> {
    const now = Date.now();
    for (const c of [...this.head.chunks()]) {
      if (now - c.lastAppendMs >= this.opts.sealIdleMs && now / 1000 >= c.window + WINDOW) this.seal(c);
    }
    const ops: WriteOp[] = [];
    for (const key of this.headDeletes) ops.push({ type: 'del', sublevel: this.heads, key });
    this.headDeletes = [];
    const flushed: Pending[] = [];
    for (const bySeries of this.pending.values()) {
      for (const p of bySeries.values()) {
        ops.push({ type: 'put', sublevel: this.pts, key: p.key, value: p.buf });
        flushed.push(p);
      }
    }
    for (const c of this.head.chunks()) {
      if (!c.dirty) continue;
      ops.push({ type: 'put', sublevel: this.heads, key: headKey(c.account, c.series, c.window), value: encodeChunk(c.points(), c.window) });
      c.dirty = false;
      c.snapshotted = true;
    }
    for (const seq of this.walSeqs) ops.push({ type: 'del', sublevel: this.wal, key: walKey(seq) });
    this.walSeqs = [];
    this.walBytes = 0;
    this.pendingBytes = 0;
    if (ops.length === 0) return;
    ops.push({ type: 'put', sublevel: this.meta, key: 'seq', value: this.seq });
    await this.commit.write(ops);
    for (const p of flushed) {
      const bySeries = this.pending.get(p.series);
      if (!bySeries) continue; // purged meanwhile
      this.catalog.add(p.series, p.tier, p.window, p.part);
      bySeries.delete(p.key);
      if (bySeries.size === 0) this.pending.delete(p.series);
    }
  }

  /** For the retention job: the chunk keyspace and a way to know a window is still open. */
  get chunks() {
    return this.pts;
  }

  /** The retention job deleted these chunk keys. */
  forgetChunks(keys: readonly string[]): void {
    for (const key of keys) {
      const k = parseChunkKey(key);
      this.catalog.remove(k.series, k.tier, k.window, k.part);
    }
  }

  /** Whether raw parts of this 6-hour window are stored (they may share 60 s parts). */
  hasRawParts(series: number, window: number): boolean {
    let found = false;
    this.catalog.each(series, 0, window, window, () => { found = true; });
    return found;
  }

  hasOpenWindow(series: number, window: number): boolean {
    return this.head.get(series)?.has(window) === true || this.pending.get(series) !== undefined;
  }

  /** For self-metrics: series known, points held in the head, WAL bytes since the last checkpoint. */
  stats(): { series: number; headPoints: number; walBytes: number } {
    let headPoints = 0;
    for (const windows of this.head.series.values()) for (const c of windows.values()) headPoints += c.size;
    return { series: this.index.byId.size, headPoints, walBytes: this.walBytes };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.closed) return;
    await this.checkpoint();
    this.closed = true;
  }
}
