// POST /v1/metrics (source-based, API 1.0) body -> normalised measurements. Pure: no I/O.
// Three layouts for `gauges` and `counters`: an object keyed by metric name, an object
// keyed by arbitrary index whose elements carry `name`, or an array of elements with
// `name`. The source becomes the tag `source` downstream, so tagged queries see it.
import { ApiError, type ParamErrors, fieldErrors } from '../errors.js';
import { checkElement, compileBoth } from '../schema/validate.js';
import type { MetricInput } from '../domain/metrics.js';
import { attributesSchema } from '../domain/metric-attributes.js';
import { METRIC_NAME, METRIC_NAME_MESSAGE, SOURCE, SOURCE_MESSAGE, canonicalMetricName } from '../domain/names.js';
import { valueSample, type Sample, type TagPairs } from '../tsdb/sample.js';
import type { MetricUse } from './pipeline.js';
import { MAX_SAMPLE_COUNT, withinExponentLimits } from './float-limits.js';
import type { TimeWindow } from './time-window.js';

export type SourcedKind = 'gauge' | 'counter';

export interface SourcedMeasurement {
  kind: SourcedKind;
  /** canonical (lower-cased) metric name */
  name: string;
  /** the name as the request spelled it */
  spelling: string;
  /** null when neither the element nor the body names one */
  source: string | null;
  /** whole epoch seconds */
  time: number;
  value?: number;
  count?: number;
  sum?: number;
  min?: number;
  max?: number;
  sum_squares?: number;
  /** metric properties, applied only if this request creates the metric */
  metric: MetricInput;
  /** where the element sits in the body, for error messages */
  path: string;
}

export { SOURCE, SOURCE_MESSAGE };

const elementSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    value: { type: 'number' },
    measure_time: { type: 'number', minimum: 0 },
    source: { type: ['string', 'null'] },
    count: { type: 'integer', minimum: 1, maximum: MAX_SAMPLE_COUNT },
    sum: { type: 'number' },
    min: { type: 'number' },
    max: { type: 'number' },
    sum_squares: { type: 'number', minimum: 0 },
    period: { type: ['integer', 'null'], minimum: 1, maximum: 86400 },
    display_name: { type: ['string', 'null'], maxLength: 255 },
    description: { type: ['string', 'null'], maxLength: 1024 },
    attributes: attributesSchema,
  },
  // Agents send extra fields (stddev_m2, ...): they are ignored, not refused.
} as const;

const bodySchema = {
  type: 'object',
  properties: {
    gauges: { type: ['object', 'array'] },
    counters: { type: ['object', 'array'] },
    source: { type: ['string', 'null'] },
    measure_time: { type: 'number', minimum: 0 },
  },
} as const;

type Element = {
  name?: string; value?: number; measure_time?: number; source?: string | null;
  count?: number; sum?: number; min?: number; max?: number; sum_squares?: number;
  period?: number | null; display_name?: string | null; description?: string | null; attributes?: MetricInput['attributes'];
};

const element = compileBoth<Element>(elementSchema);
const body = compileBoth<{ gauges?: unknown; counters?: unknown; source?: string | null; measure_time?: number }>(bodySchema);

/** The measurements of a body, or a 400 naming every offending element. */
export function parseSourced(raw: unknown, isForm: boolean, nowSeconds: number): SourcedMeasurement[] {
  const top = checkElement(isForm ? body.form : body.json, raw, '');
  const params: ParamErrors = fieldErrors();
  const fail = (field: string, message: string) => { ((params[field] ??= []) as string[]).push(message); };

  // an empty source means none, at the top level as on an element (forms send `source=`)
  const topSource = top.source === '' ? null : top.source ?? null;
  if (topSource !== null && !checkSource(topSource)) fail('source', topSource.toLowerCase() === 'all' ? 'all is reserved' : SOURCE_MESSAGE);
  const defaults = { source: topSource, time: top.measure_time !== undefined ? Math.floor(top.measure_time) : nowSeconds };

  const out: SourcedMeasurement[] = [];
  for (const kind of ['gauge', 'counter'] as const) {
    const key = kind === 'gauge' ? 'gauges' : 'counters';
    const group = top[key];
    if (group === undefined || group === null) continue;
    for (const [index, entry] of Object.entries(group as Record<string, unknown>)) {
      const path = `${key}[${index}]`;
      try {
        const m = toMeasurement(kind, entry, Array.isArray(group) ? null : index, path, isForm, defaults);
        if (m) out.push(m);
      } catch (err) {
        if (!(err instanceof ApiError) || !err.body.params) throw err;
        Object.assign(params, err.body.params);
      }
    }
  }
  if (Object.keys(params).length) throw new ApiError(400, { params });
  if (out.length === 0) throw new ApiError(400, { params: { measurements: ['at least one gauge or counter is required'] } });
  return out;
}

function checkSource(s: string): boolean {
  return SOURCE.test(s) && s.toLowerCase() !== 'all';
}

