// The read path: points of some series at one tier over a time range, from two places
// at once: chunk parts in LevelDB (their keys known from the catalog, fetched with one
// getMany a batch of series, which reads one snapshot: compaction.ts relies on it) and what the head
// received since the last checkpoint (rolled up on the fly for the coarser tiers).
// Points are handed over one series at a time (readEach): a grouped read over 10,000
// series folds each into its group and drops it, so what it decodes dies young instead
// of living, all series at once, until the last is decoded (that old-generation garbage
// once took a third of the server's CPU in the wide soak); and series are read in
// batches, each with its own getMany, so a read's own arrays stay small as well.
import type { EngineState } from './state.js';
import { ColumnCopies, PackedBuckets, unpack, type HeadChunk } from './head.js';
import { decodeChunk, decodeChunkInto, pointsFor } from './chunk.js';
import { ALL_COLUMNS, appendInOrder, isStrictlySorted, mergeSeam, sortMerge, type Points } from './points.js';
import { TimeSlice } from './slice.js';
import { WINDOW, chunkKey, chunkKeyAt, chunkKeyPrefix, windowOf, type Tier } from './keys.js';

/** Receives series `n` (an index into the series asked for) once, in order. */
export type SeriesVisitor = (n: number, points: Points) => void;

/**
 * Series read together: their keys fetched with one getMany, then decoded and visited.
 * Batches keep a read's arrays small: a read of 10,000 series in one go held 40,000 keys
 * and buffers in arrays large enough to live outside the young generation, so every
 * scavenge while it ran walked them, and the wide soak's scavenges took 20-60 ms each.
 */
export const BATCH_SERIES = 512;

/**
 * Calls `visit` for each series in order with its points at a tier, from <= t < to,
 * sorted, equal times merged. The points are the visitor's to keep or drop. `columns`
 * (COLUMN bits): the summary columns the visitor reads besides time and sum; the others
 * are not decoded and hold anything. `signal`: checked between batches, so a read whose
 * client went away stops within one batch instead of holding the thread to the end.
 */
export async function readEach(st: EngineState, account: number, series: readonly number[], tier: Tier, from: number, to: number, visit: SeriesVisitor, columns = ALL_COLUMNS, signal?: AbortSignal): Promise<void> {
  const step = tier === 0 ? 0 : tier;
  // The head's points are taken into arrays shared by the whole read (reset per batch):
  // rollup tiers take the buckets (one packed array: the 60 s tier's rolled up now,
  // straight from the columns, the coarser ones mostly from the buckets the head keeps),
  // the raw tier copies of the columns.
  const held = step > 0 ? new PackedBuckets(Math.min(series.length, BATCH_SERIES) * 8) : new ColumnCopies(Math.min(series.length, BATCH_SERIES) * 64);
  // Decoding and visiting 10,000 series takes far longer than a request should wait:
  // what a batch reads is taken already, so its loop gives the event loop back every few
  // ms (the wide soak's write p99 was mostly appends waiting behind this loop).
  const slice = new TimeSlice();
  // per series of a batch: where its keys start, where its head points start (one more
  // entry for the end). Reused by every batch: an off-heap array each, 40 of them a
  // grouped read, showed up in the wide soak's profile.
  const starts = { first: new Int32Array(BATCH_SERIES + 1), heldAt: new Int32Array(BATCH_SERIES + 1) };
  for (let at = 0; at < series.length; at += BATCH_SERIES) {
    signal?.throwIfAborted();
    await readBatch(st, account, series, at, Math.min(series.length, at + BATCH_SERIES), tier, from, to, held, starts, visit, columns, slice);
  }
}

/**
 * Series [a, b) of a read. What to read is decided synchronously, per series at one
 * instant: its stored keys from the catalog and its points in the head, so a checkpoint
 * landing meanwhile can neither make a point count twice nor hide it; a merge landing
 * before the getMany leaves the merged part under the newest key it read.
 */
