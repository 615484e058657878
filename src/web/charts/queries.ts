// A chart stream as a /v1 query, and the answer as lines to draw. Pure: no DOM, no
// fetch, so the mapping is unit-tested (test/web/queries.test.ts).
import { compileTransform } from '../../domain/transform.js';
import type { Params } from '../api.js';
import type { Interval } from './ranges.js';
import { tagValues } from './tags.js';
import type { ChartSummary, CompositeResponse, GroupFunction, Measurement, SeriesResponse, Stream, StreamTag } from '../types.js';

export interface StreamQuery {
  /** relative to the API base: `v1/measurements/<name>` or `v1/measurements` (composite) */
  path: string;
  params: Params;
}

/** Chart summary names (Librato's chart vocabulary) to the query API's. */
const SUMMARY: Record<ChartSummary, string> = { average: 'mean', sum: 'sum', min: 'min', max: 'max', count: 'count' };
const GROUP: Record<Exclude<GroupFunction, 'breakout'>, string> = { average: 'mean', sum: 'sum', min: 'min', max: 'max' };

/** Space-level filter: tag name -> value, injected into a stream's `dynamic` tags. */
export type SpaceFilter = Readonly<Record<string, string>>;

/** The tags a stream filters on once the space's filter is applied to its dynamic tags. */
export function effectiveTags(stream: Stream, filter: SpaceFilter): StreamTag[] {
  return (stream.tags ?? []).map((t) => (t.dynamic && filter[t.name] ? { ...t, values: [filter[t.name]!] } : t));
}

/**
 * What a persisted composite metric (a metric stream whose `type` the API answers as
 * `composite`) is asked with besides the time: its definition selects and summarises, so
 * the API refuses tags, group_by and summary_function for it, and takes the space filter
 * for its "%" tags as `tags_search` clauses joined by `and` (one value per tag).
 */
function compositeSearch(stream: Stream, filter: SpaceFilter): string | undefined {
  const clauses = effectiveTags(stream, filter).map((t) => ({ ...t, values: tagValues(t) })).filter((t) => t.dynamic && t.values.length === 1 && t.values[0] !== '*')
    .map((t) => `${t.name}="${t.values[0]}"`);
  return clauses.length ? clauses.join(' and ') : undefined;
}

/**
 * A composite stream's "%" tags: its own dynamic tags if it names any, else the whole
 * space filter (the filter is what "%" stands for; a definition without "%" ignores it).
 */
function composeSearch(stream: Stream, filter: SpaceFilter): string | undefined {
  if (stream.tags?.some((t) => t.dynamic)) return compositeSearch(stream, filter);
  const clauses = Object.entries(filter).filter(([, v]) => v !== '' && v !== '*').map(([name, v]) => `${name}="${v}"`);
  return clauses.length ? clauses.join(' and ') : undefined;
}

/** The finest resolution a line combining several series asks for (seconds). */
const GROUP_RESOLUTION = 60;

