// The metric catalogue: what a metric is (type, period, attributes), its create/update
// rules, batch updates and deletion. Measurements of a deleted metric are removed by
// the purge hooks that the storage engine registers.
import type { Store } from '../store/db.js';
import type { CommitQueue, WriteOp } from '../store/commit.js';
import { Collection } from '../store/collection.js';
import { ApiError, fieldErrors, paramErrors } from '../errors.js';
import { compileGlob } from '../match/glob.js';
import { canonicalMetricName, displayNameProblem, METRIC_NAME, METRIC_NAME_MESSAGE, METRIC_PATTERN } from './names.js';
import { transformProblem } from './transform.js';
import type { MetricAttributes } from './metric-attributes.js';
import { overLimit } from './account-limits.js';
import { AccountLock } from './account-lock.js';

export type MetricType = 'gauge' | 'counter' | 'composite';

export interface MetricRecord {
  /**
   * as first created (`Test`); the namespace is case-insensitive, so lookups, storage
   * keys and the engine's series use metricKey(name), the lower-cased form
   */
  name: string;
  type: MetricType;
  display_name: string | null;
  description: string | null;
  period: number | null;
  attributes: MetricAttributes;
  composite: string | null;
  /** seconds a source may lag behind (Librato field the clients send); absent in older records */
  source_lag?: number | null;
  created_at: number;
  updated_at: number;
}

/** Properties a client may set; everything else is the server's. */
export interface MetricInput {
  type?: MetricType;
  display_name?: string | null;
  description?: string | null;
  period?: number | null;
  attributes?: MetricAttributes;
  composite?: string | null;
  source_lag?: number | null;
}

/**
 * Checks a composite definition before it is saved: the problem in the parser's words,
 * or null. The composite language lives in the query layer, which hands this in.
 * `metric`: the composite metric being saved (null for a chart's stream), which must not
 * read itself nor be read by another composite.
 */
export type CompositeCheck = (accountId: number, definition: string, metric: string | null) => Promise<string | null>;

/**
 * Called with the metrics being deleted: the operations that remove their data, committed
 * in one batch with the metric records, and `release`, called once that batch is committed
 * or has failed (until then the storage engine keeps what a crash would need).
 */
export type PurgeHook = (accountId: number, names: string[]) => Promise<{ ops: WriteOp[]; release(): void }>;

const now = () => Math.floor(Date.now() / 1000);
/** `*` patterns in one batch request's `exclude` */
export const MAX_EXCLUDE_PATTERNS = 100;

/** The case-insensitive identity of a metric: its key in storage, the catalogue and the engine. */
export function metricKey(name: string): string {
  return canonicalMetricName(name);
}

export class MetricCatalog {
  private readonly records: Collection<MetricRecord>;
  private readonly cache = new Map<number, Map<string, MetricRecord>>();
  private readonly loading = new Map<number, Promise<Map<string, MetricRecord>>>();
  readonly purgeHooks: PurgeHook[] = [];
  /** set by the runtime; without it definitions are saved unchecked (unit tests of the catalogue) */
  checkComposite: CompositeCheck | null = null;
  /**
   * How many composite metrics one account may hold (limits.per_account, set by the
   * runtime): every metric is kept in memory, a composite with its definition of up to
   * 8 kB, so their number is bounded as spaces and alerts are.
   */
  compositeLimit: () => number = () => Infinity;
  /** composites being written, per account: two creates at once cannot both take the last place */
  private readonly compositesWriting = new Map<number, number>();
  /**
   * Saves of composites, one at a time per account: each is checked against the composites
   * saved before it (two created at once, each reading the other, both passed the check).
   */
  private readonly compositeSaves = new AccountLock();
  /** PUTs of one account one at a time: of two creating one name, one creates it (201), the other updates it (204) */
  private readonly puts = new AccountLock();
  /**
   * Deletes under way, by account and name, settled once written: a lookup of such a name
   * waits for it. A measurement posted meanwhile found the old record, so it created no
   * new one, while its points went to fresh series: stored and acknowledged, yet the
   * metric answered 404 once the delete landed.
   */
  private readonly deleting = new Map<string, Promise<void>>();
  /**
   * Deletes begun, per account, counted. A write that checked its metrics, then waited
   * (for the microtask queue, say) before appending, compares this count: a delete that
   * began meanwhile may have taken the metric's series out of the engine already, and an
   * append now would store points under a metric the delete is removing (fresh series that
   * a later metric of that name would find again).
   */
  private readonly deletesBegun = new Map<number, number>();

