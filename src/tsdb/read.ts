// The read path: points of some series at one tier over a time range, from two places
// at once: chunk parts in LevelDB (their keys known from the catalog, fetched with one
// getMany, which reads one snapshot: compaction.ts relies on it) and what the head
// received since the last checkpoint (rolled up on the fly for the coarser tiers).
import type { EngineState } from './state.js';
import type { HeadChunk } from './head.js';
import { decodeChunk } from './chunk.js';
import { sortMerge, type Points } from './points.js';
import { WINDOW, chunkKey, windowOf, type Tier } from './keys.js';

/** Points of each series at a tier, from <= t < to, sorted, equal times merged. */
export async function readSeries(st: EngineState, account: number, series: readonly number[], tier: Tier, from: number, to: number): Promise<Points[]> {
  const pts = st.keyspaces.pts;
  const fromW = windowOf(from, tier);
  const toW = windowOf(to - 1, tier);
  const step = tier === 0 ? 0 : tier;
  // Synchronously, what to read: stored keys from the catalog and the head's points, so
  // a checkpoint landing meanwhile cannot make a point count twice or not at all. Only references are taken here; decoding waits until after the LevelDB
  // read, so nothing big is allocated across the await (it would outlive a young-GC).
  const keys: string[] = [];
  const keyOwner: number[] = [];
  const keyWindow: number[] = [];
  const keyPart: number[] = [];
  const heads: (Points[] | undefined)[] = new Array(series.length);
  series.forEach((id, n) => {
    const ref = st.index.byId.get(id);
    if (!ref || ref.account !== account || to <= from) return;
    st.catalog.each(id, tier, fromW, toW, (window, part) => {
      keys.push(chunkKey(account, tier, id, window, part));
      keyOwner.push(n);
      keyWindow.push(window);
      keyPart.push(part);
    });
    const windows = st.head.get(id);
    if (windows) {
      // copies (or rollups) taken now: later appends do not leak into this read
      const memory: HeadChunk[] = [];
      for (const c of windows.values()) if (c.window + WINDOW > from && c.window < to) memory.push(c);
      if (memory.length) heads[n] = memory.sort((a, b) => a.window - b.window).flatMap((c) => c.memory(from, to, step));
    }
  });
  const bufs = keys.length ? await pts.getMany(keys) : [];
  // raw parts of the old layout stored as their 60 s twin: one more getMany for those
  const shared: number[] = [];
  for (let i = 0; i < keys.length; i++) if (bufs[i]?.length === 0) shared.push(i);
  if (shared.length) {
    const twins = await pts.getMany(shared.map((i) => chunkKey(account, 60, series[keyOwner[i]!]!, keyWindow[i]!, keyPart[i]! + 1)));
    shared.forEach((i, j) => { bufs[i] = twins[j]; });
  }
  const stored: ({ part: number; points: Points }[] | undefined)[] = new Array(series.length);
  for (let i = 0; i < keys.length; i++) {
    const buf = bufs[i];
    if (!buf) continue; // merged or expired meanwhile
    (stored[keyOwner[i]!] ??= []).push({ part: keyPart[i]!, points: decodeChunk(buf, keyWindow[i]!, from, to) });
  }
  return series.map((_, n) => {
    const parts = (stored[n] ?? []).sort((a, b) => a.part - b.part).map((p) => p.points);
    // head points are the newest writes of their windows
    const memory = heads[n] ?? [];
    return sortMerge(parts.length === 0 && memory.length === 1 ? memory : [...parts, ...memory]);
  });
}
