// Tag maps by number. The tagged scanner looks a tag map up by its raw text and hands on
// a small integer instead of the pairs, so a batch crosses from a parse thread to the
// engine's as typed arrays; the receiving side keeps the same numbering (TagSetMirror).
// Bounded: when full, numbering starts again as a new generation, and batches keep the
// list of the generation they were numbered in.
import type { TagPairs } from '../tsdb/sample.js';

/** The numbering's bound while the service holds few series. */
export const TAG_SETS_FLOOR = 100_000;

/**
 * The numbering's bound for a service holding `series` series: room for all of them
 * and as many new ones. A fixed 100,000 made every tag map a miss once more series than
 * that were written to (each generation forgot the maps the next one needed again):
 * 400,000 series x 8 points took 37 s to push instead of 12. Tied to the series, not
 * fixed higher, because maps the service refuses (a client past the new-series limit
 * sending fresh tags each time) are numbered too, and cost about 400 bytes each here.
 */
export function tagSetBound(series: number): number {
  return Math.max(TAG_SETS_FLOOR, 2 * series);
}

export class TagSetIds {
  private byText = new Map<string, number>();
  /** the pairs of each number of this generation */
  sets: TagPairs[] = [];
  generation = 0;

  /** `limit`: maps a generation holds (the caller may change it: tagSetBound) */
  constructor(public limit = TAG_SETS_FLOOR) {}

  get(text: string): number | undefined {
    return this.byText.get(text);
  }

  /**
   * The number of a new map, or -1 when the list was full: a new generation has started,
   * and the batch being numbered (whose earlier rows use the old one) must be given up.
   */
  add(text: string, pairs: TagPairs): number {
    if (this.sets.length >= this.limit) {
      this.byText = new Map();
      this.sets = [];
      this.generation++;
      return -1;
    }
    const id = this.sets.length;
    this.sets.push(pairs);
    this.byText.set(text, id);
    return id;
  }
}

/** What a parse thread reports with each batch, so the engine's side numbers alike. */
export interface TagSetNews {
  generation: number;
  /** the number of the first map in `added` */
  first: number;
  added: TagPairs[];
}

/** The engine thread's copy of one parse thread's numbering. */
export class TagSetMirror {
  private generation = 0;
  sets: TagPairs[] = [];

  /** false: the news do not follow what this mirror holds (the batch is not used) */
  apply(news: TagSetNews): boolean {
    if (news.generation !== this.generation) {
      this.generation = news.generation;
      this.sets = []; // a new list: batches of the old generation keep theirs
    }
    if (news.first !== this.sets.length) return false;
    // frozen, as the scanner's own: the engine then keeps them as a new series' tags
    for (const pairs of news.added) this.sets.push(Object.freeze(pairs.map((p) => Object.freeze([p[0], p[1]] as const))));
    return true;
  }
}
