// Which chunk parts are stored, per series and tier, in memory: a read computes its exact
// keys and fetches every chunk of a query with one getMany, and knows without asking
// LevelDB when a range has nothing stored (the head then answers alone). Rebuilt from a
// key scan at start; kept current by checkpoints, retention and purges.
import type { Tier } from './keys.js';

const TIER_SLOT: Record<Tier, number> = { 0: 0, 60: 1, 900: 2, 3600: 3 };

/** Flat [window, part, window, part, ...] sorted by window then part. */
type Parts = number[];

export class ChunkCatalog {
  private readonly bySeries = new Map<number, Parts[]>();
  size = 0;

  add(series: number, tier: Tier, window: number, part: number): void {
    let tiers = this.bySeries.get(series);
    if (!tiers) this.bySeries.set(series, (tiers = [[], [], [], []]));
    const list = tiers[TIER_SLOT[tier]]!;
    // almost always appended at the end: later windows, higher parts
    let i = list.length;
    while (i > 0 && (list[i - 2]! > window || (list[i - 2] === window && list[i - 1]! > part))) i -= 2;
    list.splice(i, 0, window, part);
    this.size++;
  }

  remove(series: number, tier: Tier, window: number, part: number): void {
    const list = this.bySeries.get(series)?.[TIER_SLOT[tier]];
    if (!list) return;
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] === window && list[i + 1] === part) {
        list.splice(i, 2);
        this.size--;
        return;
      }
    }
  }

  removeSeries(series: number): void {
    const tiers = this.bySeries.get(series);
    if (!tiers) return;
    for (const l of tiers) this.size -= l.length / 2;
    this.bySeries.delete(series);
  }

  /** Calls `fn(window, part)` for each stored part with fromWindow <= window <= toWindow, in order. */
  each(series: number, tier: Tier, fromWindow: number, toWindow: number, fn: (window: number, part: number) => void): void {
    const list = this.bySeries.get(series)?.[TIER_SLOT[tier]];
    if (!list) return;
    for (let i = 0; i < list.length; i += 2) {
      const w = list[i]!;
      if (w > toWindow) return;
      if (w >= fromWindow) fn(w, list[i + 1]!);
    }
  }
}
