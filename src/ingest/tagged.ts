// POST /v1/measurements body -> Sample[]: pure, no storage. Every rule of the spec's
// "Tagged measurement": names and tags checked then lower-cased, per-measurement tags
// replace the top-level ones (an empty map counts as not given), value xor count+sum,
// time and period top-level or per measurement, float exponent limits. All problems of
// a request are collected, each under its element (`measurements[3].tags`).
import { MAX_MAGNITUDE, MAX_SAMPLE_COUNT, MIN_MAGNITUDE } from './float-limits.js';
import { ApiError, type ParamErrors, fieldErrors } from '../errors.js';
import { METRIC_NAME, METRIC_NAME_MESSAGE, canonicalMetricName } from '../domain/names.js';
import type { MetricInput } from '../domain/metrics.js';
import { attributesSchema, type MetricAttributes } from '../domain/metric-attributes.js';
import { compile, paramsFromAjv } from '../schema/validate.js';
import type { Sample, TagPairs } from '../tsdb/sample.js';
import type { TimeWindow } from './time-window.js';

export const TAG_NAME = /^[-.:_A-Za-z0-9]{1,64}$/;
export const TAG_VALUE = /^[-.:_?\\/A-Za-z0-9 ]{1,255}$/;
const TAG_NAME_MESSAGE = 'names must be 1-64 characters of letters, digits, _ - . :';
const TAG_VALUE_MESSAGE = 'values must be 1-255 characters of letters, digits, space, _ - . : ? \\ /';


export interface TaggedLimits extends TimeWindow {
  tagsPerMeasurement: number;
  /** tag maps the scanner's numbering holds before a new generation (tag-sets.ts); default its floor */
  tagSets?: number;
}

export interface TaggedBatch {
  samples: Sample[];
  /** index in the request of each sample (for error messages further down) */
  metricInputs: Map<string, { input: MetricInput; index: number; spelling?: string }>;
}

const validateAttributes = compile<MetricAttributes>(attributesSchema);

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

type Fail = (field: string, msg: string) => void;

/** Field name of element `i` (built only when something is wrong with it). */
const el = (i: number, key?: string) => (key ? `measurements[${i}].${key}` : `measurements[${i}]`);
/** Field name of a top-level key (i < 0) or of element i's key. */
const field = (i: number, key: string) => (i < 0 ? key : el(i, key));

export function parseTagged(body: unknown, limits: TaggedLimits): TaggedBatch {
  const errors = fieldErrors();
  let problems = 0;
  const fail: Fail = (field, msg) => { (errors[field] ??= []).push(msg); problems++; };
  if (!isObject(body)) throw new ApiError(400, { params: { body: ['must be a JSON object with a measurements array'] } });
  const ms = body.measurements;
  if (!Array.isArray(ms) || ms.length === 0) {
    throw new ApiError(400, { params: { measurements: ['must be an array of at least one measurement'] } });
  }
  // Fields beyond the spec are ignored, not refused: real agents send extras
  // (statsd-librato-backend adds stddev_m2 to every timer).

  const topTags = body.tags === undefined ? null : parseTags(body.tags, -1, limits, fail);
  const topTime = body.time === undefined ? limits.now : parseTime(body.time, -1, 'time', limits, fail);
  const topPeriod = body.period === undefined ? undefined : parsePeriod(body.period, -1, 'period', fail);

  const samples: Sample[] = [];
  const metricInputs = new Map<string, { input: MetricInput; index: number; spelling?: string }>();
  for (let i = 0; i < ms.length; i++) {
    const m = ms[i];
    if (!isObject(m)) { fail(el(i), 'must be an object'); continue; }
    const before = problems;

    const name = metricName(m.name);
    if (name === null) fail(el(i, 'name'), typeof m.name === 'string' ? METRIC_NAME_MESSAGE : 'is required');

    let tags: TagPairs | null = topTags;
    if (m.tags !== undefined && !isEmptyObject(m.tags)) tags = parseTags(m.tags, i, limits, fail);
    const time = m.time === undefined ? topTime : parseTime(m.time, i, 'time', limits, fail);
    const period = m.period === undefined ? topPeriod : parsePeriod(m.period, i, 'period', fail);
    let attributes: MetricAttributes | undefined;
    if (m.attributes !== undefined) {
      if (validateAttributes(m.attributes)) attributes = m.attributes;
      else for (const [f, msgs] of Object.entries(paramsFromAjv(validateAttributes.errors ?? []))) for (const msg of msgs as string[]) fail(`${el(i, 'attributes')}${f === 'body' ? '' : '.' + f}`, msg);
    }
    if (attributes?.aggregate && period !== undefined && (period < 10 || period > 600)) {
      fail(el(i, 'period'), 'must be from 10 to 600 seconds for a metric with aggregate: true');
    }
    const sample = parseSummary(m, i, fail);
    if (problems !== before || !sample || time === undefined || name === null) continue;
    if (!metricInputs.has(name)) {
      const input: MetricInput = {};
      if (period !== undefined) input.period = period;
      if (attributes) input.attributes = attributes;
      metricInputs.set(name, typeof m.name === 'string' && m.name !== name ? { input, index: i, spelling: m.name } : { input, index: i });
    }
    sample.metric = name;
    sample.tags = tags ?? NO_TAGS;
    sample.time = time;
    samples.push(sample);
  }
  if (problems) throw new ApiError(400, { params: errors as ParamErrors });
  return { samples, metricInputs };
}