/** The composite functions that combine several series into one, bucket by bucket (docs/composite.md). */
const COMBINES = /\b(?:sum|mean|min|max|multiply|divide|subtract|group_by)\s*\(/;

/**
 * The query for one stream over an interval. Grouping follows the stream: `grouped`
 * tags are the group_by; without any, `average`/`sum`/`min`/`max` fold every matching
 * series into one line (group_by `*`) and `breakout` draws each series.
 */
export function streamQuery(stream: Stream, interval: Interval, filter: SpaceFilter = {}): StreamQuery {
  const time = { start_time: interval.start, end_time: interval.end, resolution: interval.resolution };
  // a composite combines series bucket by bucket as group_by does (below): at raw
  // resolution `sum(s("cpu", "*"))` of hosts reporting at different seconds jumped from one
  // host's value to another's. A persisted composite's definition is not in the chart, so
  // it is taken to combine.
  const combined = { ...time, resolution: Math.max(interval.resolution, GROUP_RESOLUTION) };
  if (stream.composite) return { path: 'v1/measurements', params: { compose: stream.composite, ...(COMBINES.test(stream.composite) ? combined : time), tags_search: composeSearch(stream, filter) } };
  if (!stream.metric) throw new Error('a stream needs a metric or a composite');
  if (stream.type === 'composite') return { path: `v1/measurements/${encodeURIComponent(stream.metric)}`, params: { ...combined, tags_search: compositeSearch(stream, filter) } };
  const params: Params = { ...time, summary_function: SUMMARY[stream.summary_function ?? 'average'] };
  const tags = effectiveTags(stream, filter);
  for (const tag of tags) {
    const values = tagValues(tag).filter((v) => v !== '');
    if (values.length && !(values.length === 1 && values[0] === '*')) params[`tags[${tag.name}][]`] = values;
  }
  const grouped = tags.filter((t) => t.grouped).map((t) => t.name);
  const fn = stream.group_function ?? 'average';
  if (grouped.length) {
    params.group_by = grouped.join(',');
    params.group_by_function = fn === 'breakout' ? 'mean' : GROUP[fn];
  } else if (fn !== 'breakout') {
    params.group_by = '*';
    params.group_by_function = GROUP[fn];
  }
  // Series are combined bucket by bucket: at raw resolution a bucket is one second, and
  // hosts reporting at different seconds of a minute were never added up (the "sum" line
  // jumped between one host's value and another's). Combined lines ask for minutes at
  // least, the default period a metric reports at.
  if (params.group_by && interval.resolution < GROUP_RESOLUTION) params.resolution = GROUP_RESOLUTION;
  return { path: `v1/measurements/${encodeURIComponent(stream.metric)}`, params };
}

/** One line of a chart. */
export interface Line {
  label: string;
  /** the series' tags (with group_by, only the group's) */
  tags: Record<string, string>;
  /** stream index in the chart, for colour and units */
  stream: number;
  points: Measurement[];
}

function tagLabel(tags: Record<string, string>): string {
  return Object.entries(tags).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(' ');
}

/** What a stream is called on its chart: its display name, else its metric or composite. */
export function streamName(stream: Stream, index: number): string {
  return stream.name || stream.metric || stream.composite || `stream ${index + 1}`;
}

/**
 * The lines an answer draws, transformed for display: `x` is each value and `p` the
 * seconds each point covers (the resolution).
 */
export function linesOf(stream: Stream, index: number, answer: SeriesResponse | CompositeResponse, resolution: number): Line[] {
  const series = Array.isArray(answer) ? answer : answer.series;
  const transform = stream.transform_function ? compileTransform(stream.transform_function) : null;
  const base = streamName(stream, index);
  return series.map((s) => {
    const label = tagLabel(s.tags);
    return {
      label: label ? `${base} ${label}` : base,
      tags: s.tags,
      stream: index,
      points: transform ? s.measurements.map((m) => ({ time: m.time, value: transform(m.value, resolution) })) : s.measurements,
    };
  });
}

/** The series of a paginated answer, after its `next` pages were fetched and appended. */
export function nextLink(answer: SeriesResponse | CompositeResponse): string | null {
  if (Array.isArray(answer)) return null;
  return answer.links.find((l) => l.rel === 'next')?.href ?? null;
}

/** uPlot's columns: shared times, one value array per line (null where a line has no point). */
export function align(lines: readonly Line[]): [number[], ...(number | null)[][]] {
  const times = [...new Set(lines.flatMap((l) => l.points.map((p) => p.time)))].sort((a, b) => a - b);
  const at = new Map(times.map((t, i) => [t, i]));
  const columns = lines.map((l) => {
    const col: (number | null)[] = new Array(times.length).fill(null);
    for (const p of l.points) col[at.get(p.time)!] = p.value;
    return col;
  });
  return [times, ...columns];
}

/**
 * A line's column with the rows where it has no sample filled in between its neighbouring
 * samples. Series reporting at different seconds (raw points of agents that do not report
 * in step) share no row: without this a line has no two adjacent values, so uPlot draws no
 * segment, and a stack reads every other row as 0. A stretch longer than half again the
 * line's usual step between samples is missing data and stays a gap.
 */
export function fillGaps(times: readonly number[], column: readonly (number | null)[]): (number | null)[] {
  const at = column.flatMap((v, i) => (v === null ? [] : [i]));
  const maxGap = gapOf(at.map((row) => times[row]!));
  if (maxGap === null) return [...column];
  const out = [...column];
  for (let k = 1; k < at.length; k++) {
    const [i, j] = [at[k - 1]!, at[k]!];
    const [t0, t1, v0, v1] = [times[i]!, times[j]!, column[i]!, column[j]!];
    if (t1 - t0 > maxGap) continue;
    for (let r = i + 1; r < j; r++) out[r] = v0 + ((v1 - v0) * (times[r]! - t0)) / (t1 - t0);
  }
  return out;
}

/** Running totals for a stacked chart: line i is drawn at the sum of lines 0..i (missing counts as 0). */
export function stack(columns: readonly (number | null)[][]): number[][] {
  const out: number[][] = [];
  columns.forEach((col, i) => {
    out.push(col.map((v, j) => (v ?? 0) + (i ? out[i - 1]![j]! : 0)));
  });
  return out;
}

export function lastValue(line: Line): number | null {
  return line.points.length ? line.points[line.points.length - 1]!.value : null;
}

/** Half again the usual step between sorted sample times: a longer stretch is missing data (null: fewer than two). */
function gapOf(times: readonly number[]): number | null {
  const steps = times.slice(1).map((t, k) => t - times[k]!).sort((a, b) => a - b);
  return steps.length ? 1.5 * steps[Math.floor(steps.length / 2)]! : null;
}

/**
 * A line's value at a time, for the hovered row of the legend: its latest sample at or
 * before that time, unless that is as far back as a gap (fillGaps' rule; with a single
 * sample, only at that time). Series reporting at different seconds share no row, and an
 * exact match showed "–" for every line but one.
 */
export function valueAt(line: Line, time: number): number | null {
  const { points } = line;
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid]!.time <= time) lo = mid + 1;
    else hi = mid;
  }
  const p = points[lo - 1];
  if (!p) return null;
  if (p.time === time) return p.value;
  let gap = gaps.get(line);
  if (gap === undefined) gaps.set(line, (gap = gapOf(points.map((q) => q.time))));
  return gap !== null && time - p.time < gap ? p.value : null;
}

/** Each line's gap, worked out at its first hover (a line's points do not change once drawn). */
const gaps = new WeakMap<Line, number | null>();
