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
import type { Store } from './db.js';
import type { CommitQueue, WriteOp } from './commit.js';
import type { Logger } from '../log.js';
import type { Sample } from '../ingest/sample.js';
import type { TagExpr } from './tag-expr.js';
import { SeriesIndex, tagKey, type SeriesRecord, type SeriesRef } from './series-index.js';
import { Head, type HeadChunk } from './head.js';
import { encodeChunk, decodeChunk } from './chunk.js';
import { decodeWal, encodeWal } from './wal.js';
import { rollUp, slice, sortMerge, type Points } from './points.js';
import {
  TIERS, WINDOW, chunkKey, chunkRange, headKey, parseChunkKey, parseHeadKey, seriesKey, seriesRange, walKey, windowOf, type Tier,
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
}

/** What the HTTP, ingest and query layers may use. A second backend implements this. */
export interface SeriesStore {
  append(account: number, samples: readonly Sample[]): Promise<void>;
  select(account: number, metric: string, expr: TagExpr): SeriesRef[];
  read(account: number, series: number, tier: Tier, from: number, to: number): Promise<Points>;
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
    let snapshots = 0;
    for await (const [key, buf] of this.heads.iterator()) {
      const k = parseHeadKey(key);
      if (!this.index.byId.has(k.series)) continue;
      const c = this.head.chunk(k.account, k.series, k.window);
      c.load(decodeChunk(buf, k.window));
      this.head.points += c.size;
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
    if (this.walBytes > this.opts.checkpointWalBytes) void this.checkpoint().catch((err) => this.log.error({ err }, 'checkpoint failed'));
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

  private appendPoint(account: number, series: number, t: number, s: Sample | { count: number; sum: number; min: number; max: number; last: number; sumsq: number }): void {
    const w = windowOf(t);
    let c = this.current[series];
    if (c === undefined || c.window !== w) {
      const windows = this.head.get(series);
      if (windows) for (const old of windows.values()) if (old.window < w) this.seal(old);
      c = this.head.chunk(account, series, w);
      const newest = this.current[series];
      if (newest === undefined || newest.window <= w || !this.head.get(series)?.has(newest.window)) this.current[series] = c;
    }
    const before = c.size;
    c.append(t, s);
    this.head.points += c.size - before;
  }

  /** Encodes a head window and its rollups into pending chunks for the next checkpoint. */
  private seal(c: HeadChunk): void {
    this.forget(c);
    const points = c.points();
    for (const tier of TIERS) {
      const p = tier === 0 ? points : rollUp(points, tier);
      const part = ++this.seq;
      const key = chunkKey(c.account, tier, c.series, c.window, part);
      let bySeries = this.pending.get(c.series);
      if (!bySeries) this.pending.set(c.series, (bySeries = new Map()));
      bySeries.set(key, { key, series: c.series, tier, window: c.window, part, buf: encodeChunk(p, c.window) });
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

  /** Points of one series at a tier, from <= t < to, sorted, equal times merged. */
  async read(account: number, series: number, tier: Tier, from: number, to: number): Promise<Points> {
    const ref = this.index.byId.get(series);
    if (!ref || ref.account !== account || to <= from) return sortMerge([]);
    const fromW = windowOf(from);
    const toW = windowOf(to - 1);
    const parts: { part: number; points: Points }[] = [];
    const seen = new Set<string>();
    // pending first (synchronously), so a checkpoint landing during the read cannot
    // make a chunk show up twice or not at all
    const pend = this.pending.get(series);
    if (pend) {
      for (const p of pend.values()) {
        if (p.tier !== tier || p.window < fromW || p.window > toW) continue;
        seen.add(p.key);
        parts.push({ part: p.part, points: decodeChunk(p.buf, p.window) });
      }
    }
    const heads: Points[] = [];
    const windows = this.head.get(series);
    if (windows) {
      for (const c of windows.values()) {
        if (c.window < fromW || c.window > toW) continue;
        heads.push(tier === 0 ? c.points() : rollUp(c.points(), tier));
      }
    }
    for await (const [key, buf] of this.pts.iterator(chunkRange(account, tier, series, fromW, toW))) {
      if (seen.has(key)) continue;
      const k = parseChunkKey(key);
      parts.push({ part: k.part, points: decodeChunk(buf, k.window) });
    }
    parts.sort((a, b) => a.part - b.part);
    return slice(sortMerge([...parts.map((p) => p.points), ...heads]), from, to);
  }

  /** Operations that remove every series, chunk and snapshot of these metrics. */
  async purge(account: number, metrics: readonly string[]): Promise<WriteOp[]> {
    const ops: WriteOp[] = [];
    const refs: SeriesRef[] = [];
    // Synchronously first: later appends must create fresh series, not feed these.
    for (const m of metrics) refs.push(...this.index.removeMetric(account, m));
    for (const ref of refs) {
      ops.push({ type: 'del', sublevel: this.seriesDb, key: seriesKey(account, ref.id) });
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
    if (ops.length === 0) return;
    ops.push({ type: 'put', sublevel: this.meta, key: 'seq', value: this.seq });
    await this.commit.write(ops);
    for (const p of flushed) {
      const bySeries = this.pending.get(p.series);
      if (!bySeries) continue;
      bySeries.delete(p.key);
      if (bySeries.size === 0) this.pending.delete(p.series);
    }
  }

  /** For the retention job: the chunk keyspace and a way to know a window is still open. */
  get chunks() {
    return this.pts;
  }

  hasOpenWindow(series: number, window: number): boolean {
    return this.head.get(series)?.has(window) === true || this.pending.get(series) !== undefined;
  }

  get seriesCount(): number {
    return this.index.byId.size;
  }

  get headPoints(): number {
    return this.head.points;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.closed) return;
    await this.checkpoint();
    this.closed = true;
  }
}
