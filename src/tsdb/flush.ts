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
import { MINUTE_RAW, windowOf, type PartTier } from './keys.js';

export interface FlushWindow {
  chunk: HeadChunk;
  /** the taken columns (typed arrays, no copy until encoded) */
  columns: Columns;
  /** one MINUTE_RAW part for raw and 60 s (its points all on whole minutes, and the window holds no raw part yet) */
  minuteRaw: boolean;
}

/**
 * One series' windows written now, in time order, and the number of the first of their
 * parts; the others follow in the order forEachPart visits them. The parts are derived,
 * not listed: a checkpoint takes every due series at once, and a list of part objects
 * with an array of windows each (about a kilobyte a series) held 100 MB of the heap for
 * the scrape workload's 73,000 series at a time (docs/benchmarks.md, "The checkpoint's
 * plan").
 */
export interface Flush {
  windows: FlushWindow[];
  firstPart: number;
}

/** Called for each part: its tier, window and number, and the flush's windows [first, end) whose points it holds. */
export type PartVisitor = (tier: PartTier, window: number, part: number, first: number, end: number) => void;

const COARSE: readonly (900 | 3600)[] = [3600, 900];

/**
 * A flush's parts in the order their numbers were taken: coarsest first, raw last, so a
 * raw part is never numbered one below a 60 s part of its window, which is how the old
 * layout's shared pairs are told apart (catalog.ts).
 */
export function forEachPart(f: Flush, visit: PartVisitor): void {
  const { windows } = f;
  let part = f.firstPart;
  for (const tier of COARSE) {
    // windows in time order: those sharing a coarse window are neighbours
    let first = 0;
    for (let i = 1; i <= windows.length; i++) {
      const window = windowOf(windows[first]!.chunk.window, tier);
      if (i < windows.length && windowOf(windows[i]!.chunk.window, tier) === window) continue;
      visit(tier, window, part++, first, i);
      first = i;
    }
  }
  for (let i = 0; i < windows.length; i++) {
    const { chunk, minuteRaw } = windows[i]!;
    if (minuteRaw) {
      visit(MINUTE_RAW, chunk.window, part++, i, i + 1);
    } else {
      visit(60, chunk.window, part++, i, i + 1);
      visit(0, chunk.window, part++, i, i + 1);
    }
  }
}

/**
 * Takes the new points of one series' due windows and numbers their parts (synchronously,
 * with the WAL cut). `keepArrays`: the series' current window keeps its arrays (the flush
 * takes a copy); false for a checkpoint of everything (after a replay, at shutdown), where
 * copying 400,000 windows at once would be the work and garbage the lazy columns avoid.
 */
export function takeFlush(st: EngineState, chunks: readonly HeadChunk[], keepArrays = true): Flush {
  // (a checkpoint after a replay takes 400,000 series here at once: nothing a series
  // beyond its windows; map, not push, as an array grown by push keeps room for 17)
  const sorted = chunks.length > 1 ? [...chunks].sort((a, b) => a.window - b.window) : chunks;
  const series = sorted[0]!.series;
  const windows = sorted.map((chunk): FlushWindow => {
    const columns = chunk.capture(keepArrays && st.current[chunk.series] === chunk);
    // Once a window holds raw parts, it takes no more MINUTE_RAW parts: they stay older
    // than every raw and 60 s part of their window, through merges too, so reads meet
    // every point in the order it was written, and a split bucket's `last` comes from the
    // same part as if all were stored apart.
    return { chunk, columns, minuteRaw: columns.onWholeMinutes() && !st.catalog.holds(series, 0, chunk.window) };
  });
  const f: Flush = { windows, firstPart: st.seq + 1 };
  let parts = 0;
  forEachPart(f, () => { parts++; });
  st.seq += parts;
  return f;
}

/**
 * Encodes a flush's parts, handing each to `put` in the order of forEachPart. The 900 s
 * and 3600 s parts come from the columns' bucket caches where reads filled them (they hold
 * exactly what rolling the points up gives), else are rolled up from the columns; a coarse
 * part of several windows joins their buckets in time order (a bucket two windows share,
 * with a test window shorter than an hour, merges the later window's into the earlier's).
 */
export function encodeFlush(f: Flush, put: (tier: PartTier, window: number, part: number, buf: Buffer) => void): void {
  const points: (Points | undefined)[] = [];
  const all = (i: number) => (points[i] ??= f.windows[i]!.columns.points());
  const rolledUp = (i: number, tier: number) => f.windows[i]!.columns.rolledUp(tier, () => all(i));
  forEachPart(f, (tier, window, part, first, end) => {
    // a window frozen since its series moved on holds its raw chunk already
    if (tier === 0 || tier === MINUTE_RAW) {
      const { columns } = f.windows[first]!;
      return put(tier, window, part, columns.rawChunk ?? encodeChunk(all(first), window, columns.plain || undefined));
    }
    if (tier === 60) return put(tier, window, part, encodeChunk(rollUp(all(first), 60), window));
    if (end - first === 1) return put(tier, window, part, encodeChunk(rolledUp(first, tier), window));
    const rolled: Points[] = [];
    for (let i = first; i < end; i++) rolled.push(rolledUp(i, tier));
    put(tier, window, part, encodeChunk(sortMerge(rolled), window));
  });
}
