// One copy per scrape target of the strings and tag pairs its series have in common. A
// target's series repeat their label names (`job`, `instance`, `le`), its own labels'
// values (every series of a target has the same `job` and `instance` pair) and their
// family's name: a copy of each in every series, with the tag keys built as ropes, held
// about 720 bytes a series of the scrape workload's heap (docs/benchmarks.md, "Memory a
// scraped series"). What the pools hand out is detached from the scrape body it was cut
// from (tsdb/sample.ts), and frozen where it is an array, so the engine keeps it as it
// is (append.ts's `kept`).
import { detached, type TagPairs } from '../tsdb/sample.js';

export type TagPair = TagPairs[number];

/**
 * A pool is rebuilt from what its target's series use once it holds more than twice what
 * its last rebuild kept and this many more (series come and go, and what they alone used
 * stays until then), or once the target has fewer than half the series it had then (a
 * target that shrinks for good does not keep its peak's strings): either way the cost of
 * a rebuild is spread over the changes since the last one.
 */
const SLACK = 1024;

/** When a pool is due to be rebuilt (SLACK). */
class RebuildClock {
  /** pool entries the last rebuild kept (-1: none yet), and the series then */
  private kept = -1;
  private keptFor = 0;

  due(size: number, series: number): boolean {
    if (this.kept < 0) {
      // the first sweep: what the pool holds was all just put in, so nothing is stale yet
      this.done(size, series);
      return false;
    }
    return size > 2 * this.kept + SLACK || (series * 2 < this.keptFor && size > SLACK);
  }

  done(size: number, series: number): void {
    this.kept = size;
    this.keptFor = series;
  }

  reset(): void {
    this.kept = -1;
    this.keptFor = 0;
  }
}

/** Strings by their text. */
export class StringPool {
  private strings = new Map<string, string>();
  private readonly rebuilds = new RebuildClock();

  /** The pool's copy of `s`. */
  get(s: string): string {
    let kept = this.strings.get(s);
    if (kept === undefined) {
      kept = detached(s);
      this.strings.set(kept, kept);
    }
    return kept;
  }

  get size(): number {
    return this.strings.size;
  }

  /**
   * Keeps just the strings in use, when due (SLACK): `series` is how many series the
   * target has now, and `live` lists their strings, the pool's own copies, repeats allowed.
   */
  trim(series: number, live: () => Iterable<string>): void {
    if (!this.rebuilds.due(this.strings.size, series)) return;
    const next = new Map<string, string>();
    for (const s of live()) next.set(s, s);
    this.strings = next;
    this.rebuilds.done(next.size, series);
  }

  clear(): void {
    this.strings = new Map();
    this.rebuilds.reset();
  }
}

/** Frozen tag pairs by name and value. */
export class PairPool {
  private byName = new Map<string, { name: string; values: Map<string, TagPair> }>();
  private count = 0;
  private readonly rebuilds = new RebuildClock();

  get(name: string, value: string): TagPair {
    let entry = this.byName.get(name);
    if (entry === undefined) {
      const kept = detached(name);
      entry = { name: kept, values: new Map() };
      this.byName.set(kept, entry);
    }
    let pair = entry.values.get(value);
    if (pair === undefined) {
      pair = Object.freeze([entry.name, detached(value)] as const);
      entry.values.set(pair[1], pair);
      this.count++;
    }
    return pair;
  }

  get size(): number {
    return this.count;
  }

  /** As StringPool.trim: keeps the pairs `live` lists (the pool's own, repeats allowed). */
  trim(series: number, live: () => Iterable<TagPair>): void {
    if (!this.rebuilds.due(this.count, series)) return;
    this.byName = new Map();
    this.count = 0;
    for (const pair of live()) {
      let entry = this.byName.get(pair[0]);
      if (entry === undefined) this.byName.set(pair[0], (entry = { name: pair[0], values: new Map() }));
      if (!entry.values.has(pair[1])) {
        entry.values.set(pair[1], pair);
        this.count++;
      }
    }
    this.rebuilds.done(this.count, series);
  }

  clear(): void {
    this.byName = new Map();
    this.count = 0;
    this.rebuilds.reset();
  }
}
