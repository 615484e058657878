// The tag matcher the storage interface understands: a boolean tree over tag clauses.
// The query layer builds it from `tags` or `tags_search`; the series index evaluates it
// against its postings, so a filter never scans every series.
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
