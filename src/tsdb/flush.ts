// What a checkpoint writes for one series: the points its due head windows received since
// the last checkpoint, as chunk parts. Each window has its raw and 60 s parts (points all
// on whole minutes make one MINUTE_RAW part for both); the 900 s and 3600 s rollups have
// one part per coarse window, however many of the series' windows it covers. A series
// loaded in bulk (a day of backfill, an agent catching up) has several windows due at
// once, and a part for each of them made a live day-long hourly read fetch three parts a
// series instead of one. A rollup bucket split across two checkpoints is two partial
// summaries, which reads merge (sortMerge) and compaction joins.
//
// Part numbers are taken when the points are taken, so every WAL record holding one of
// these points has a lower number: replay skips the samples of a raw window with a part
// numbered above the record (wal-replay.ts). A coarse part holds points of several raw
// windows, so all of a series' parts must land in one batch (checkpoint.ts splits
// batches between flushes only): a crash between a raw part and the coarse part holding
// its points would have replay skip those points while the coarse tier never got them.
import type { Columns, HeadChunk } from './head.js';
import type { EngineState } from './state.js';
import { encodeChunk } from './chunk.js';
import { rollUp, sortMerge, type Points } from './points.js';
import { MINUTE_RAW, chunkKey, windowOf, type PartTier } from './keys.js';

export interface FlushPart {
  tier: PartTier;
  window: number;
  part: number;
  /** the flush's windows whose points it holds (indexes into Flush.windows, in time order) */
  from: number[];
}

export interface FlushWindow {
  chunk: HeadChunk;
  /** the taken columns (typed arrays, no copy until encoded) */
  columns: Columns;
}

export interface Flush {
  /** one series' windows written now, in time order */
  windows: FlushWindow[];
  parts: FlushPart[];
}

const COARSE: readonly (900 | 3600)[] = [3600, 900];

/**
 * Takes the new points of one series' due windows and numbers their parts (synchronously,
 * with the WAL cut). `keepArrays`: the series' current window keeps its arrays (the flush
 * takes a copy); false for a checkpoint of everything (after a replay, at shutdown), where
 * copying 400,000 windows at once would be the work and garbage the lazy columns avoid.
 */
export function takeFlush(st: EngineState, chunks: readonly HeadChunk[], keepArrays = true): Flush {
  // (plain loops: a checkpoint after a replay takes 400,000 series here at once)
  const sorted = chunks.length > 1 ? [...chunks].sort((a, b) => a.window - b.window) : chunks;
  const windows: FlushWindow[] = [];
  for (const chunk of sorted) windows.push({ chunk, columns: chunk.capture(keepArrays && st.current[chunk.series] === chunk) });
  const { series } = windows[0]!.chunk;
  const parts: FlushPart[] = [];
  // coarsest first, raw last: a raw part is never numbered one below a 60 s part of its
  // window, which is how the old layout's shared pairs are told apart (catalog.ts)
  for (const tier of COARSE) {
    // windows in time order: those sharing a coarse window are neighbours
    let first = 0;
    for (let i = 1; i <= windows.length; i++) {
      const window = windowOf(windows[first]!.chunk.window, tier);
      if (i < windows.length && windowOf(windows[i]!.chunk.window, tier) === window) continue;
      const from: number[] = [];
      for (let k = first; k < i; k++) from.push(k);
      parts.push({ tier, window, part: ++st.seq, from });
      first = i;
    }
  }
  for (let i = 0; i < windows.length; i++) {
    const { chunk, columns } = windows[i]!;
    // Once a window holds raw parts, it takes no more MINUTE_RAW parts: they stay older
    // than every raw and 60 s part of their window, through merges too, so reads meet
    // every point in the order it was written, and a split bucket's `last` comes from the
    // same part as if all were stored apart.
    if (columns.onWholeMinutes() && !st.catalog.holds(series, 0, chunk.window)) {
      parts.push({ tier: MINUTE_RAW, window: chunk.window, part: ++st.seq, from: [i] });
    } else {
      parts.push({ tier: 60, window: chunk.window, part: ++st.seq, from: [i] });
      parts.push({ tier: 0, window: chunk.window, part: ++st.seq, from: [i] });
    }
  }
  return { windows, parts };
}

/** A part's key, built when it is written: taking 400,000 windows at once is synchronous. */
export function partKey(f: Flush, p: FlushPart): string {
  const { account, series } = f.windows[0]!.chunk;
  return chunkKey(account, p.tier, series, p.window, p.part);
}

/**
 * The encoded parts of a flush, in the order of `flush.parts`. The 900 s and 3600 s parts
 * come from the columns' bucket caches where reads filled them (they hold exactly what
 * rolling the points up gives), else are rolled up from the columns; a coarse part of
 * several windows joins their buckets in time order (a bucket two windows share, with a
 * test window shorter than an hour, merges the later window's into the earlier's).
 */
export function encodeFlush(f: Flush): Buffer[] {
  const points: (Points | undefined)[] = [];
  const all = (i: number) => (points[i] ??= f.windows[i]!.columns.points());
  return f.parts.map((p) => {
    if (p.tier === 0 || p.tier === MINUTE_RAW) return encodeChunk(all(p.from[0]!), p.window);
    if (p.tier === 60) return encodeChunk(rollUp(all(p.from[0]!), 60), p.window);
    const rolled = p.from.map((i) => f.windows[i]!.columns.rolledUp(p.tier));
    return encodeChunk(rolled.length === 1 ? rolled[0]! : sortMerge(rolled), p.window);
  });
}
