// One composite query for a request: the time window (start_time and resolution
// required), the expression parsed and checked, evaluated over the caller's own series.
import type { Retention } from '../tsdb/retention.js';
import { paramError } from '../errors.js';
import { parseComposite } from './composite/parse.js';
import { evaluateComposite } from './composite/evaluate.js';
import type { Series } from './composite/series.js';
import { answeredPoints } from './composite/response.js';
import { composeError } from './composite/error.js';
import { AnswerSize, MAX_ANSWER_MEASUREMENTS, type QueryOptions } from './bounds.js';
import type { TagFilter } from './composite/source.js';
import { StoredCompositeSource, type CompositeSourceDeps } from './composite-source.js';
import { parseWindow, type Window } from './window.js';
import { parseTagsSearch } from './filter.js';

export type Params = Record<string, string | undefined>;

/**
 * The window of a composite query: start_time and resolution required, end_time or
 * duration optional (a duration counts from start_time, as in a series query).
 */
export function composeWindow(params: Params, now: number, retention: Retention): Window {
  if (params.start_time === undefined || params.start_time === '') throw paramError('start_time', 'is required with compose');
  return parseWindow({ start_time: params.start_time, end_time: params.end_time, duration: params.duration, resolution: params.resolution }, now, retention);
}

/** The time parameters of a composite query, each given at most once. */
export const COMPOSE_WINDOW_PARAMS = ['start_time', 'end_time', 'duration', 'resolution'] as const;

export async function runCompose(
  deps: CompositeSourceDeps, account: number, definition: string, window: Window, now: number, retention: Retention, dynamicTags?: TagFilter, opts: QueryOptions = {},
): Promise<Series[]> {
  const expr = parseComposite(definition);
  const source = new StoredCompositeSource(deps, account, now, retention, opts.reads ?? {});
  const set = await evaluateComposite(expr, source, { from: window.from, to: window.to, resolution: window.resolution, dynamicTags });
  const size = new AnswerSize(opts.maxAnswer ?? MAX_ANSWER_MEASUREMENTS, (message) => composeError(`${message}; use a coarser resolution, a shorter time range or fewer series`));
  for (const s of set) size.add(answeredPoints(s));
  return set;
}

/** Each parameter of a query string once (a repeated one is a 400), by name. */
export function singleParams(querystring: string, names: readonly string[]): Params {
  const params = new URLSearchParams(querystring);
  const out: Params = {};
  for (const name of names) {
    const all = params.getAll(name);
    if (all.length > 1) throw paramError(name, 'must be given once');
    out[name] = all[0];
  }
  return out;
}

const COMPOSE_PARAMS = ['compose', ...COMPOSE_WINDOW_PARAMS] as const;

/** A composite query string's parameters: compose and the time parameters. */
export function composeParams(querystring: string): Params & { compose: string } {
  const p = singleParams(querystring, COMPOSE_PARAMS);
  if (p.compose === undefined || p.compose.trim() === '') throw paramError('compose', 'is required');
  return { ...p, compose: p.compose };
}

/** Parameters of a series query that mean nothing for a composite metric, whose definition selects and summarises. */
const NOT_FOR_COMPOSITES = ['tags', 'group_by', 'group_by_function', 'summary_function', 'cursor'];

/**
 * `tags_search` on a composite (a persisted composite metric or `compose`): `name=pattern`
 * clauses joined by `and`, standing for the definition's `%`.
 */
export function dynamicTagsOf(querystring: string): TagFilter | undefined {
  const params = new URLSearchParams(querystring);
  for (const name of NOT_FOR_COMPOSITES) {
    if ([...params.keys()].some((k) => k === name || k.startsWith(`${name}[`))) {
      throw paramError(name, 'does not apply to a composite metric: its definition selects and summarises the series; use tags_search for its "%" tags');
    }
  }
  const search = params.get('tags_search');
  if (search === null) return undefined;
  const expr = parseTagsSearch(search);
  const clauses = expr.op === 'and' ? expr.args : [expr];
  const filter: [string, string][] = [];
  for (const c of clauses) {
    if (c.op !== 'match') throw paramError('tags_search', 'for a composite metric only name=pattern clauses joined by "and" apply (they stand for the definition\'s "%")');
    filter.push([c.name, c.glob.source]);
  }
  return filter;
}