  constructor(store: Store, private readonly commit: CommitQueue) {
    this.records = new Collection<MetricRecord>(store, 'metrics');
  }

  /** All metrics of an account, by canonical name (loaded once, then kept current). */
  private async byName(accountId: number): Promise<Map<string, MetricRecord>> {
    const cached = this.cache.get(accountId);
    if (cached) return cached;
    let p = this.loading.get(accountId);
    if (!p) {
      p = this.records.list(accountId).then((list) => {
        const m = new Map(list.map((r) => [metricKey(r.name), r]));
        this.cache.set(accountId, m);
        this.loading.delete(accountId);
        return m;
      });
      this.loading.set(accountId, p);
    }
    return p;
  }

  async get(accountId: number, name: string): Promise<MetricRecord | undefined> {
    const key = metricKey(name);
    // (every measurement request asks for its metrics: no key built while nothing is deleted)
    const pending = this.deleting.size ? this.deleting.get(`${accountId}\0${key}`) : undefined;
    if (pending) await pending;
    return (await this.byName(accountId)).get(key);
  }

  /** How many deletes of the account's metrics have begun (see deletesBegun). */
  deletesBegunIn(accountId: number): number {
    return this.deletesBegun.get(accountId) ?? 0;
  }

  async list(accountId: number): Promise<MetricRecord[]> {
    return [...(await this.byName(accountId)).values()];
  }

  /** Create or update (PUT semantics). Returns whether the metric was created. */
  async put(accountId: number, rawName: string, input: MetricInput, userAgent: string | null): Promise<{ created: boolean; metric: MetricRecord }> {
    const key = checkName(rawName);
    const metrics = await this.byName(accountId);
    return this.puts.run(accountId, async () => {
      const existing = metrics.get(key);
      // a new metric keeps the spelling it was created with; an update never renames
      const metric = existing ? applyUpdate(existing, input) : newMetric(rawName, input, userAgent);
      await this.save(accountId, [metric]);
      return { created: !existing, metric };
    });
  }

  /**
   * The metric for a measurement: created on first sight with the request's properties,
   * which are ignored when it already exists.
   */
  async ensure(accountId: number, rawName: string, type: 'gauge' | 'counter', input: MetricInput, userAgent: string | null): Promise<MetricRecord> {
    const key = metricKey(rawName);
    const metrics = await this.byName(accountId);
    const existing = metrics.get(key);
    if (existing) return existing;
    const metric = newMetric(rawName, { ...input, type }, userAgent);
    metrics.set(key, metric); // visible at once, so concurrent requests do not create it twice
    try {
      await this.commit.write([this.records.put(accountId, key, metric)]);
    } catch (err) {
      metrics.delete(key);
      throw err;
    }
    return metric;
  }

  /**
   * Names selected by an explicit list or a single `*` pattern (existing metrics only for
   * patterns), less those matching any name or pattern of `exclude`.
   */
  async select(accountId: number, names: string[] | string, exclude: string[] | string = []): Promise<{ existing: string[]; missing: string[] }> {
    const metrics = await this.byName(accountId);
    // exact names are a set lookup; only `*` patterns are tested one by one, and bounded
    // (10,000 names against 10,000 patterns was 10^8 tests on the request thread)
    const all = typeof exclude === 'string' ? [exclude] : exclude;
    const patterns = all.filter((p) => p.includes('*')).map((p) => compileGlob(p));
    if (patterns.length > MAX_EXCLUDE_PATTERNS) throw paramErrors({ exclude: [`at most ${MAX_EXCLUDE_PATTERNS} patterns with *`] });
    const exact = new Set(all.filter((p) => !p.includes('*')).map(metricKey));
    const kept = (n: string) => !exact.has(n) && !patterns.some((g) => g.test(n));
    checkNames(names);
    if (typeof names === 'string' && names.includes('*')) {
      const glob = compileGlob(names);
      return { existing: [...metrics.keys()].filter((n) => glob.test(n) && kept(n)).sort(), missing: [] };
    }
    // keys of existing metrics; missing ones in the spelling given, for creation
    const given = new Map<string, string>();
    for (const n of typeof names === 'string' ? [names] : names) if (!given.has(checkName(n))) given.set(checkName(n), n);
    const list = [...given.keys()].filter(kept);
    return { existing: list.filter((n) => metrics.has(n)), missing: list.filter((n) => !metrics.has(n)).map((n) => given.get(n)!) };
  }

