// Source-based reads: measurements of one metric keyed by source, optionally summarized
// over time (`summarize_time`) and across sources (`summarize_sources` adds `all`).
// Counters are returned as submitted; whenever they are summarized they are first turned
// into deltas, a decrease counting as a reset (the delta is then the new value).
import { metricKey, type MetricRecord } from '../domain/metrics.js';
import type { Points, SeriesStore } from '../tsdb/engine.js';
import { emptyPoints, pushPoint, rollUp, slicePoints, sortMerge } from '../tsdb/points.js';
import type { Summary } from '../tsdb/sample.js';
import { ApiError, paramError } from '../errors.js';
import type { SourcedQuery } from './sourced-params.js';
import { AnswerSize, MAX_ANSWER_MEASUREMENTS, MAX_QUERY_POINTS, type QueryOptions } from './bounds.js';

/** Records per source in one response; beyond it `query.next_time` continues. */
export const PAGE_RECORDS = 1000;
export const UNASSIGNED = 'unassigned';
export const ALL_SOURCES = 'all';

export interface SourcedRecord {
  measure_time: number;
  value: number;
  count: number;
  sum?: number;
  min?: number;
  max?: number;
  sum_squares?: number;
  /** summarize_time: how many records were summarized */
  rollups?: number;
  /** the `all` source: how many sources were summarized */
  summarized?: number;
}

export interface SourcedResult {
  resolution: number;
  measurements: Record<string, SourcedRecord[]>;
  query: { next_time?: number };
}

export async function runSourcedQuery(engine: SeriesStore, account: number, metric: MetricRecord, q: SourcedQuery, opts: QueryOptions = {}): Promise<SourcedResult> {
  // a composite has no stored series: an empty answer would look like a metric without data
  if (metric.type === 'composite') {
    throw new ApiError(400, { request: [`${metric.name} is a composite metric: query it with GET /v1/measurements/${metric.name} (or GET /v1/metrics?compose=...)`] });
  }
  const { reads = {}, maxAnswer = MAX_ANSWER_MEASUREMENTS } = opts;
  const counter = metric.type === 'counter';
  const summarizing = q.summarizeTime || q.summarizeSources;
  // Deltas need the bucket before the first one.
  const readFrom = counter && summarizing ? q.from - q.resolution : q.from;

  const bySource = new Map<string, number[]>();
  for (const ref of engine.select(account, metricKey(metric.name), q.filter)) {
    const source = ref.tags.find(([k]) => k === 'source')?.[1] ?? UNASSIGNED;
    const ids = bySource.get(source) ?? [];
    ids.push(ref.id);
    bySource.set(source, ids);
  }
  // the tagged query's read bound: each source's whole window is read before its page is cut
  let series = 0;
  for (const ids of bySource.values()) series += ids.length;
  const readPoints = series * Math.ceil((q.to - readFrom) / q.resolution);
  if (readPoints > MAX_QUERY_POINTS) {
    throw paramError('resolution', `this query would read up to ${readPoints} points (limit ${MAX_QUERY_POINTS}); use a coarser resolution, a shorter time range or fewer sources`);
  }
  const sources = [...bySource.keys()].sort();
  const buckets = new Map<string, Points>();
  // what a page can take of each source, counted as it is read: 5,000 sources of a day's
  // records would otherwise all be held, and answered, at once
  const size = new AnswerSize(maxAnswer, (message) => paramError('sources', `${message}; use a coarser resolution, a shorter time range, count, or fewer sources`));
  for (const source of sources) {
    const ids = bySource.get(source)!;
    const rolled = (await engine.read(account, ids, q.tier, readFrom, q.to, reads)).map((p) => rollUp(p, q.resolution));
    const all = counter && summarizing ? deltas(sortMerge(rolled.map((p) => deltaPoints(p))), q.from) : sortMerge(rolled);
    const kept = pageable(all, q);
    size.add(Math.min(kept.t.length, q.count ?? PAGE_RECORDS));
    buckets.set(source, kept);
  }

  // One page: cut every source at the earliest time where some source overflows.
  let nextTime: number | undefined;
  if (q.count === null) {
    for (const p of buckets.values()) {
      if (p.t.length > PAGE_RECORDS && (nextTime === undefined || p.t[PAGE_RECORDS]! < nextTime)) nextTime = p.t[PAGE_RECORDS]!;
    }
  }
  const page = (p: Points): Points => {
    let idx = p.t.map((_, i) => i).filter((i) => nextTime === undefined || p.t[i]! < nextTime);
    if (q.count !== null) idx = q.fromEnd ? idx.slice(-q.count) : idx.slice(0, q.count);
    const out = emptyPoints();
    for (const i of idx) pushPoint(out, p.t[i]!, at(p, i), p.lastT[i]!);
    return out;
  };

  const fn = metric.attributes.summarize_function ?? 'average';
  const measurements: Record<string, SourcedRecord[]> = {};
  const paged = new Map(sources.map((s) => [s, page(buckets.get(s)!)]));
  if (q.breakoutSources) {
    for (const [source, p] of paged) {
      const records = q.summarizeTime ? summarizeTime(p, q.from, fn) : records_(p, fn, counter && !summarizing);
      if (records.length) measurements[source] = records;
    }
  }
  if (q.summarizeSources && paged.size) {
    const across = acrossSources([...paged.values()]);
    const all = q.summarizeTime
      ? summarizeTime(across.points, q.from, fn).map((r) => ({ ...r, summarized: paged.size }))
      : records_(across.points, fn, false).map((r, i) => ({ ...r, summarized: across.sources[i]! }));
    if (all.length) measurements[ALL_SOURCES] = all;
  }
  return { resolution: q.resolution, measurements, query: nextTime === undefined ? {} : { next_time: nextTime } };
}

