// A target's series by number, for the engine's column batches (ValueColumns): number n
// is one series for as long as the numbering lasts (its metric `metrics[metricNo]`, its
// tags `tagSets[n]`), so the engine keeps each number's series and a scraped sample costs
// an index, not a lookup by tags. Series a target stops exposing leave holes; once holes
// are most of the list, the live series are numbered again into fresh lists, which the
// engine sees as a new numbering (it keeps its series per list).
import type { TagPairs } from '../tsdb/sample.js';

/** A holder of a number (a cached series, a health series): renumbering updates it. */
export interface Numbered {
  /** -1: none */
  number: number;
  metricNo: number;
  readonly metric: string;
  readonly tags: TagPairs;
}

/** Holes tolerated before renumbering, whatever the share. */
const MIN_HOLES = 1024;

export class SeriesNumbering {
  /** the tags of each number (a hole keeps its old tags until renumbering) */
  tagSets: TagPairs[] = [];
  /** metric names by metricNo */
  metrics: string[] = [];
  private holders: (Numbered | null)[] = [];
  private metricNos = new Map<string, number>();
  private holes = 0;

  constructor(private readonly minHoles = MIN_HOLES) {}

  /** Numbers a series (its metric numbered too, on first sight). */
  add(h: Numbered): void {
    h.number = this.tagSets.length;
    h.metricNo = this.metricNo(h.metric);
    this.tagSets.push(h.tags);
    this.holders.push(h);
  }

  /** The series is gone: its number becomes a hole. */
  release(h: Numbered): void {
    if (h.number < 0 || this.holders[h.number] !== h) return;
    this.holders[h.number] = null;
    h.number = -1;
    this.holes++;
  }

  /**
   * Renumbers when holes are most of the list. Only between batches: a batch numbered
   * before must not be mixed with numbers given after.
   */
  compact(): void {
    if (this.holes < this.minHoles || this.holes * 2 < this.holders.length) return;
    const live = this.holders.filter((h): h is Numbered => h !== null);
    this.tagSets = [];
    this.metrics = [];
    this.holders = [];
    this.metricNos = new Map();
    this.holes = 0;
    for (const h of live) this.add(h);
  }

  get size(): number {
    return this.holders.length - this.holes;
  }

  private metricNo(metric: string): number {
    let n = this.metricNos.get(metric);
    if (n === undefined) {
      n = this.metrics.length;
      this.metrics.push(metric);
      this.metricNos.set(metric, n);
    }
    return n;
  }
}