const NO_TAGS: TagPairs = Object.freeze([]);

function isEmptyObject(v: unknown): boolean {
  if (!isObject(v)) return false;
  for (const _ in v) return false;
  return true;
}

// Validated names and tag sets repeat from request to request: remember them (bounded),
// so the hot path neither re-checks nor re-sorts, and the engine sees one array per tag
// set (its series lookup keys on that). Only valid, all-string maps are remembered.
const CACHE_LIMIT = 100_000;
const nameCache = new Map<string, string>();

/** A trie of raw tag maps, key by key in the order given: name -> value -> next node. */
interface TagNode {
  pairs?: TagPairs;
  next?: Map<string, Map<string, TagNode>>;
}
let tagRoot: TagNode = {};
let tagCached = 0;

/** The canonical form of a valid metric name (remembered), or null. */
export function cachedMetricName(raw: unknown): string | null {
  return metricName(raw);
}

function metricName(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const hit = nameCache.get(raw);
  if (hit !== undefined) return hit;
  if (!METRIC_NAME.test(raw)) return null;
  if (nameCache.size >= CACHE_LIMIT) nameCache.clear();
  const name = canonicalMetricName(raw);
  nameCache.set(raw, name);
  return name;
}

/** The cached tag set of a raw map whose values are all strings, or undefined. */
function cachedTags(raw: Obj): TagPairs | undefined {
  let node: TagNode | undefined = tagRoot;
  for (const k in raw) {
    const v = raw[k];
    if (typeof v !== 'string') return undefined;
    node = node.next?.get(k)?.get(v);
    if (node === undefined) return undefined;
  }
  return node.pairs;
}

function cacheTags(raw: Obj, pairs: TagPairs): void {
  if (tagCached >= CACHE_LIMIT) { tagRoot = {}; tagCached = 0; }
  let node = tagRoot;
  for (const k in raw) {
    const v = raw[k];
    if (typeof v !== 'string') return;
    node.next ??= new Map();
    let values = node.next.get(k);
    if (!values) node.next.set(k, (values = new Map()));
    let child = values.get(v);
    if (!child) values.set(v, (child = {}));
    node = child;
  }
  node.pairs = pairs;
  tagCached++;
}

/**
 * The validated pairs of a tag map, or null if anything is wrong with it (no messages).
 * `remember`: false for a caller with its own cache of tag maps (the scanner's numbering,
 * tag-sets.ts), where a second copy in this one's trie cost about 900 bytes a tag set.
 */
export function tagsOfObject(raw: unknown, limits: TaggedLimits, remember = true): TagPairs | null {
  let ok = true;
  const pairs = parseTags(raw, -1, limits, () => { ok = false; }, remember);
  return ok ? pairs : null;
}

function parseTags(raw: unknown, i: number, limits: TaggedLimits, fail: Fail, remember = true): TagPairs | null {
  const at = () => field(i, 'tags');
  if (!isObject(raw)) { fail(at(), 'must be an object of tag names to values'); return null; }
  const hit = cachedTags(raw);
  if (hit !== undefined && hit.length <= limits.tagsPerMeasurement) return hit;
  const keys = Object.keys(raw);
  if (keys.length > limits.tagsPerMeasurement) { fail(at(), `must have at most ${limits.tagsPerMeasurement} tags`); return null; }
  const pairs: [string, string][] = [];
  let ok = true;
  for (const k of keys) {
    const v = raw[k];
    const value = typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'boolean' ? String(v) : null;
    if (!TAG_NAME.test(k)) { fail(at(), `${TAG_NAME_MESSAGE} (got ${JSON.stringify(k.slice(0, 70))})`); ok = false; continue; }
    if (value === null || !TAG_VALUE.test(value)) { fail(at(), `${TAG_VALUE_MESSAGE} (tag ${k})`); ok = false; continue; }
    pairs.push([k.toLowerCase(), value.toLowerCase()]);
  }
  if (!ok) return null;
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (let j = 1; j < pairs.length; j++) {
    if (pairs[j]![0] === pairs[j - 1]![0]) { fail(at(), `tag name ${pairs[j]![0]} is given twice (names are case-insensitive)`); return null; }
  }
  const frozen: TagPairs = Object.freeze(pairs.map((p) => Object.freeze(p)));
  if (remember) cacheTags(raw, frozen);
  return frozen;
}

