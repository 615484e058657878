// The tag matcher the storage interface understands: a boolean tree over tag clauses,
// and its evaluation. The query layer builds it from `tags` or `tags_search`
// (query/filter.ts); the series index evaluates it against the postings of one metric,
// so a filter looks at the values of the tags it names, never at every series.
import type { Glob } from '../match/glob.js';

export type TagExpr =
  | { op: 'all' }
  | { op: 'and'; args: TagExpr[] }
  | { op: 'or'; args: TagExpr[] }
  /** the series has tag `name` with a value matching `glob` (`*` = has the tag) */
  | { op: 'match'; name: string; glob: Glob }
  /** the series has tag `name` and its value does not match `glob` */
  | { op: 'notMatch'; name: string; glob: Glob }
  /** the series lacks tag `name` */
  | { op: 'lacks'; name: string };

/**
 * The ids of the series having one tag value: one id as a plain number, a Set from the
 * second on. Tags like `host` or `instance` usually have one series a value, and a Set
 * each (about 250 bytes) was a sixth of what a series cost in the heap.
 */
export type PostingList = number | Set<number>;

/** The series of one metric: all their ids, and tag name -> value -> ids. */
export interface Postings {
  readonly ids: Set<number>;
  readonly postings: Map<string, Map<string, PostingList>>;
}

/** Adds `id` to a posting list; returns the list to keep (a number becomes a Set). */
export function withId(list: PostingList | undefined, id: number): PostingList {
  if (list === undefined || list === id) return id;
  if (typeof list === 'number') return new Set([list, id]);
  list.add(id);
  return list;
}

function addAll(out: Set<number>, list: PostingList): void {
  if (typeof list === 'number') out.add(list);
  else for (const id of list) out.add(id);
}

/** The ids of the series `e` selects, looking only at the values of the tags it names. */
export function matchingIds(ms: Postings, e: TagExpr): Set<number> {
  switch (e.op) {
    case 'all':
      return ms.ids;
    case 'and': {
      const sets = e.args.map((a) => matchingIds(ms, a)).sort((a, b) => a.size - b.size);
      if (sets.length === 0) return ms.ids;
      const out = new Set<number>();
      outer: for (const id of sets[0]!) {
        for (let i = 1; i < sets.length; i++) if (!sets[i]!.has(id)) continue outer;
        out.add(id);
      }
      return out;
    }
    case 'or': {
      const out = new Set<number>();
      for (const a of e.args) for (const id of matchingIds(ms, a)) out.add(id);
      return out;
    }
    case 'match':
    case 'notMatch': {
      const out = new Set<number>();
      const values = ms.postings.get(e.name);
      if (!values) return out;
      // Stored tag values are lower-cased (TagPairs), as a glob's source is: a value
      // without `*` is looked up, not tested against every value of the tag (a filter on
      // one of 10,000 hosts spent 0.2 ms a query testing them all).
      if (e.op === 'match' && !e.glob.hasWildcard) {
        const ids = values.get(e.glob.source);
        if (ids !== undefined) addAll(out, ids);
        return out;
      }
      const want = e.op === 'match';
      for (const [v, ids] of values) {
        if (e.glob.test(v) !== want) continue;
        addAll(out, ids);
      }
      return out;
    }
    case 'lacks': {
      const has = ms.postings.get(e.name);
      if (!has) return ms.ids;
      const present = new Set<number>();
      for (const ids of has.values()) addAll(present, ids);
      const out = new Set<number>();
      for (const id of ms.ids) if (!present.has(id)) out.add(id);
      return out;
    }
  }
}
