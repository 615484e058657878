// GET /v1/metrics/:name and /v1/gauges/:name time-interval parameters (the source-based
// API) -> a checked SourcedQuery. Sources are the tag `source`; data without one is
// reported under `unassigned`.
import { ApiError, paramErrors, fieldErrors } from '../errors.js';
import { compileGlob } from '../match/glob.js';
import { chooseTier, MAX_RESOLUTION, UNAVAILABLE_RESOLUTION } from './window.js';
import type { TagExpr } from '../tsdb/tag-expr.js';
import type { Retention } from '../tsdb/retention.js';
import type { Tier } from '../tsdb/engine.js';

export interface SourcedQuery {
  resolution: number;
  tier: Tier;
  /** first bucket (floored to the resolution) and exclusive end */
  from: number;
  to: number;
  /** N records per source after start_time (fromEnd false) or before end_time (true) */
  count: number | null;
  fromEnd: boolean;
  filter: TagExpr;
  summarizeTime: boolean;
  summarizeSources: boolean;
  breakoutSources: boolean;
}

/** The parameters that turn a metric GET into a measurements read. */
const INTERVAL_PARAMS = ['start_time', 'end_time', 'count', 'resolution', 'source', 'source_tag', 'summarize_time', 'summarize_sources', 'breakout_sources'];

/**
 * `sources=a`, `sources[]=a` and `sources[0]=a`: each way clients encode an array
 * (requests repeats the name, Faraday adds `[]`, Node's qs and jQuery number the
 * elements). A spelling read as nothing would drop the filter and answer every source.
 */
const SOURCES_KEY = /^sources(?:\[\d*\])?$/;
export const isSourcesKey = (key: string): boolean => SOURCES_KEY.test(key);

/** Without start_time or count, this much before end_time is read. */
export const DEFAULT_DURATION = 3600;
export const MAX_COUNT = 1000;

type Query = Record<string, string | string[] | undefined>;

export function wantsMeasurements(query: Query): boolean {
  return INTERVAL_PARAMS.some((p) => query[p] !== undefined) || Object.keys(query).some(isSourcesKey);
}

function one(query: Query, name: string, errors: Record<string, string[]>): string | undefined {
  const v = query[name];
  if (Array.isArray(v)) {
    errors[name] = ['must be given once'];
    return undefined;
  }
  return v === '' ? undefined : v;
}

function int(query: Query, name: string, errors: Record<string, string[]>): number | undefined {
  const v = one(query, name, errors);
  if (v === undefined) return undefined;
  // Fractional times are accepted (agents send them) and floored.
  if (!/^\d{1,12}(\.\d+)?$/.test(v)) { errors[name] = ['must be a number from 0 to 999999999999 (a fraction is floored)']; return undefined; }
  return Math.floor(Number(v));
}

function flag(query: Query, name: string, errors: Record<string, string[]>): boolean | undefined {
  const v = one(query, name, errors);
  if (v === undefined) return undefined;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  errors[name] = ['must be true or false'];
  return undefined;
}

function list(query: Query, ...names: string[]): string[] {
  const out: string[] = [];
  for (const n of names) {
    const v = query[n];
    if (v === undefined) continue;
    for (const x of Array.isArray(v) ? v : [v]) if (x !== '') out.push(x);
  }
  return out;
}

const SOURCE_PATTERN = /^[A-Za-z0-9.:_*-]{1,255}$/;
const TAG_NAME = /^[-.:_A-Za-z0-9]{1,64}$/;

/** How far back a resolution can be served at all: the longest retention of a tier that serves it. */
function reach(resolution: number, retention: Retention): number {
  let keep = retention.raw;
  for (const tier of [60, 900, 3600] as const) if (resolution % tier === 0) keep = Math.max(keep, retention[tier]);
  return keep;
}

