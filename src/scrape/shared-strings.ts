// One copy per scrape target of the strings and tag pairs its series have in common. A
// target's series repeat their label names (`job`, `instance`, `le`), its own labels'
// values (every series of a target has the same `job` and `instance` pair) and their
// family's name; a copy of each a series held about 700 bytes a series of the scrape
// workload's heap (docs/benchmarks.md, "Memory a scraped series"). What the pools hand
// out is detached from the scrape body it was cut from (tsdb/sample.ts), and frozen
// where it is an array, so the engine keeps it as it is (append.ts's `kept`).
import { detached, type TagPairs } from '../tsdb/sample.js';

export type TagPair = TagPairs[number];

/**
 * A pool is rebuilt from what its target's series use once it holds more than twice what
 * its last rebuild kept and this many more (series come and go, and what they alone used
 * stays until then): the rebuilds' cost is spread over the entries added between them.
 */
const SLACK = 1024;

/** Strings by their text. */
export class StringPool {
  private strings = new Map<string, string>();
  private kept = 0;

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

  /** Keeps just the strings in use, when due (SLACK): `live` lists them, the pool's own copies, repeats allowed. */
  trim(live: () => Iterable<string>): void {
    if (this.strings.size <= 2 * this.kept + SLACK) return;
    const next = new Map<string, string>();
    for (const s of live()) next.set(s, s);
    this.strings = next;
    this.kept = next.size;
  }

  clear(): void {
    this.strings = new Map();
    this.kept = 0;
  }
}

/** Frozen tag pairs by name and value. */
export class PairPool {
  private byName = new Map<string, { name: string; values: Map<string, TagPair> }>();
  private count = 0;
  private kept = 0;

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
  trim(live: () => Iterable<TagPair>): void {
    if (this.count <= 2 * this.kept + SLACK) return;
    this.clear();
    for (const pair of live()) {
      let entry = this.byName.get(pair[0]);
      if (entry === undefined) this.byName.set(pair[0], (entry = { name: pair[0], values: new Map() }));
      if (!entry.values.has(pair[1])) {
        entry.values.set(pair[1], pair);
        this.count++;
      }
    }
    this.kept = this.count;
  }

  clear(): void {
    this.byName = new Map();
    this.count = 0;
    this.kept = 0;
  }
}