function toMeasurement(kind: SourcedKind, entry: unknown, key: string | null, path: string, isForm: boolean, defaults: { source: string | null; time: number }): SourcedMeasurement | null {
  // `gauges[cpu]=3` / {"gauges": {"cpu": 3}}: a bare value under its name.
  const obj: unknown = typeof entry === 'number' || (isForm && typeof entry === 'string') ? { value: entry } : entry;
  const e = checkElement(isForm ? element.form : element.json, obj, path);
  const params = fieldErrors();
  const name = e.name ?? key;
  if (name === null || name === undefined) params[`${path}.name`] = ['is required'];
  else if (!METRIC_NAME.test(name)) params[`${path}.name`] = [METRIC_NAME_MESSAGE];
  const source = e.source !== undefined && e.source !== null && e.source !== '' ? e.source : defaults.source;
  if (e.source && !checkSource(e.source)) params[`${path}.source`] = [e.source.toLowerCase() === 'all' ? 'all is reserved' : SOURCE_MESSAGE];

  const multi = e.count !== undefined;
  if (kind === 'counter') {
    for (const f of ['count', 'sum', 'min', 'max', 'sum_squares'] as const) {
      if (e[f] !== undefined) params[`${path}.${f}`] = ['is only allowed for gauges'];
    }
    if (e.value === undefined) params[`${path}.value`] = ['is required'];
  } else if (multi) {
    if (e.value !== undefined) params[`${path}.value`] = ['must not be set together with count'];
    if (e.sum === undefined) params[`${path}.sum`] = ['is required when count is set'];
    if (e.min !== undefined && e.max !== undefined && e.min > e.max) params[`${path}.min`] = ['must not be greater than max'];
  } else {
    if (e.value === undefined) params[`${path}.value`] = ['is required (or count and sum)'];
    for (const f of ['sum', 'min', 'max', 'sum_squares'] as const) {
      if (e[f] !== undefined) params[`${path}.${f}`] = ['requires count'];
    }
  }
  if (Object.keys(params).length) throw new ApiError(400, { params });

  const metric: MetricInput = {};
  if (e.period !== undefined) metric.period = e.period;
  if (e.display_name !== undefined) metric.display_name = e.display_name;
  if (e.description !== undefined) metric.description = e.description;
  if (e.attributes !== undefined) metric.attributes = e.attributes;
  const m: SourcedMeasurement = {
    kind, name: canonicalMetricName(name!), spelling: name!, source: source ? source.toLowerCase() : null,
    time: e.measure_time !== undefined ? Math.floor(e.measure_time) : defaults.time, metric, path,
  };
  if (multi) {
    m.count = e.count!;
    m.sum = e.sum!;
    if (e.min !== undefined) m.min = e.min;
    if (e.max !== undefined) m.max = e.max;
    if (e.sum_squares !== undefined) m.sum_squares = e.sum_squares;
  } else {
    m.value = e.value!;
  }
  return m;
}

/**
 * Measurements -> engine samples (the source as the tag `source`) and what the request
 * says about each metric. Also refuses times out of range, floats beyond Librato's
 * exponent limits, and one name used both as a gauge and as a counter.
 */
export function sourcedSamples(ms: SourcedMeasurement[], times: TimeWindow): { samples: Sample[]; metrics: Map<string, MetricUse> } {
  const params = fieldErrors();
  const samples: Sample[] = [];
  const metrics = new Map<string, MetricUse>();
  const tagSets = new Map<string | null, TagPairs>();
  ms.forEach((m, index) => {
    const bad = (f: string, msg: string) => { (params[`${m.path}.${f}`] ??= []).push(msg); };
    if (m.time < times.oldest) bad('measure_time', 'too far in past');
    if (m.time > times.newest) bad('measure_time', 'too far in future');
    const fields = ['value', 'count', 'sum', 'min', 'max', 'sum_squares'] as const;
    const v: Partial<Record<(typeof fields)[number], number>> = {};
    for (const f of fields) {
      if (m[f] === undefined) continue;
      const ok = withinExponentLimits(m[f]!);
      if (ok === null) bad(f, 'exponent is too large (at most 10^126)');
      else v[f] = ok;
    }
    const use = metrics.get(m.name);
    if (use && use.type !== m.kind) bad('name', `${m.name} is sent both as a gauge and as a counter`);
    if (!use) metrics.set(m.name, { input: m.metric, index, type: m.kind, field: `${m.path}.name`, spelling: m.spelling });
    let tags = tagSets.get(m.source);
    if (!tags) tagSets.set(m.source, (tags = Object.freeze(m.source === null ? [] : [Object.freeze(['source', m.source] as const)])));
    if (v.count !== undefined) {
      const mean = v.sum! / v.count;
      samples.push({
        // with only one bound given, the other is the mean, but never past the given one
        metric: m.name, tags, time: m.time, count: v.count, sum: v.sum!,
        min: v.min ?? Math.min(mean, v.max ?? mean), max: v.max ?? Math.max(mean, v.min ?? mean),
        last: mean, sumsq: v.sum_squares ?? v.count * mean * mean,
      });
    } else if (v.value !== undefined) {
      samples.push(valueSample(m.name, tags, m.time, v.value));
    }
  });
  if (Object.keys(params).length) throw new ApiError(400, { params });
  return { samples, metrics };
}