export function parseSourcedQuery(query: Query, now: number, retention: Retention): SourcedQuery {
  const errors = fieldErrors();
  const start = int(query, 'start_time', errors);
  const endGiven = int(query, 'end_time', errors);
  const end = endGiven ?? now;
  const count = int(query, 'count', errors);
  const resolutionGiven = int(query, 'resolution', errors);
  const summarizeTime = flag(query, 'summarize_time', errors) ?? false;
  const breakout = flag(query, 'breakout_sources', errors) ?? true;
  const summarizeSources = (flag(query, 'summarize_sources', errors) ?? false) || !breakout;
  if (count !== undefined && (count < 1 || count > MAX_COUNT)) errors.count = [`must be from 1 to ${MAX_COUNT}`];
  if (resolutionGiven !== undefined && (resolutionGiven < 1 || resolutionGiven > MAX_RESOLUTION)) errors.resolution = [`must be from 1 to ${MAX_RESOLUTION} seconds`];
  if (start !== undefined && start > end) errors.start_time = [endGiven === undefined ? 'is in the future (end_time, not given, is now)' : 'must not be after end_time'];

  const patterns = list(query, ...Object.keys(query).filter(isSourcesKey), 'source');
  for (const p of patterns) if (!SOURCE_PATTERN.test(p)) (errors.sources ??= []).push(`${JSON.stringify(p.slice(0, 60))} is not a source name or pattern`);
  const sourceTag = one(query, 'source_tag', errors);
  let tagClause: TagExpr | null = null;
  if (sourceTag !== undefined) {
    // Sources are tags here, so a source tag is a tag of the stream: `name` (has the
    // tag) or `name:value` / `name=value` (has it with that value; `*` allowed).
    const m = /^([^:=]+)(?:[:=](.+))?$/.exec(sourceTag);
    if (!m || !TAG_NAME.test(m[1]!)) errors.source_tag = ['must be a tag name, or name:value'];
    else tagClause = { op: 'match', name: m[1]!.toLowerCase(), glob: compileGlob(m[2] ?? '*') };
  }
  if (Object.keys(errors).length) throw paramErrors(errors);

  const fromEnd = start === undefined && count !== undefined;
  const resolution = resolutionGiven ?? 1;
  // The last N records: search as far back as the resolution is kept (one bucket of
  // margin, since the start is floored to the resolution).
  const res0 = resolutionGiven ?? 1;
  const s = start ?? (count !== undefined ? Math.min(end, now - reach(res0, retention) + res0) : end - DEFAULT_DURATION);
  const reachBack = Math.max(retention.raw, retention['60'], retention['900'], retention['3600']);
  const from = Math.floor(Math.max(s, now - reachBack) / resolution) * resolution;
  let tier = chooseTier(resolution, from, now, retention);
  if (tier === null && resolutionGiven === undefined) {
    // No resolution asked for: the finest stored tier that still holds the start.
    for (const r of [60, 900, 3600]) {
      tier = chooseTier(r, from, now, retention);
      if (tier !== null) return build(r, tier);
    }
  }
  if (tier === null) throw new ApiError(400, { request: [UNAVAILABLE_RESOLUTION] });
  return build(resolution, tier);

  function build(res: number, t: Tier): SourcedQuery {
    const sourceExpr: TagExpr | null = patterns.length === 0 ? null
      : patterns.length === 1 ? { op: 'match', name: 'source', glob: compileGlob(patterns[0]!) }
        : { op: 'or', args: patterns.map((p) => ({ op: 'match' as const, name: 'source', glob: compileGlob(p) })) };
    const parts = [sourceExpr, tagClause].filter((x): x is TagExpr => x !== null);
    const filter: TagExpr = parts.length === 0 ? { op: 'all' } : parts.length === 1 ? parts[0]! : { op: 'and', args: parts };
    return {
      resolution: res, tier: t, from: Math.floor(from / res) * res, to: Math.floor(end / res) * res + res, // whole buckets (window.ts)
      count: count ?? null, fromEnd,
      filter, summarizeTime, summarizeSources, breakoutSources: breakout,
    };
  }
}
