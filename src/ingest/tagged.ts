// POST /v1/measurements body -> Sample[]: pure, no storage. Every rule of the spec's
// "Tagged measurement": names and tags checked then lower-cased, per-measurement tags
// replace the top-level ones (an empty map counts as not given), value xor count+sum,
// time and period top-level or per measurement, float exponent limits. All problems of
// a request are collected, each under its element (`measurements[3].tags`).
import { ApiError, type ParamErrors } from '../errors.js';
import { METRIC_NAME, METRIC_NAME_MESSAGE, canonicalMetricName } from '../domain/names.js';
import { attributesSchema, type MetricInput, type MetricAttributes } from '../domain/metrics.js';
import { compile, paramsFromAjv } from '../http/validate.js';
import type { Sample, TagPairs } from './sample.js';

export const TAG_NAME = /^[-.:_A-Za-z0-9]{1,64}$/;
export const TAG_VALUE = /^[-.:_?\\/A-Za-z0-9 ]{1,255}$/;
const TAG_NAME_MESSAGE = 'names must be 1-64 characters of letters, digits, _ - . :';
const TAG_VALUE_MESSAGE = 'values must be 1-255 characters of letters, digits, space, _ - . : ? \\ /';

/** Base-10 exponent limits (librato-api-notes §9): above rejects, below becomes 0. */
const MAX_MAGNITUDE = 1e127;
const MIN_MAGNITUDE = 1e-130;

export interface TaggedLimits {
  tagsPerMeasurement: number;
  /** oldest accepted time, epoch seconds */
  oldest: number;
  /** newest accepted time, epoch seconds */
  newest: number;
  /** time for measurements that give none */
  now: number;
}

export interface TaggedBatch {
  samples: Sample[];
  /** index in the request of each sample (for error messages further down) */
  metricInputs: Map<string, { input: MetricInput; index: number }>;
}

const validateAttributes = compile<MetricAttributes>(attributesSchema);

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function parseTagged(body: unknown, limits: TaggedLimits): TaggedBatch {
  const errors: Record<string, string[]> = {};
  const fail = (field: string, msg: string) => { (errors[field] ??= []).push(msg); };
  if (!isObject(body)) throw new ApiError(400, { params: { body: ['must be a JSON object with a measurements array'] } });
  const ms = body.measurements;
  if (!Array.isArray(ms) || ms.length === 0) {
    throw new ApiError(400, { params: { measurements: ['must be an array of at least one measurement'] } });
  }
  for (const k of Object.keys(body)) if (!TOP_LEVEL.has(k)) fail(k, 'is not a known field');

  const topTags = body.tags === undefined ? null : parseTags(body.tags, 'tags', limits, fail);
  const topTime = body.time === undefined ? limits.now : parseTime(body.time, 'time', limits, fail);
  const topPeriod = body.period === undefined ? undefined : parsePeriod(body.period, 'period', fail);

  const samples: Sample[] = [];
  const metricInputs = new Map<string, { input: MetricInput; index: number }>();
  for (let i = 0; i < ms.length; i++) {
    const at = `measurements[${i}]`;
    const m = ms[i];
    if (!isObject(m)) { fail(at, 'must be an object'); continue; }
    const before = Object.keys(errors).length;
    for (const k of Object.keys(m)) if (!ELEMENT.has(k)) fail(`${at}.${k}`, 'is not a known field');

    let name = '';
    if (typeof m.name !== 'string') fail(`${at}.name`, 'is required');
    else if (!METRIC_NAME.test(m.name)) fail(`${at}.name`, METRIC_NAME_MESSAGE);
    else name = canonicalMetricName(m.name);

    let tags: TagPairs | null = topTags;
    if (m.tags !== undefined && !(isObject(m.tags) && Object.keys(m.tags).length === 0)) tags = parseTags(m.tags, `${at}.tags`, limits, fail);
    const time = m.time === undefined ? topTime : parseTime(m.time, `${at}.time`, limits, fail);
    const period = m.period === undefined ? topPeriod : parsePeriod(m.period, `${at}.period`, fail);
    let attributes: MetricAttributes | undefined;
    if (m.attributes !== undefined) {
      if (validateAttributes(m.attributes)) attributes = m.attributes;
      else for (const [f, msgs] of Object.entries(paramsFromAjv(validateAttributes.errors ?? []))) for (const msg of msgs as string[]) fail(`${at}.attributes${f === 'body' ? '' : '.' + f}`, msg);
    }
    if (attributes?.aggregate && period !== undefined && (period < 10 || period > 600)) {
      fail(`${at}.period`, 'must be from 10 to 600 seconds for a metric with aggregate: true');
    }
    const summary = parseSummary(m, at, fail);
    if (Object.keys(errors).length !== before || !summary || time === undefined) continue;
    if (!metricInputs.has(name)) {
      const input: MetricInput = {};
      if (period !== undefined) input.period = period;
      if (attributes) input.attributes = attributes;
      metricInputs.set(name, { input, index: i });
    }
    samples.push({ metric: name, tags: tags ?? NO_TAGS, time, ...summary });
  }
  if (Object.keys(errors).length) throw new ApiError(400, { params: errors as ParamErrors });
  return { samples, metricInputs };
}

