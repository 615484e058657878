// What a checkpoint writes for one head window: the points it received since the last
// checkpoint as one chunk part per tier (raw, and its 60/900/3600 s rollups). A rollup
// bucket split across two checkpoints is two partial summaries, which reads merge
// (sortMerge) and compaction joins. Part numbers are taken when the points are taken, so
// every WAL record holding one of these points has a lower number: replay skips the
// samples a written part already holds (wal-replay.ts).
import { CACHED_STEPS, type Columns, type HeadChunk } from './head.js';
import type { EngineState } from './state.js';
import { encodeChunk } from './chunk.js';
import { rollUp } from './points.js';
import { TIERS, chunkKey, windowOf, type Tier } from './keys.js';

export interface FlushPart {
  key: string;
  tier: Tier;
  window: number;
  part: number;
}

export interface Flush {
  chunk: HeadChunk;
  /** the taken columns (typed arrays, no copy until encoded) */
  columns: Columns;
  parts: FlushPart[];
}

/** Takes a window's new points and numbers its parts (synchronously, with the WAL cut). */
export function takeFlush(st: EngineState, c: HeadChunk): Flush {
  const columns = c.capture();
  // coarsest first, raw last: a raw part is never numbered one below a 60 s part of its
  // window, which is how the old layout's shared pairs are told apart (catalog.ts)
  const parts: FlushPart[] = [];
  for (let i = TIERS.length - 1; i >= 0; i--) {
    const tier = TIERS[i]!;
    const window = windowOf(c.window, tier);
    const part = ++st.seq;
    parts.push({ key: chunkKey(c.account, tier, c.series, window, part), tier, window, part });
  }
  return { chunk: c, columns, parts };
}

/**
 * The encoded parts of a flush, in the order of `flush.parts`. The 900 s and 3600 s parts
 * come from the columns' bucket caches where reads filled them (they hold exactly what
 * rolling the points up gives), else are rolled up from the columns; a 60 s part whose
 * points are the raw ones (one a minute, on the minute) is the raw part's bytes.
 */
export function encodeFlush(f: Flush): Buffer[] {
  const points = f.columns.points();
  let raw: Buffer | undefined;
  const rawChunk = () => (raw ??= encodeChunk(points, f.chunk.window));
  return f.parts.map((p) => {
    if (p.tier === 0) return rawChunk();
    if (CACHED_STEPS.includes(p.tier)) return encodeChunk(f.columns.rolledUp(p.tier), p.window);
    const rolled = rollUp(points, p.tier);
    return rolled === points && p.window === f.chunk.window ? rawChunk() : encodeChunk(rolled, p.window);
  });
}
