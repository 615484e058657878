// GET /v1/measurements/:name: select series through the tag index, read the chosen tier,
// roll up to the resolution, summarise, group, order by tag pairs, paginate.
import type { MetricCatalog } from '../domain/metrics.js';
import type { Points, SeriesRef, SeriesStore } from '../tsdb/engine.js';
import { rollUp } from '../tsdb/points.js';
import { notFound, paramError } from '../errors.js';
import type { SeriesQuery } from './params.js';
import { GroupFold, columnsFor, fromSummarize, forEachValue, summarize, type Measurement, type SummaryFunction } from './summary.js';
import { encodeCursor } from './cursor.js';
import { ALL_SUMMARY_WEIGHT, AnswerSize, MAX_ANSWER_MEASUREMENTS, MAX_QUERY_POINTS, type QueryOptions } from './bounds.js';

/** Series (or groups) per page. */
export const SERIES_PAGE = 100;

export interface QueryDeps {
  catalog: MetricCatalog;
  engine: SeriesStore;
}

export interface SeriesResult {
  name: string;
  resolution: number;
  series: { tags: Record<string, string>; measurements: Measurement[] }[];
  links: { rel: string; href: string }[];
}

interface Unit {
  /** the sort key of its tag pairs (pairOrderKey), also the `next` cursor */
  key: string;
  tags: Record<string, string>;
  refs: SeriesRef[];
}

function tagObject(pairs: Iterable<readonly [string, string]>): Record<string, string> {
  const o: Record<string, string> = {};
  for (const [k, v] of pairs) o[k] = v;
  return o;
}

/**
 * A text that sorts as the spec orders series, "by their tag pairs": pair by pair, name
 * then value, a set that is a prefix of another first. The separators sort below every
 * character a tag name or value may hold (0x00 after a name, 0x01 after a pair), so a
 * name that is a prefix of another (`host`, `host2`, `host.name`) comes first; the
 * engine's `name=value` key put `host2=q` before `host=a`, '2' being below '='.
 * `pairs` are sorted by name.
 */
export function pairOrderKey(pairs: readonly (readonly [string, string])[]): string {
  let key = '';
  for (let i = 0; i < pairs.length; i++) key += (i ? '\x01' : '') + pairs[i]![0] + '\x00' + pairs[i]![1];
  return key;
}

function units(refs: SeriesRef[], groupBy: SeriesQuery['groupBy']): Unit[] {
  if (groupBy === null) return refs.map((r) => ({ key: pairOrderKey(r.tags), tags: tagObject(r.tags), refs: [r] }));
  if (groupBy === '*') return refs.length ? [{ key: '', tags: {}, refs }] : [];
  const groups = new Map<string, Unit>();
  for (const r of refs) {
    const pairs: [string, string][] = [];
    for (const name of groupBy) {
      const tag = r.tags.find(([k]) => k === name);
      if (!tag) break;
      pairs.push([name, tag[1]]);
    }
    if (pairs.length !== groupBy.length) continue; // only streams having every group tag
    pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const key = pairOrderKey(pairs);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { key, tags: tagObject(pairs), refs: [] }));
    g.refs.push(r);
  }
  return [...groups.values()];
}

export async function runSeriesQuery(deps: QueryDeps, account: number, q: SeriesQuery, path: string, opts: QueryOptions = {}): Promise<SeriesResult> {
  const { reads = {}, maxAnswer = MAX_ANSWER_MEASUREMENTS } = opts;
  const metric = await deps.catalog.get(account, q.metric);
  if (!metric) throw notFound('Metric');
  const fn: SummaryFunction = q.summaryFunction ?? fromSummarize(metric.attributes.summarize_function);
  const { resolution, from, to, tier } = q.window;
  // derivative needs the bucket before the first one
  const readFrom = fn === 'derivative' ? from - resolution : from;

  const all = units(deps.engine.select(account, q.metric, q.filter), q.groupBy).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const after = q.after;
  const remaining = after === null ? all : all.filter((u) => u.key > after);
  const page = remaining.slice(0, SERIES_PAGE);

  // one read for every series of the page: the engine fetches their chunks together
  const refs = page.flatMap((u) => u.refs);
  const buckets = Math.ceil((to - readFrom) / resolution);
  if (refs.length * buckets > MAX_QUERY_POINTS) {
    throw paramError('resolution', `this query would produce up to ${refs.length * buckets} points (limit ${MAX_QUERY_POINTS}); use a coarser resolution, a shorter time range or a narrower tag filter`);
  }
  const counter = metric.type === 'counter';
  const series: SeriesResult['series'] = [];
  const size = new AnswerSize(maxAnswer, (message) => paramError('resolution', `${message}; use a coarser resolution, a shorter time range or a narrower tag filter`));
  if (q.groupBy === null) {
    // series by series, so a read too large to answer stops at the series that overflows
    const summaries: Measurement[][] = new Array(page.length);
    const visit = (n: number, p: Points) => {
      const measurements = summarize(rollUp(p, resolution), fn, from, counter);
      size.add(fn === 'all' ? measurements.length * ALL_SUMMARY_WEIGHT : measurements.length);
      summaries[n] = measurements;
    };
    await deps.engine.readEach(account, refs.map((r) => r.id), tier, readFrom, to, visit, columnsFor(fn), reads);
    page.forEach((unit, at) => {
      const measurements = summaries[at];
      if (measurements?.length) series.push({ tags: unit.tags, measurements });
    });
  } else {
    // a group may span thousands of series: each is folded into its group as it is read
    const folds = page.map(() => new GroupFold(readFrom, resolution, buckets, q.groupByFunction!));
    const unitOf = page.flatMap((unit, u) => unit.refs.map(() => u));
    // group_by excludes `all`
    const perSeries = fn as Exclude<SummaryFunction, 'all'>;
    const visit = (n: number, p: Points) => forEachValue(rollUp(p, resolution), perSeries, from, counter, folds[unitOf[n]!]!.add);
    await deps.engine.readEach(account, refs.map((r) => r.id), tier, readFrom, to, visit, columnsFor(perSeries), reads);
    page.forEach((unit, u) => {
      const measurements = folds[u]!.measurements();
      size.add(measurements.length);
      if (measurements.length) series.push({ tags: unit.tags, measurements });
    });
  }
  const links: SeriesResult['links'] = [];
  if (remaining.length > page.length) {
    const params = new URLSearchParams(q.params);
    params.set('cursor', encodeCursor(page[page.length - 1]!.key));
    links.push({ rel: 'next', href: `${path}?${params.toString()}` });
  }
  return { name: metric.name, resolution, series, links };
}