  /**
   * Batch update: existing metrics are updated; explicitly named missing ones are created
   * (as PUT /v1/metrics/:name would), with `type` if given. Gauge-only attributes are
   * skipped for counters. A `type` other than an existing metric's refuses the batch, as
   * the single PUT refuses it: ignoring it would answer 204 for a change never made.
   */
  async updateMany(accountId: number, names: string[], input: MetricInput, userAgent: string | null, progress: (pct: number) => void = () => {}): Promise<number> {
    const metrics = await this.byName(accountId);
    // Every metric's update is built and checked before any is written: one refused (an
    // aggregated metric's period, a composite's definition) refuses them all, as a short
    // list refused at once does, instead of leaving the chunks before it applied.
    const updated = names.map((n) => {
      const existing = metrics.get(metricKey(n));
      if (!existing) return newMetric(n, input, userAgent);
      if (input.type !== undefined && input.type !== existing.type) {
        throw paramErrors({ type: [`cannot change ${existing.name}, a ${existing.type} metric, into a ${input.type} metric`] });
      }
      const own = existing.type === 'counter' ? withoutGaugeAttributes(input) : input;
      return applyUpdate(existing, own);
    });
    await this.check(accountId, updated);
    const chunk = 500;
    for (let i = 0; i < updated.length; i += chunk) {
      const batch = updated.slice(i, i + chunk);
      await this.save(accountId, batch);
      progress(((i + batch.length) / names.length) * 100);
    }
    return names.length;
  }

  async deleteMany(accountId: number, names: string[], progress: (pct: number) => void = () => {}): Promise<number> {
    const metrics = await this.byName(accountId);
    const chunk = 100;
    let deleted = 0;
    for (let i = 0; i < names.length; i += chunk) {
      const batch = names.slice(i, i + chunk).map(metricKey).filter((n) => metrics.has(n));
      let settle = () => {};
      const settled = new Promise<void>((resolve) => { settle = resolve; });
      for (const n of batch) this.deleting.set(`${accountId}\0${n}`, settled);
      this.deletesBegun.set(accountId, this.deletesBegunIn(accountId) + 1);
      const releases: (() => void)[] = [];
      try {
        const ops: WriteOp[] = batch.map((n) => this.records.del(accountId, n));
        for (const hook of this.purgeHooks) {
          const purge = await hook(accountId, batch);
          releases.push(purge.release);
          ops.push(...purge.ops);
        }
        await this.commit.write(ops);
        for (const n of batch) metrics.delete(n);
      } finally {
        for (const release of releases) release();
        for (const n of batch) this.deleting.delete(`${accountId}\0${n}`);
        settle();
      }
      deleted += batch.length;
      progress(((i + chunk) / names.length) * 100);
    }
    return deleted;
  }

  private save(accountId: number, list: MetricRecord[]): Promise<void> {
    if (!list.some((m) => m.type === 'composite')) return this.write(accountId, list);
    return this.compositeSaves.run(accountId, () => this.write(accountId, list));
  }

  /** Refuses the list if a composite's definition is refused. */
  private async check(accountId: number, list: MetricRecord[]): Promise<void> {
    for (const m of list) {
      if (m.type !== 'composite' || m.composite === null || !this.checkComposite) continue;
      const problem = await this.checkComposite(accountId, m.composite, m.name);
      if (problem) throw new ApiError(400, { params: { composite: [problem] } });
    }
  }

  private async write(accountId: number, list: MetricRecord[]): Promise<void> {
    await this.check(accountId, list);
    const metrics = await this.byName(accountId);
    const added = list.filter((m) => m.type === 'composite' && metrics.get(metricKey(m.name))?.type !== 'composite').length;
    const writing = this.compositesWriting.get(accountId) ?? 0;
    if (added > 0) {
      const limit = this.compositeLimit();
      let held = writing;
      for (const m of metrics.values()) if (m.type === 'composite') held++;
      if (held + added > limit) throw overLimit('an account', limit, 'composite metrics', 'composite_metrics');
      this.compositesWriting.set(accountId, writing + added);
    }
    try {
      await this.commit.write(list.map((m) => this.records.put(accountId, metricKey(m.name), m)));
    } finally {
      if (added > 0) {
        const left = this.compositesWriting.get(accountId)! - added;
        if (left > 0) this.compositesWriting.set(accountId, left);
        else this.compositesWriting.delete(accountId);
      }
    }
    for (const m of list) metrics.set(metricKey(m.name), m);
  }
}

/**
 * Throws the 400 that creating this metric with these properties would, without creating
 * it, its problems under `element.` (the request element carrying the properties): a
 * measurement request checks every metric it would create before it creates any, so a
 * request refused on its second metric has not created the first.
 */