const TOP_LEVEL = new Set(['tags', 'time', 'period', 'measurements']);
const ELEMENT = new Set(['name', 'value', 'tags', 'time', 'period', 'attributes', 'count', 'sum', 'min', 'max', 'last', 'stddev']);
const NO_TAGS: TagPairs = Object.freeze([]);

function parseTags(raw: unknown, at: string, limits: TaggedLimits, fail: (f: string, m: string) => void): TagPairs | null {
  if (!isObject(raw)) { fail(at, 'must be an object of tag names to values'); return null; }
  const keys = Object.keys(raw);
  if (keys.length > limits.tagsPerMeasurement) { fail(at, `must have at most ${limits.tagsPerMeasurement} tags`); return null; }
  const pairs: [string, string][] = [];
  let ok = true;
  for (const k of keys) {
    const v = raw[k];
    const value = typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'boolean' ? String(v) : null;
    if (!TAG_NAME.test(k)) { fail(at, `${TAG_NAME_MESSAGE} (got ${JSON.stringify(k.slice(0, 70))})`); ok = false; continue; }
    if (value === null || !TAG_VALUE.test(value)) { fail(at, `${TAG_VALUE_MESSAGE} (tag ${k})`); ok = false; continue; }
    pairs.push([k.toLowerCase(), value.toLowerCase()]);
  }
  if (!ok) return null;
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (let i = 1; i < pairs.length; i++) {
    if (pairs[i]![0] === pairs[i - 1]![0]) { fail(at, `tag name ${pairs[i]![0]} is given twice (names are case-insensitive)`); return null; }
  }
  return pairs;
}

function parseTime(raw: unknown, at: string, limits: TaggedLimits, fail: (f: string, m: string) => void): number | undefined {
  if (typeof raw !== 'number' || !Number.isInteger(raw)) { fail(at, 'must be an integer (epoch seconds)'); return undefined; }
  if (raw < limits.oldest) { fail(at, 'too far in past'); return undefined; }
  if (raw > limits.newest) { fail(at, 'too far in future'); return undefined; }
  return raw;
}

function parsePeriod(raw: unknown, at: string, fail: (f: string, m: string) => void): number | undefined {
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > 86400) { fail(at, 'must be an integer from 1 to 86400 (seconds)'); return undefined; }
  return raw;
}

/** A finite number within the exponent limits (tiny values become 0), or undefined. */
function num(m: Obj, key: string, at: string, fail: (f: string, m: string) => void): number | undefined {
  const v = m[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) { fail(`${at}.${key}`, 'must be a number'); return undefined; }
  const mag = Math.abs(v);
  if (mag >= MAX_MAGNITUDE) { fail(`${at}.${key}`, 'exponent is too large (at most 10^126)'); return undefined; }
  return mag < MIN_MAGNITUDE ? 0 : v;
}

function parseSummary(m: Obj, at: string, fail: (f: string, m: string) => void): Omit<Sample, 'metric' | 'tags' | 'time'> | null {
  const value = num(m, 'value', at, fail);
  const sum = num(m, 'sum', at, fail);
  const min = num(m, 'min', at, fail);
  const max = num(m, 'max', at, fail);
  const last = num(m, 'last', at, fail);
  const stddev = num(m, 'stddev', at, fail);
  if (m.count === undefined) {
    if (m.value === undefined) { fail(`${at}.value`, 'is required (or count and sum)'); return null; }
    for (const k of ['sum', 'min', 'max', 'last', 'stddev']) if (m[k] !== undefined) fail(`${at}.${k}`, 'is only allowed together with count');
    if (value === undefined) return null;
    return { count: 1, sum: value, min: value, max: value, last: value, sumsq: value * value };
  }
  if (m.value !== undefined) { fail(`${at}.value`, 'must not be set when count is set'); return null; }
  const count = m.count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 2 ** 40) { fail(`${at}.count`, 'must be a positive integer'); return null; }
  if (m.sum === undefined) { fail(`${at}.sum`, 'is required when count is set'); return null; }
  if (sum === undefined) return null;
  const mean = sum / count;
  const lo = min ?? mean;
  const hi = max ?? mean;
  if (lo > hi) { fail(`${at}.min`, 'must not be larger than max'); return null; }
  if (stddev !== undefined && stddev < 0) { fail(`${at}.stddev`, 'must not be negative'); return null; }
  if (m.min === undefined && m.max === undefined && m.last === undefined && m.stddev === undefined && count === 1) {
    return { count, sum, min: sum, max: sum, last: sum, sumsq: sum * sum };
  }
  // sum of squares from the population standard deviation; without one, no spread
  const sd = stddev ?? 0;
  const sumsq = count === 1 ? sum * sum : count * (sd * sd + mean * mean);
  if (!Number.isFinite(sumsq)) { fail(`${at}.stddev`, 'is too large'); return null; }
  return { count, sum, min: lo, max: hi, last: last ?? mean, sumsq };
}
