// Sealing: a head window is closed when its series moves on to a later window (or, at a
// checkpoint, when it has been idle past its end). Its points are encoded once, rolled up
// to 60/900/3600 s, and queued as pending chunk parts for the next checkpoint to write.
import type { HeadChunk } from './head.js';
import type { EngineState } from './state.js';
import { encodeChunk } from './chunk.js';
import { rollUp } from './points.js';
import { TIERS, WINDOW, chunkKey, headKey, windowOf } from './keys.js';

/** A raw part stored empty: its points are the 60 s part with the next part number. */
const SHARED_WITH_60: Buffer = Buffer.alloc(0);

/** Encodes a head window and its rollups into pending chunks for the next checkpoint. */
export function seal(st: EngineState, c: HeadChunk): void {
  forget(st, c);
  const points = c.points();
  // Raw points all on whole minutes are their own 60 s rollup: the raw part is then
  // stored empty, meaning "read the 60 s part numbered one higher" (docs/storage.md).
  const shared = st.opts.shareRaw60 && points.t.every((t) => t % 60 === 0);
  for (const tier of TIERS) {
    const p = tier === 0 || (tier === 60 && shared) ? points : rollUp(points, tier);
    if (p.t.length === 0) continue;
    const part = ++st.seq;
    const window = windowOf(c.window, tier); // rollup tiers: a part of a longer window
    const key = chunkKey(c.account, tier, c.series, window, part);
    let bySeries = st.pending.get(c.series);
    if (!bySeries) st.pending.set(c.series, (bySeries = new Map()));
    const buf = tier === 0 && shared ? SHARED_WITH_60 : encodeChunk(p, window);
    bySeries.set(key, { key, series: c.series, tier, window, part, buf });
    st.pendingBytes += buf.length;
  }
  if (c.snapshotted) st.headDeletes.push(headKey(c.account, c.series, c.window));
}

/** Seals every window whose end has passed and that has had no write for `sealIdleMs`. */
export function sealIdle(st: EngineState, nowMs: number): void {
  for (const c of [...st.head.chunks()]) {
    if (nowMs - c.lastAppendMs >= st.opts.sealIdleMs && nowMs / 1000 >= c.window + WINDOW) seal(st, c);
  }
}

/** Drops a window from the head (sealed or purged). */
export function forget(st: EngineState, c: HeadChunk): void {
  st.head.remove(c);
  if (st.current[c.series] === c) st.current[c.series] = undefined;
}
