// GET /v1/measurements/:name query string -> a checked SeriesQuery.
import { paramError, paramErrors, fieldErrors } from '../errors.js';
import { METRIC_NAME, METRIC_NAME_MESSAGE, canonicalMetricName } from '../domain/names.js';
import type { TagExpr } from '../tsdb/tag-expr.js';
import type { Retention } from '../tsdb/retention.js';
import { parseWindow, type Window } from './window.js';
import { parseTagsSearch, tagsFromQuery, tagsMapToExpr } from './filter.js';
import { GROUP_FUNCTIONS, SUMMARY_FUNCTIONS, type GroupFunction, type SummaryFunction } from './summary.js';
import { decodeCursor } from './cursor.js';

export interface SeriesQuery {
  metric: string;
  window: Window;
  filter: TagExpr;
  /** tag names, '*' for everything in one group, or null for no grouping */
  groupBy: string[] | '*' | null;
  groupByFunction: GroupFunction | null;
  /** null: the metric's summarize_function */
  summaryFunction: SummaryFunction | null;
  /** sort key of the last series of the previous page */
  after: string | null;
  /** the parameters that define the query, for `next` links */
  params: URLSearchParams;
}

const KNOWN = new Set(['resolution', 'start_time', 'end_time', 'duration', 'tags', 'tags_search', 'group_by', 'group_by_function', 'summary_function', 'cursor', 'compose']);

export function parseSeriesQuery(rawName: string, querystring: string, now: number, retention: Retention): SeriesQuery {
  if (!METRIC_NAME.test(rawName)) throw paramError('name', METRIC_NAME_MESSAGE);
  const params = new URLSearchParams(querystring);
  const one: Record<string, string | undefined> = {};
  for (const key of KNOWN) {
    const all = params.getAll(key);
    if (all.length > 1 && key !== 'tags') throw paramError(key, 'must be given once');
    one[key] = all[0];
  }
  const window = parseWindow(one, now, retention);

  const tagsMap = tagsFromQuery(params);
  if (tagsMap && one.tags_search !== undefined) throw paramError('tags_search', 'cannot be combined with tags');
  const filter = one.tags_search !== undefined ? parseTagsSearch(one.tags_search) : tagsMap ? tagsMapToExpr(tagsMap) : { op: 'all' as const };

  const errors = fieldErrors();
  let summaryFunction: SummaryFunction | null = null;
  if (one.summary_function !== undefined) {
    if ((SUMMARY_FUNCTIONS as readonly string[]).includes(one.summary_function)) summaryFunction = one.summary_function as SummaryFunction;
    else errors.summary_function = [`must be one of: ${SUMMARY_FUNCTIONS.join(', ')}`];
  }
  let groupBy: SeriesQuery['groupBy'] = null;
  if (one.group_by !== undefined) {
    const g = one.group_by.trim();
    if (g === '*') groupBy = '*';
    else {
      const names = g.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
      if (names.length === 0 || names.some((n) => !/^[-.:_a-z0-9]{1,64}$/.test(n))) errors.group_by = ['must be * or comma-separated tag names'];
      else groupBy = [...new Set(names)];
    }
  }
  let groupByFunction: GroupFunction | null = null;
  if (one.group_by_function !== undefined) {
    if ((GROUP_FUNCTIONS as readonly string[]).includes(one.group_by_function)) groupByFunction = one.group_by_function as GroupFunction;
    else errors.group_by_function = [`must be one of: ${GROUP_FUNCTIONS.join(', ')}`];
  }
  if (one.group_by !== undefined && one.group_by_function === undefined) errors.group_by_function = ['is required when group_by is set'];
  if (one.group_by === undefined && one.group_by_function !== undefined) errors.group_by = ['is required when group_by_function is set'];
  if (summaryFunction === 'all' && one.group_by !== undefined) errors.summary_function = ['all cannot be combined with group_by'];
  if (Object.keys(errors).length) throw paramErrors(errors);

  const after = one.cursor === undefined ? null : decodeCursor(one.cursor);
  // next links repeat the query with the window pinned, so every page sees the same one
  const linkParams = new URLSearchParams();
  for (const [k, v] of params) if (!['cursor', 'start_time', 'end_time', 'duration'].includes(k)) linkParams.append(k, v);
  linkParams.set('start_time', String(window.start));
  linkParams.set('end_time', String(window.end));
  return { metric: canonicalMetricName(rawName), window, filter, groupBy, groupByFunction, summaryFunction, after, params: linkParams };
}