function parseTime(raw: unknown, i: number, key: string, limits: TaggedLimits, fail: Fail): number | undefined {
  if (typeof raw !== 'number' || !Number.isInteger(raw)) { fail(field(i, key), 'must be an integer (epoch seconds)'); return undefined; }
  if (raw < limits.oldest) { fail(field(i, key), 'too far in past'); return undefined; }
  if (raw > limits.newest) { fail(field(i, key), 'too far in future'); return undefined; }
  return raw;
}

function parsePeriod(raw: unknown, i: number, key: string, fail: Fail): number | undefined {
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > 86400) { fail(field(i, key), 'must be an integer from 1 to 86400 (seconds)'); return undefined; }
  return raw;
}

/** A finite number within the exponent limits (tiny values become 0), or undefined. */
function num(m: Obj, key: string, i: number, fail: Fail): number | undefined {
  const v = m[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) { fail(el(i, key), 'must be a number'); return undefined; }
  const mag = Math.abs(v);
  if (mag >= MAX_MAGNITUDE) { fail(el(i, key), 'exponent is too large (at most 10^126)'); return undefined; }
  return mag < MIN_MAGNITUDE ? 0 : v;
}

function sample(count: number, sum: number, min: number, max: number, last: number, sumsq: number): Sample {
  return { metric: '', tags: NO_TAGS, time: 0, count, sum, min, max, last, sumsq };
}

/** The summary of element i, with metric, tags and time left for the caller to fill. */
function parseSummary(m: Obj, i: number, fail: Fail): Sample | null {
  // the common case first, with fixed property names (fast property access)
  if (m.count === undefined && m.sum === undefined && m.min === undefined && m.max === undefined && m.last === undefined && m.stddev === undefined) {
    const value = m.value;
    if (typeof value === 'number' && Number.isFinite(value)) {
      const mag = Math.abs(value);
      if (mag < MAX_MAGNITUDE) {
        const v = mag < MIN_MAGNITUDE ? 0 : value;
        return sample(1, v, v, v, v, v * v);
      }
    }
  }
  if (m.count === undefined) {
    if (m.value === undefined) { fail(el(i, 'value'), 'is required (or count and sum)'); return null; }
    for (const k of ['sum', 'min', 'max', 'last', 'stddev']) if (m[k] !== undefined) fail(el(i, k), 'is only allowed together with count');
    const value = num(m, 'value', i, fail);
    if (value === undefined) return null;
    return sample(1, value, value, value, value, value * value);
  }
  const sum = num(m, 'sum', i, fail);
  const min = num(m, 'min', i, fail);
  const max = num(m, 'max', i, fail);
  const last = num(m, 'last', i, fail);
  const stddev = num(m, 'stddev', i, fail);
  if (m.value !== undefined) { fail(el(i, 'value'), 'must not be set when count is set'); return null; }
  const count = m.count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) { fail(el(i, 'count'), 'must be a positive integer'); return null; }
  if (count > MAX_SAMPLE_COUNT) { fail(el(i, 'count'), 'must be at most 2^40'); return null; }
  if (m.sum === undefined) { fail(el(i, 'sum'), 'is required when count is set'); return null; }
  if (sum === undefined) return null;
  const mean = sum / count;
  const lo = min ?? mean;
  const hi = max ?? mean;
  if (lo > hi) { fail(el(i, 'min'), 'must not be larger than max'); return null; }
  if (stddev !== undefined && stddev < 0) { fail(el(i, 'stddev'), 'must not be negative'); return null; }
  if (m.min === undefined && m.max === undefined && m.last === undefined && m.stddev === undefined && count === 1) {
    return sample(count, sum, sum, sum, sum, sum * sum);
  }
  // sum of squares from the population standard deviation; without one, no spread
  const sd = stddev ?? 0;
  const sumsq = count === 1 ? sum * sum : count * (sd * sd + mean * mean);
  if (!Number.isFinite(sumsq)) { fail(el(i, 'stddev'), 'is too large'); return null; }
  return sample(count, sum, lo, hi, last ?? mean, sumsq);
}