export function checkNewMetric(name: string, input: MetricInput, element: string): void {
  try {
    newMetric(name, input, null);
  } catch (err) {
    if (!(err instanceof ApiError) || !err.body.params) throw err;
    const params = fieldErrors();
    for (const [field, messages] of Object.entries(err.body.params)) params[`${element}.${field}`] = messages as string[];
    throw new ApiError(400, { params });
  }
}

/**
 * A batch's `names`: metric names, or one `*` pattern of name characters. A pattern no
 * name can match (`a b*`) would answer 204 having touched nothing, so it is a 400 under
 * `names` as a bad name in the list is (under its index).
 */
function checkNames(names: string[] | string): void {
  if (typeof names === 'string') {
    if (!(names.includes('*') ? METRIC_PATTERN : METRIC_NAME).test(names)) throw paramErrors({ names: ['must be a metric name, or one pattern of 1-255 letters, digits, . : - _ and *'] });
    return;
  }
  const params = fieldErrors();
  names.forEach((n, i) => {
    if (METRIC_NAME.test(n)) return;
    params[`names[${i}]`] = [n.includes('*') ? 'must be a metric name (a * pattern is given as names alone, not in a list)' : METRIC_NAME_MESSAGE];
  });
  if (Object.keys(params).length) throw paramErrors(params);
}

function checkName(raw: string): string {
  if (!METRIC_NAME.test(raw)) throw new ApiError(400, { params: { name: [METRIC_NAME_MESSAGE] } });
  return canonicalMetricName(raw);
}

function cleanAttributes(a: MetricAttributes | undefined): MetricAttributes {
  const { created_by_ua: _serverOwned, ...rest } = a ?? {};
  return rest;
}

function withoutGaugeAttributes(input: MetricInput): MetricInput {
  if (!input.attributes) return input;
  const { summarize_function: _s, aggregate: _a, ...rest } = input.attributes;
  return { ...input, attributes: rest };
}

function newMetric(name: string, input: MetricInput, userAgent: string | null): MetricRecord {
  checkInput(input);
  const t = now();
  const metric: MetricRecord = {
    name,
    type: input.type ?? 'gauge',
    display_name: input.display_name ?? null,
    description: input.description ?? null,
    period: input.period ?? null,
    attributes: { ...cleanAttributes(input.attributes), ...(userAgent ? { created_by_ua: userAgent.slice(0, 255) } : {}) },
    composite: input.composite ?? null,
    source_lag: input.source_lag ?? null,
    created_at: t,
    updated_at: t,
  };
  checkRules(metric);
  return metric;
}

function applyUpdate(existing: MetricRecord, input: MetricInput): MetricRecord {
  if (input.type !== undefined && input.type !== existing.type) {
    throw new ApiError(400, { params: { type: [`cannot change a ${existing.type} metric into a ${input.type} metric`] } });
  }
  checkInput(input);
  const metric: MetricRecord = {
    ...existing,
    display_name: input.display_name !== undefined ? input.display_name : existing.display_name,
    description: input.description !== undefined ? input.description : existing.description,
    period: input.period !== undefined ? input.period : existing.period,
    composite: input.composite !== undefined ? input.composite : existing.composite,
    source_lag: input.source_lag !== undefined ? input.source_lag : existing.source_lag ?? null,
    attributes: { ...existing.attributes, ...cleanAttributes(input.attributes) },
    updated_at: now(),
  };
  checkRules(metric);
  return metric;
}

/** Rules on what a request sets (not on the stored record, which an update may leave as it was). */
function checkInput(input: MetricInput): void {
  const problem = displayNameProblem(input.display_name);
  if (problem) throw new ApiError(400, { params: { display_name: [problem] } });
}

/** Rules that involve more than one field. */
function checkRules(m: MetricRecord): void {
  const params = fieldErrors();
  if (m.type === 'composite' && !m.composite?.trim()) params.composite = ['is required for a composite metric'];
  if (m.type !== 'composite' && m.composite) params.composite = ['is only allowed when type is composite'];
  if (m.attributes.aggregate && m.period !== null && (m.period < 10 || m.period > 600)) {
    params.period = ['must be from 10 to 600 seconds when service-side aggregation is on'];
  }
  const transform = m.attributes.display_transform;
  if (typeof transform === 'string' && transform.trim()) {
    const problem = transformProblem(transform);
    if (problem) params.attributes = [`display_transform ${problem}`];
  }
  if (m.type === 'counter' && (m.attributes.aggregate || m.attributes.summarize_function)) {
    params.attributes = ['summarize_function and aggregate apply to gauges only'];
  }
  if (Object.keys(params).length) throw new ApiError(400, { params });
}
