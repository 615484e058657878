// What a checkpoint writes for one head window: the points it received since the last
// checkpoint as one chunk part per tier (raw, and its 60/900/3600 s rollups); points all
// on whole minutes are their own 60 s rollup and make one MINUTE_RAW part for both. A rollup
// bucket split across two checkpoints is two partial summaries, which reads merge
// (sortMerge) and compaction joins. Part numbers are taken when the points are taken, so
// every WAL record holding one of these points has a lower number: replay skips the
// samples a written part already holds (wal-replay.ts).
import type { Columns, HeadChunk } from './head.js';
import type { EngineState } from './state.js';
import { encodeChunk } from './chunk.js';
import { rollUp, type Points } from './points.js';
import { MINUTE_RAW, chunkKey, windowOf, type PartTier } from './keys.js';

export interface FlushPart {
  key: string;
  tier: PartTier;
  window: number;
  part: number;
}

export interface Flush {
  chunk: HeadChunk;
  /** the taken columns (typed arrays, no copy until encoded) */
  columns: Columns;
  parts: FlushPart[];
}

const ANY_TIMES: readonly PartTier[] = [3600, 900, 60, 0];
const ON_MINUTES: readonly PartTier[] = [3600, 900, MINUTE_RAW];

/** Takes a window's new points and numbers its parts (synchronously, with the WAL cut). */
export function takeFlush(st: EngineState, c: HeadChunk): Flush {
  const columns = c.capture();
  // Once a window holds raw parts, it takes no more MINUTE_RAW parts: they stay older
  // than every raw and 60 s part of their window, through merges too, so reads meet
  // every point in the order it was written, and a split bucket's `last` comes from the
  // same part as if all were stored apart.
  const onMinutes = columns.onWholeMinutes() && !st.catalog.holds(c.series, 0, c.window);
  // coarsest first, raw last: a raw part is never numbered one below a 60 s part of its
  // window, which is how the old layout's shared pairs are told apart (catalog.ts)
  const tiers = onMinutes ? ON_MINUTES : ANY_TIMES;
  const parts: FlushPart[] = [];
  for (const tier of tiers) {
    const window = windowOf(c.window, tier);
    const part = ++st.seq;
    parts.push({ key: chunkKey(c.account, tier, c.series, window, part), tier, window, part });
  }
  return { chunk: c, columns, parts };
}

/**
 * The encoded parts of a flush, in the order of `flush.parts`. The 900 s and 3600 s parts
 * come from the columns' bucket caches where reads filled them (they hold exactly what
 * rolling the points up gives), else are rolled up from the columns.
 */
export function encodeFlush(f: Flush): Buffer[] {
  let points: Points | undefined;
  const all = () => (points ??= f.columns.points());
  return f.parts.map((p) => {
    if (p.tier === 0 || p.tier === MINUTE_RAW) return encodeChunk(all(), f.chunk.window);
    if (p.tier === 60) return encodeChunk(rollUp(all(), 60), p.window);
    return encodeChunk(f.columns.rolledUp(p.tier), p.window);
  });
}