/**
 * The records of a source a page can use: the last `count` before end_time, the first
 * `count` after start_time, or without a count the first PAGE_RECORDS and one more, which
 * tells where the page ends.
 */
function pageable(p: Points, q: Pick<SourcedQuery, 'count' | 'fromEnd'>): Points {
  const keep = q.count ?? PAGE_RECORDS + 1;
  if (p.t.length <= keep) return p;
  return q.fromEnd ? slicePoints(p, p.t.length - keep) : slicePoints(p, 0, keep);
}

function at(p: Points, i: number): Summary {
  return { count: p.count[i]!, sum: p.sum[i]!, min: p.min[i]!, max: p.max[i]!, last: p.last[i]!, sumsq: p.sumsq[i]! };
}

/** A counter's buckets as single-sample deltas of their last values. */
function deltaPoints(p: Points): Points {
  const out = emptyPoints();
  for (let i = 1; i < p.t.length; i++) {
    const prev = p.last[i - 1]!;
    const cur = p.last[i]!;
    const d = cur >= prev ? cur - prev : cur; // a decrease is a reset: it counted up from 0
    pushPoint(out, p.t[i]!, { count: 1, sum: d, min: d, max: d, last: d, sumsq: d * d });
  }
  return out;
}

function deltas(p: Points, from: number): Points {
  const out = emptyPoints();
  for (let i = 0; i < p.t.length; i++) if (p.t[i]! >= from) pushPoint(out, p.t[i]!, at(p, i), p.lastT[i]!);
  return out;
}

function valueOf(s: Summary, fn: string): number {
  switch (fn) {
    case 'sum': return s.sum;
    case 'count': return s.count;
    case 'min': return s.min;
    case 'max': return s.max;
    default: return s.sum / s.count;
  }
}

function record(time: number, s: Summary, value: number): SourcedRecord {
  const r: SourcedRecord = { measure_time: time, value, count: s.count };
  if (s.count > 1) Object.assign(r, { sum: s.sum, min: s.min, max: s.max, sum_squares: s.sumsq });
  return r;
}

/** Plain records; a counter read as submitted reports its last value in each bucket. */
function records_(p: Points, fn: string, asSubmitted: boolean): SourcedRecord[] {
  return p.t.map((t, i) => {
    const s = at(p, i);
    return record(t, s, asSubmitted ? s.last : valueOf(s, fn));
  });
}

function summarizeTime(p: Points, from: number, fn: string): SourcedRecord[] {
  if (p.t.length === 0) return [];
  const s = at(p, 0);
  for (let i = 1; i < p.t.length; i++) {
    s.count += p.count[i]!;
    s.sum += p.sum[i]!;
    s.min = Math.min(s.min, p.min[i]!);
    s.max = Math.max(s.max, p.max[i]!);
    s.last = p.last[i]!;
    s.sumsq += p.sumsq[i]!;
  }
  return [{ ...record(from, s, valueOf(s, fn)), rollups: p.t.length }];
}

/** Merges the sources' buckets at each time; remembers how many sources each had. */
function acrossSources(list: Points[]): { points: Points; sources: number[] } {
  const points = sortMerge(list);
  const perTime = new Map<number, number>();
  for (const p of list) for (const t of p.t) perTime.set(t, (perTime.get(t) ?? 0) + 1);
  return { points, sources: points.t.map((t) => perTime.get(t)!) };
}
