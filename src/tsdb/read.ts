// The read path: points of some series at one tier over a time range, from two places
// at once: chunk parts in LevelDB (their keys known from the catalog, fetched with one
// getMany, which reads one snapshot: compaction.ts relies on it) and what the head
// received since the last checkpoint (rolled up on the fly for the coarser tiers).
// Points are handed over one series at a time (readEach): a grouped read over 10,000
// series folds each into its group and drops it, so what it decodes dies young instead
// of living, all series at once, until the last is decoded (that old-generation garbage
// once took a third of the server's CPU in the wide soak).
import type { EngineState } from './state.js';
import { CACHED_STEPS, ColumnCopies, PackedBuckets, unpack, type HeadChunk } from './head.js';
import { decodeChunk } from './chunk.js';
import { ALL_COLUMNS, sortMerge, type Points } from './points.js';
import { WINDOW, chunkKey, chunkKeyAt, chunkKeyPrefix, windowOf, type Tier } from './keys.js';

/** Receives series `n` (an index into the series asked for) once, in order. */
export type SeriesVisitor = (n: number, points: Points) => void;

/**
 * Calls `visit` for each series in order with its points at a tier, from <= t < to,
 * sorted, equal times merged. The points are the visitor's to keep or drop. `columns`
 * (COLUMN bits): the summary columns the visitor reads besides time and sum; the others
 * are not decoded and hold anything.
 */
export async function readEach(st: EngineState, account: number, series: readonly number[], tier: Tier, from: number, to: number, visit: SeriesVisitor, columns = ALL_COLUMNS): Promise<void> {
  const pts = st.keyspaces.pts;
  const fromW = windowOf(from, tier);
  const toW = windowOf(to - 1, tier);
  const step = tier === 0 ? 0 : tier;
  // Synchronously, what to read: stored keys from the catalog and the head's points, so
  // a checkpoint landing meanwhile cannot make a point count twice or not at all.
  const keys: string[] = [];
  // per series, its keys are keys[first[n]] .. keys[first[n + 1] - 1], in part order per window
  const first = new Int32Array(series.length + 1);
  const keyWindow: number[] = [];
  const keyPart: number[] = [];
  // The head's points, taken now into arrays shared by the whole read: series n's are
  // held[n] .. held[n + 1] - 1. Coarse tiers take the buckets (one packed array), the
  // others copies of the columns, rolled up when visited.
  const held = new Int32Array(series.length + 1);
  const buckets = CACHED_STEPS.includes(step) ? new PackedBuckets(Math.min(65536, series.length * 8)) : null;
  const copies = buckets ? null : new ColumnCopies(Math.min(16384, series.length * 64));
  series.forEach((id, n) => {
    first[n] = keys.length;
    held[n] = buckets ? buckets.size : copies!.size;
    const ref = st.index.byId.get(id);
    if (!ref || ref.account !== account || to <= from) return;
    const prefix = chunkKeyPrefix(account, tier, id);
    st.catalog.each(id, tier, fromW, toW, (window, part) => {
      keys.push(chunkKeyAt(prefix, window, part));
      keyWindow.push(window);
      keyPart.push(part);
    });
    const windows = st.head.get(id);
    if (windows) {
      // copies taken now (later appends do not leak into this read), rolled up when visited
      const memory: HeadChunk[] = [];
      for (const c of windows.values()) if (c.window + WINDOW > from && c.window < to) memory.push(c);
      if (memory.length > 1) memory.sort((a, b) => a.window - b.window);
      for (const c of memory) {
        if (buckets) c.bucketsInto(from, to, step, buckets);
        else c.copyInto(from, to, copies!);
      }
    }
  });
  first[series.length] = keys.length;
  held[series.length] = buckets ? buckets.size : copies!.size;
  const bufs = keys.length ? await pts.getMany(keys) : [];
  // raw parts of the old layout stored as their 60 s twin: one more getMany for those
  const shared: number[] = [];
  for (let i = 0; i < keys.length; i++) if (bufs[i]?.length === 0) shared.push(i);
  if (shared.length) {
    const owner = (i: number) => { // the series whose keys hold index i
      let lo = 0;
      let hi = series.length - 1;
      while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (first[mid]! <= i) lo = mid; else hi = mid - 1; }
      return lo;
    };
    const twins = await pts.getMany(shared.map((i) => chunkKey(account, 60, series[owner(i)]!, keyWindow[i]!, keyPart[i]! + 1)));
    shared.forEach((i, j) => { bufs[i] = twins[j]; });
  }
  for (let n = 0; n < series.length; n++) {
    const parts: { part: number; window: number; points: Points }[] = [];
    for (let i = first[n]!; i < first[n + 1]!; i++) {
      const buf = bufs[i];
      bufs[i] = undefined; // let it go with the series
      if (!buf) continue; // merged or expired meanwhile
      parts.push({ part: keyPart[i]!, window: keyWindow[i]!, points: decodeChunk(buf, keyWindow[i]!, from, to, columns) });
    }
    // part numbers grow with writes across windows too; windows are disjoint in time
    if (parts.length > 1) parts.sort((a, b) => a.part - b.part);
    // windows in order, each one's being written before received since
    const memory: Points[] = [];
    if (held[n + 1]! > held[n]!) {
      if (buckets) memory.push(unpack(buckets.buf, held[n]!, held[n + 1]!, columns));
      else for (let k = held[n]!; k < held[n + 1]!; k++) memory.push(copies!.columns(k).range(from, to, step, columns));
    }
    // head points are the newest writes of their windows
    visit(n, parts.length === 0 && memory.length === 1 ? memory[0]! : sortMerge([...parts.map((p) => p.points), ...memory]));
  }
}

/** Points of each series at a tier, from <= t < to, sorted, equal times merged. */
export async function readSeries(st: EngineState, account: number, series: readonly number[], tier: Tier, from: number, to: number, columns = ALL_COLUMNS): Promise<Points[]> {
  const out: Points[] = new Array(series.length);
  await readEach(st, account, series, tier, from, to, (n, p) => { out[n] = p; }, columns);
  return out;
}
