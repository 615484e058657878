// Which chunk parts are stored, per series and tier, in memory: a read computes its exact
// keys and fetches every chunk of a query with one getMany, and knows without asking
// LevelDB when a range has nothing stored (the head then answers alone). Rebuilt from a
// key scan at start; kept current by checkpoints, compaction, retention and purges.
// Each part carries its compaction level (compaction.ts): 0 for a checkpoint's part, one
// more for each merge, SEALED for a window merged whole, LEGACY for parts compaction must
// leave alone.
// Parts are listed where they are stored (PartTier); a read asks by tier, and the raw and
// 60 s tiers also see the MINUTE_RAW parts (keys.ts), in part order among their own.
import { MINUTE_RAW, type PartTier, type Tier } from './keys.js';

const TIER_SLOT: Record<PartTier, number> = { 0: 0, 60: 1, 900: 2, 3600: 3, [MINUTE_RAW]: 4 };

/** A window merged into one part when it closed. */
export const SEALED = 1000;
/**
 * A raw part written by the engine before incremental persistence may be stored empty,
 * meaning "read the 60 s part numbered one higher": such pairs are never compacted.
 */
export const LEGACY = -1;

/** Flat [window, part, level, window, part, level, ...] sorted by window then part. */
type Parts = number[];
const W = 3;
const EMPTY: Parts = [];

/** The highest part a list holds for a window (0: none); lists are sorted by window, then part. */
function lastPartOf(list: Parts, window: number): number {
  for (let i = list.length - W; i >= 0; i -= W) {
    if (list[i] === window) return list[i + 1]!;
    if (list[i]! < window) return 0;
  }
  return 0;
}

export class ChunkCatalog {
  private readonly bySeries = new Map<number, Parts[]>();
  size = 0;
  /**
   * No part numbered above this was ever added (removals leave it as it is): WAL replay
   * looks parts up only for records numbered below it (records a checkpoint cut short
   * left, or kept for sparse windows), none after a crash no checkpoint came between.
   */
  highestPart = 0;

  add(series: number, tier: PartTier, window: number, part: number, level = 0): void {
    let tiers = this.bySeries.get(series);
    if (!tiers) this.bySeries.set(series, (tiers = [[], [], [], [], []]));
    const list = tiers[TIER_SLOT[tier]]!;
    // almost always appended at the end: later windows, higher parts
    let i = list.length;
    while (i > 0 && (list[i - W]! > window || (list[i - W] === window && list[i - W + 1]! > part))) i -= W;
    list.splice(i, 0, window, part, level);
    this.size++;
    if (part > this.highestPart) this.highestPart = part;
  }

  private find(series: number, tier: PartTier, window: number, part: number): { list: Parts; i: number } | null {
    const list = this.bySeries.get(series)?.[TIER_SLOT[tier]];
    if (!list) return null;
    for (let i = list.length - W; i >= 0; i -= W) {
      if (list[i] === window && list[i + 1] === part) return { list, i };
      if (list[i]! < window) return null;
    }
    return null;
  }

  has(series: number, tier: PartTier, window: number, part: number): boolean {
    return this.find(series, tier, window, part) !== null;
  }

  remove(series: number, tier: PartTier, window: number, part: number): void {
    const at = this.find(series, tier, window, part);
    if (!at) return;
    at.list.splice(at.i, W);
    this.size--;
  }

  setLevel(series: number, tier: PartTier, window: number, part: number, level: number): void {
    const at = this.find(series, tier, window, part);
    if (at) at.list[at.i + 2] = level;
  }

  removeSeries(series: number): void {
    const tiers = this.bySeries.get(series);
    if (!tiers) return;
    for (const l of tiers) this.size -= l.length / W;
    this.bySeries.delete(series);
  }