async function readBatch(st: EngineState, account: number, series: readonly number[], a: number, b: number, tier: Tier, from: number, to: number, held: PackedBuckets | ColumnCopies, starts: { first: Int32Array; heldAt: Int32Array }, visit: SeriesVisitor, columns: number, slice: TimeSlice): Promise<void> {
  const pts = st.keyspaces.pts;
  const fromW = windowOf(from, tier);
  const toW = windowOf(to - 1, tier);
  const step = tier === 0 ? 0 : tier;
  // a bucket is read whole when its time is in [from, to), as stored parts give it: the
  // head's points of the buckets starting in that range, not the points in it (an
  // unaligned range gave the edge buckets partly, or one before `from`, until written)
  const headFrom = step ? Math.ceil(from / step) * step : from;
  const headTo = step ? Math.ceil(to / step) * step : to;
  const count = b - a;
  const keys: string[] = [];
  // per series n of the batch, its keys are keys[first[n]] .. keys[first[n + 1] - 1], in part order per window
  const first = starts.first;
  const keyWindow: number[] = [];
  const keyPart: number[] = [];
  // series n's head points are in held[heldAt[n]] .. held[heldAt[n + 1] - 1]
  const heldAt = starts.heldAt;
  const buckets = held instanceof PackedBuckets ? held.reset() : null;
  const copies = held instanceof ColumnCopies ? held.reset() : null;
  for (let n = 0; n < count; n++) {
    const id = series[a + n]!;
    first[n] = keys.length;
    heldAt[n] = held.size;
    const ref = st.index.byId.get(id);
    if (!ref || ref.account !== account || to <= from) continue;
    const prefix = chunkKeyPrefix(account, tier, id);
    let minutePrefix: string | null = null; // MINUTE_RAW parts, read by the raw and 60 s tiers
    st.catalog.each(id, tier, fromW, toW, (window, part, _, stored) => {
      keys.push(chunkKeyAt(stored === tier ? prefix : (minutePrefix ??= chunkKeyPrefix(account, stored, id)), window, part));
      keyWindow.push(window);
      keyPart.push(part);
    });
    const windows = st.head.get(id);
    if (windows) {
      // copies taken now (later appends do not leak into this read), rolled up when visited
      const memory: HeadChunk[] = [];
      for (const c of windows) if (c.window + WINDOW > headFrom && c.window < headTo) memory.push(c);
      if (memory.length > 1) memory.sort((x, y) => x.window - y.window);
      for (const c of memory) {
        if (buckets) c.bucketsInto(headFrom, headTo, step, buckets);
        else c.copyInto(from, to, copies!);
      }
    }
  }
  first[count] = keys.length;
  heldAt[count] = held.size;
  const bufs = keys.length ? await pts.getMany(keys) : [];
  // raw parts of the old layout stored as their 60 s twin: one more getMany for those
  const shared: number[] = [];
  for (let i = 0; i < keys.length; i++) if (bufs[i]?.length === 0) shared.push(i);
  if (shared.length) {
    const owner = (i: number) => { // the series whose keys hold index i
      let lo = 0;
      let hi = count - 1;
      while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (first[mid]! <= i) lo = mid; else hi = mid - 1; }
      return lo;
    };
    const twins = await pts.getMany(shared.map((i) => chunkKey(account, 60, series[a + owner(i)]!, keyWindow[i]!, keyPart[i]! + 1)));
    shared.forEach((i, j) => { bufs[i] = twins[j]; });
  }
  for (let n = 0; n < count; n++) {
    if ((n & 63) === 0) await slice.pause();
    // windows in order, each one's being written before received since
    const memory: Points[] = [];
    if (heldAt[n + 1]! > heldAt[n]!) {
      if (buckets) memory.push(unpack(buckets.buf, heldAt[n]!, heldAt[n + 1]!, columns));
      else for (let k = heldAt[n]!; k < heldAt[n + 1]!; k++) memory.push(copies!.columns(k).range(from, to, step, columns));
    }
    const lo = first[n]!;
    const hi = first[n + 1]!;
    // the head alone: as it is, unless a bucket is split between its two halves
    const only = hi === lo && memory.length === 1 ? memory[0]! : null;
    if (only && isStrictlySorted(only.t)) {
      visit(a + n, only);
      continue;
    }
    if (hi - lo > 1 || memory.length) {
      const out = joined(bufs, keyWindow, lo, hi, from, to, columns);
      if (out) {
        let rest = 0;
        while (rest < memory.length && appendInOrder(out, memory[rest]!)) rest++;
        visit(a + n, rest === memory.length ? out : sortMerge([out, ...memory.slice(rest)]));
        continue;
      }
    }
    const parts: { part: number; window: number; points: Points }[] = [];
    for (let i = lo; i < hi; i++) {
      const buf = bufs[i];
      if (!buf) continue; // merged or expired meanwhile
      parts.push({ part: keyPart[i]!, window: keyWindow[i]!, points: decodeChunk(buf, keyWindow[i]!, from, to, columns) });
    }
    // part numbers grow with writes across windows too; windows are disjoint in time
    if (parts.length > 1) parts.sort((x, y) => x.part - y.part);
    // head points are the newest writes of their windows
    visit(a + n, sortMerge([...parts.map((p) => p.points), ...memory]));
  }
}

/**
 * Parts [lo, hi) of a series (listed in window order, then part order, which is write
 * order) decoded one after another into one set of columns, if none goes back in time
 * before the one before it; null if two overlap (out-of-order points: sortMerge orders
 * them). The common case: windows are disjoint in time, and a window's parts follow one
 * another, at most sharing a bucket split by a checkpoint. A read over five windows of
 * 10,000 series made a set of columns a part and a copy of all of them a series.
 */
function joined(bufs: readonly (Buffer | undefined)[], keyWindow: readonly number[], lo: number, hi: number, from: number, to: number, columns: number): Points | null {
  const out = pointsFor(columns);
  for (let i = lo; i < hi; i++) {
    const buf = bufs[i];
    if (!buf) continue; // merged or expired meanwhile
    const start = out.t.length;
    decodeChunkInto(out, buf, keyWindow[i]!, from, to, columns);
    if (!mergeSeam(out, start)) return null;
  }
  return out;
}

/** Points of each series at a tier, from <= t < to, sorted, equal times merged. */
export async function readSeries(st: EngineState, account: number, series: readonly number[], tier: Tier, from: number, to: number, columns = ALL_COLUMNS, signal?: AbortSignal): Promise<Points[]> {
  const out: Points[] = new Array(series.length);
  await readEach(st, account, series, tier, from, to, (n, p) => { out[n] = p; }, columns, signal);
  return out;
}