  /**
   * Calls `fn(window, part, level, stored)` for each part a read of `tier` uses with
   * fromWindow <= window <= toWindow, in window and part order; `stored`: where it is.
   */
  each(series: number, tier: Tier, fromWindow: number, toWindow: number, fn: (window: number, part: number, level: number, stored: PartTier) => void): void {
    const tiers = this.bySeries.get(series);
    if (!tiers) return;
    const own = tiers[TIER_SLOT[tier]]!;
    const minute = tier === 0 || tier === 60 ? tiers[TIER_SLOT[MINUTE_RAW]]! : EMPTY;
    let i = 0;
    let j = 0;
    while (i < own.length || j < minute.length) {
      // the lower of the two lists' next parts in (window, part) order
      const takeOwn = j >= minute.length || (i < own.length && (own[i]! < minute[j]! || (own[i] === minute[j] && own[i + 1]! < minute[j + 1]!)));
      const list = takeOwn ? own : minute;
      const k = takeOwn ? i : j;
      if (takeOwn) i += W;
      else j += W;
      const w = list[k]!;
      if (w > toWindow) return; // the lower one is past the range, so is every later one
      if (w >= fromWindow) fn(w, list[k + 1]!, list[k + 2]!, takeOwn ? tier : MINUTE_RAW);
    }
  }

  /** Calls `fn(window, part, level)` for each part stored under `tier` in [fromWindow, toWindow], in order. */
  private eachStored(series: number, tier: PartTier, fromWindow: number, toWindow: number, fn: (window: number, part: number, level: number) => void): void {
    const list = this.bySeries.get(series)?.[TIER_SLOT[tier]];
    if (!list) return;
    for (let i = 0; i < list.length; i += W) {
      const w = list[i]!;
      if (w > toWindow) return;
      if (w >= fromWindow) fn(w, list[i + 1]!, list[i + 2]!);
    }
  }

  /** Parts and levels stored under `tier` for one window, oldest first (compaction merges these). */
  window(series: number, tier: PartTier, window: number): { part: number; level: number }[] {
    const out: { part: number; level: number }[] = [];
    this.eachStored(series, tier, window, window, (_, part, level) => out.push({ part, level }));
    return out;
  }

  /** Whether any part is stored under `tier` for a window. */
  holds(series: number, tier: PartTier, window: number): boolean {
    let found = false;
    this.eachStored(series, tier, window, window, () => { found = true; });
    return found;
  }

  /** The highest part number a read of `tier` uses in a window (0 when none): replay skips what it covers. */
  maxPart(series: number, tier: Tier, window: number): number {
    // (no callback: replay asks this for every sample it reads)
    const tiers = this.bySeries.get(series);
    if (!tiers) return 0;
    const own = lastPartOf(tiers[TIER_SLOT[tier]]!, window);
    return tier === 0 || tier === 60 ? Math.max(own, lastPartOf(tiers[TIER_SLOT[MINUTE_RAW]]!, window)) : own;
  }

  /**
   * Marks raw parts of the old layout (raw part P beside a 60 s part P + 1 of the same
   * window, written by one seal) and their 60 s twins LEGACY. Run once after the key scan.
   */
  markLegacyPairs(): void {
    for (const tiers of this.bySeries.values()) {
      const raw = tiers[0]!;
      const minute = tiers[1]!;
      if (raw.length === 0 || minute.length === 0) continue;
      const twins = new Set<string>();
      for (let i = 0; i < minute.length; i += W) twins.add(`${minute[i]}:${minute[i + 1]}`);
      for (let i = 0; i < raw.length; i += W) {
        if (!twins.has(`${raw[i]}:${raw[i + 1]! + 1}`)) continue;
        raw[i + 2] = LEGACY;
        for (let j = 0; j < minute.length; j += W) if (minute[j] === raw[i] && minute[j + 1] === raw[i + 1]! + 1) minute[j + 2] = LEGACY;
      }
    }
  }

  /** Whether a window holds an old-layout pair whose raw part may read its 60 s twin. */
  hasLegacyPair(series: number, window: number): boolean {
    let found = false;
    this.eachStored(series, 0, window, window, (_, __, level) => { if (level === LEGACY) found = true; });
    return found;
  }
}
