// Alerts (spec "Alert", "Condition object", "Alerts"; Librato notes §5): an account's
// conditions on metric streams and the notification services they notify. This file keeps
// the definitions and their rules; the alert engine (src/alerts/) evaluates them and keeps
// their state. Names are unique per account without regard to case.
import type { Store } from '../store/db.js';
import type { CommitQueue, WriteOp } from '../store/commit.js';
import { Collection, idKey } from '../store/collection.js';
import { Sequence } from '../store/sequence.js';
import { ApiError, alreadyExists, notFound, paramErrors, fieldErrors, type ParamErrors } from '../errors.js';
import { tagNameProblem, tagPatternProblem } from '../match/tag-pattern.js';
import { AccountLock } from './account-lock.js';
import { atLimit, overLimit, type AccountLimitsOf } from './account-limits.js';
import { METRIC_NAME, METRIC_NAME_MESSAGE } from './names.js';
import type { DeleteEffect } from './services.js';

export const CONDITION_TYPES = ['above', 'below', 'absent'] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];
export const ALERT_SUMMARY_FUNCTIONS = ['min', 'max', 'average', 'sum', 'count', 'derivative'] as const;
export type AlertSummaryFunction = (typeof ALERT_SUMMARY_FUNCTIONS)[number];

const ALERT_NAME = /^[A-Za-z0-9.:-]{1,255}$/;
const DEFAULT_REARM = 600;

/**
 * What an alert's free-form `attributes` may hold, as JSON: runbook links and a few
 * labels. Unbounded, 20 alerts of 4.5 MB each made a 90 MB alert list, and every
 * notification carries them.
 */
export const MAX_ATTRIBUTES_BYTES = 16 * 1024;
/**
 * Tag filters of one condition, as a chart stream has them (50 tags, 100 values a tag):
 * the engine compiles them on every round, and every alert listing carries them.
 */
export const MAX_CONDITION_TAGS = 50;
export const MAX_TAG_VALUES = 100;

export interface TagFilter {
  name: string;
  /** patterns; `*` is a wildcard */
  values: string[];
  /** true: the matching streams are evaluated as one, aggregated */
  grouped: boolean;
}

export interface ConditionRecord {
  id: number;
  type: ConditionType;
  metric_name: string;
  source: null;
  tags: TagFilter[];
  detect_reset: boolean;
  threshold: number | null;
  summary_function: AlertSummaryFunction;
  duration: number | null;
}

export interface AlertRecord {
  id: number;
  name: string;
  description: string | null;
  version: 1 | 2;
  conditions: ConditionRecord[];
  services: number[];
  attributes: Record<string, unknown>;
  active: boolean;
  rearm_seconds: number;
  rearm_per_signal: boolean;
  md: boolean;
  created_at: number;
  updated_at: number;
  /**
   * When the engine's tracking began: the create, or the last change to what is judged
   * (the conditions, `active`). Attaching a service or editing the description changes
   * `updated_at` but must not start a building `duration` window over. Records written
   * before it existed track from `updated_at`. Not shown by the API.
   */
  tracking_from?: number;
}

/** The time tracking of `alert` began (see AlertRecord.tracking_from). */
export function trackingFrom(alert: AlertRecord): number {
  return alert.tracking_from ?? alert.updated_at;
}

export interface ConditionInput {
  id?: unknown;
  type?: unknown;
  metric_name?: unknown;
  source?: unknown;
  tags?: unknown;
  detect_reset?: unknown;
  threshold?: unknown;
  summary_function?: unknown;
  duration?: unknown;
}

export interface AlertInput {
  name?: string;
  description?: string | null;
  version?: number;
  conditions?: ConditionInput[];
  services?: unknown[];
  attributes?: Record<string, unknown>;
  active?: boolean;
  rearm_seconds?: number | null;
  rearm_per_signal?: boolean;
  md?: boolean;
}

/** Whether a service id is one of the account's services. */
export type ServiceExists = (accountId: number, serviceId: number) => Promise<boolean>;
/** Told of every change to an alert's definition (the engine restarts its tracking). */
export type AlertListener = (accountId: number, alertId: number, alert: AlertRecord | null) => void;

const now = () => Math.floor(Date.now() / 1000);
const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export class Alerts {
  private readonly records: Collection<AlertRecord>;
  private readonly ids: Sequence;
  private readonly conditionIds: Sequence;
  private readonly lock = new AccountLock();
  readonly listeners: AlertListener[] = [];

  /**
   * Whether a metric is a persisted composite (set by the runtime): the engine evaluates
   * stored series, and a composite has none, so an alert on one would never fire.
   */
  compositeMetric: (accountId: number, name: string) => Promise<boolean> = async () => false;

  constructor(
    store: Store,
    private readonly commit: CommitQueue,
    private readonly serviceExists: ServiceExists,
    private readonly limits: AccountLimitsOf,
  ) {
    this.records = new Collection<AlertRecord>(store, 'alerts');
    this.ids = new Sequence(store, 'alerts');
    this.conditionIds = new Sequence(store, 'alert_conditions');
  }

  list(accountId: number): Promise<AlertRecord[]> {
    return this.records.list(accountId);
  }

  /** Every alert of every account (the engine's start). */
  async all(): Promise<{ account: number; alert: AlertRecord }[]> {
    const out: { account: number; alert: AlertRecord }[] = [];
    for await (const [key, alert] of this.records.level.iterator()) out.push({ account: Number(key.slice(0, key.indexOf('!'))), alert });
    return out;
  }

  async get(accountId: number, id: number): Promise<AlertRecord> {
    const a = await this.records.get(accountId, idKey(id));
    if (!a) throw notFound('Alert');
    return a;
  }

  create(accountId: number, input: AlertInput): Promise<AlertRecord> {
    return this.lock.run(accountId, async () => {
      const errors = fieldErrors();
      if (input.name === undefined) errors.name = ['is required'];
      if (input.conditions === undefined || input.conditions.length === 0) errors.conditions = ['at least one condition is required'];
      if (input.services === undefined || input.services.length === 0) errors.services = ['at least one service is required'];
      const limit = this.limits().alerts;
      if (await atLimit(this.records, accountId, limit)) throw overLimit('an account', limit, 'alerts', 'alerts');
      const fields = await this.checked(accountId, input, null, errors);
      const { id, op } = await this.ids.next();
      const t = now();
      const record: AlertRecord = { id, ...fields, created_at: t, updated_at: t, tracking_from: t };
      await this.commit.write([...this.conditionIdMark(), op, this.records.put(accountId, idKey(id), record)]);
      this.changed(accountId, id, record);
      return record;
    });
  }

  /** PUT: the same fields as create; `conditions` left out removes them (the spec). */
  update(accountId: number, id: number, input: AlertInput): Promise<AlertRecord> {
    return this.lock.run(accountId, async () => {
      const existing = await this.get(accountId, id);
      const errors = fieldErrors();
      // left out, the services stay; given, there must be one (as on create)
      if (input.services !== undefined && input.services.length === 0) errors.services = ['at least one service is required'];
      const fields = await this.checked(accountId, { ...input, conditions: input.conditions ?? [] }, existing, errors);
      const t = now();
      const judgedAlike = JSON.stringify([existing.conditions, existing.active]) === JSON.stringify([fields.conditions, fields.active]);
      const record: AlertRecord = { ...existing, ...fields, updated_at: t, tracking_from: judgedAlike ? trackingFrom(existing) : t };
      await this.commit.write([...this.conditionIdMark(), this.records.put(accountId, idKey(id), record)]);
      this.changed(accountId, id, record);
      return record;
    });
  }

  delete(accountId: number, id: number): Promise<void> {
    return this.lock.run(accountId, async () => {
      await this.get(accountId, id);
      await this.commit.write([this.records.del(accountId, idKey(id))]);
      this.changed(accountId, id, null);
    });
  }

  addService(accountId: number, id: number, serviceId: unknown): Promise<number> {
    return this.lock.run(accountId, async () => {
      const a = await this.get(accountId, id);
      const sid = await this.serviceIdOf(accountId, serviceId);
      if (sid === null) throw paramErrors({ service: ['must name a service of this account by id'] });
      if (!a.services.includes(sid)) {
        const record = { ...a, services: [...a.services, sid], updated_at: now(), tracking_from: trackingFrom(a) };
        await this.commit.write([this.records.put(accountId, idKey(id), record)]);
        this.changed(accountId, id, record);
      }
      return sid;
    });
  }

  removeService(accountId: number, id: number, serviceId: number): Promise<void> {
    return this.lock.run(accountId, async () => {
      const a = await this.get(accountId, id);
      if (!a.services.includes(serviceId)) throw notFound('Service');
      if (a.services.length === 1) throw new ApiError(422, { params: { service: ['is the alert\'s last service: an alert keeps at least one, so attach another before detaching this one'] } });
      const record = { ...a, services: a.services.filter((s) => s !== serviceId), updated_at: now(), tracking_from: trackingFrom(a) };
      await this.commit.write([this.records.put(accountId, idKey(id), record)]);
      this.changed(accountId, id, record);
    });
  }

  /**
   * A service is being deleted: operations that drop it from every alert of the account,
   * for the deletion's batch, and, once that is written, the news to the listeners (the
   * engine would otherwise go on notifying the deleted service and not the others).
   */
  async detachService(accountId: number, serviceId: number): Promise<DeleteEffect> {
    const ops: WriteOp[] = [];
    const records: AlertRecord[] = [];
    for (const a of await this.list(accountId)) {
      if (!a.services.includes(serviceId)) continue;
      const record = { ...a, services: a.services.filter((s) => s !== serviceId), updated_at: now(), tracking_from: trackingFrom(a) };
      records.push(record);
      ops.push(this.records.put(accountId, idKey(a.id), record));
    }
    return { ops, written: () => { for (const r of records) this.changed(accountId, r.id, r); } };
  }

  private changed(accountId: number, id: number, alert: AlertRecord | null): void {
    for (const listen of this.listeners) listen(accountId, id, alert);
  }

  /** Every rule of the spec, all problems at once (400), then the name (422). */
  private async checked(accountId: number, input: AlertInput, existing: AlertRecord | null, errors: ParamErrors) {
    const name = input.name ?? existing?.name ?? '';
    if (input.name !== undefined && !ALERT_NAME.test(input.name)) errors.name = ['must be 1-255 characters of letters, digits, . : -'];
    const version = input.version ?? existing?.version ?? 2;
    if (version !== 1 && version !== 2) errors.version = ['must be 1 or 2'];
    const rearm = input.rearm_seconds === undefined ? existing?.rearm_seconds ?? DEFAULT_REARM : input.rearm_seconds ?? DEFAULT_REARM;
    if (!Number.isInteger(rearm) || rearm < 60 || rearm % 60 !== 0) errors.rearm_seconds = ['must be a positive multiple of 60'];
    const attributes = input.attributes ?? existing?.attributes ?? {};
    const runbook = attributes.runbook_url;
    if (runbook !== undefined && runbook !== null && (typeof runbook !== 'string' || !/^https?:\/\/\S+$/i.test(runbook))) {
      errors.attributes = ['runbook_url must be an http or https URL'];
    }
    if (JSON.stringify(attributes).length > MAX_ATTRIBUTES_BYTES) errors.attributes = [`must be at most ${MAX_ATTRIBUTES_BYTES / 1024} KiB as JSON`];
    const kept = new Map((existing?.conditions ?? []).map((c) => [c.id, c]));
    // A condition sent again without its id (an edit of the description that echoes the
    // definition) keeps the id of an equal one: a new id dropped its violations, and a
    // firing alert sent a "normal" clear while its metric still violated.
    const content = (c: Omit<ConditionRecord, 'id'>) => JSON.stringify({ ...c, id: undefined });
    const unclaimed = new Map<string, number[]>();
    for (const c of existing?.conditions ?? []) {
      if ((input.conditions ?? []).some((raw) => raw.id === c.id)) continue;
      const k = content(c);
      unclaimed.set(k, [...(unclaimed.get(k) ?? []), c.id]);
    }
    const sameAs = (c: Omit<ConditionRecord, 'id'>): number | null => unclaimed.get(content(c))?.shift() ?? null;
    const conditions: ConditionRecord[] = [];
    for (const [i, raw] of (input.conditions ?? []).entries()) {
      const problems: string[] = [];
      const c = checkCondition(raw, problems);
      if (c && (await this.compositeMetric(accountId, c.metric_name))) {
        problems.push(`metric_name ${c.metric_name} is a composite metric, which alerts cannot evaluate: alert on the metrics it reads`);
      }
      if (problems.length) {
        errors[`conditions[${i}]`] = problems;
        continue;
      }
      conditions.push({ ...c!, id: (typeof raw.id === 'number' && kept.has(raw.id) ? raw.id : sameAs(c!)) ?? (await this.conditionIds.next()).id });
    }
    let services = existing?.services ?? [];
    if (input.services !== undefined) {
      services = [];
      for (const raw of input.services) {
        const id = await this.serviceIdOf(accountId, raw);
        if (id === null) errors.services = ['must name services of this account by id'];
        else services.push(id);
      }
    }
    if (Object.keys(errors).length) throw paramErrors(errors);
    for (const other of await this.list(accountId)) {
      if (other.id !== existing?.id && sameName(other.name, name)) throw alreadyExists('name');
    }
    return {
      name, version: version as 1 | 2, services: [...new Set(services)], conditions, attributes,
      description: input.description === undefined ? existing?.description ?? null : input.description,
      active: input.active ?? existing?.active ?? true,
      rearm_seconds: rearm,
      rearm_per_signal: input.rearm_per_signal ?? existing?.rearm_per_signal ?? false,
      md: input.md ?? existing?.md ?? (version === 2),
    };
  }

  /**
   * What persists the condition ids reserved so far, taken with no await before the write.
   * A condition's id is reserved in checked(), before awaits (services, the account's
   * alerts) during which another account's alert can take later ids and be written: the
   * op of next() would then set the stored counter back, and after a restart those ids
   * were handed out again (as chart ids were, 25cdfbd).
   */
  private conditionIdMark(): WriteOp[] {
    const op = this.conditionIds.highWaterOp();
    return op ? [op] : [];
  }

  /** The id of one of the account's services (a number, or digits from a form), or null. */
  private async serviceIdOf(accountId: number, raw: unknown): Promise<number | null> {
    const id = typeof raw === 'string' && /^\d{1,12}$/.test(raw) ? Number(raw) : raw;
    return typeof id === 'number' && Number.isInteger(id) && (await this.serviceExists(accountId, id)) ? id : null;
  }
}

/** One condition checked against the spec's rules; problems are pushed, not thrown. */
export function checkCondition(raw: ConditionInput, problems: string[]): Omit<ConditionRecord, 'id'> | null {
  const type = raw.type as ConditionType;
  if (!CONDITION_TYPES.includes(type)) problems.push(`type must be one of ${CONDITION_TYPES.join(', ')}`);
  const metric = raw.metric_name;
  if (typeof metric !== 'string' || !METRIC_NAME.test(metric)) problems.push(`metric_name ${METRIC_NAME_MESSAGE}`);
  // a string source became a filter on the source tag in the route (Librato's pattern); anything else is no pattern
  if (raw.source !== undefined && raw.source !== null) problems.push('source must be a source name or a pattern with * (a string), or null');
  const tags: TagFilter[] = [];
  if (raw.tags !== undefined && raw.tags !== null) {
    if (!Array.isArray(raw.tags)) problems.push('tags must be an array of {name, values, grouped}');
    else if (raw.tags.length > MAX_CONDITION_TAGS) problems.push(`tags: at most ${MAX_CONDITION_TAGS} tags a condition`);
    else {
      for (const t of raw.tags as unknown[]) {
        const tag = t as { name?: unknown; values?: unknown; grouped?: unknown };
        const values = Array.isArray(tag?.values) ? tag.values : null;
        if (values && values.length > MAX_TAG_VALUES) {
          problems.push(`tags: at most ${MAX_TAG_VALUES} values a tag`);
          break;
        }
        if (typeof tag?.name !== 'string' || tag.name.length === 0 || !values || values.length === 0
          || values.some((v) => typeof v !== 'string' || v.length === 0 || v.length > 255)
          || (tag.grouped !== undefined && typeof tag.grouped !== 'boolean')) {
          problems.push('tags must be {name, values: [patterns], grouped: boolean}');
          break;
        }
        tags.push({ name: tag.name.toLowerCase(), values: values as string[], grouped: tag.grouped === true });
      }
      // the engine compiles these on every round: what it could not compile is refused now
      for (const t of tags) {
        const problem = tagNameProblem(t.name) ?? t.values.map((v) => tagPatternProblem(t.name, v)).find((p) => p !== null);
        if (problem) { problems.push(`tags: ${problem}`); break; }
      }
    }
  }
  const detectReset = raw.detect_reset ?? false;
  if (typeof detectReset !== 'boolean') problems.push('detect_reset must be true or false');
  const threshold = raw.threshold ?? null;
  if (threshold !== null && (typeof threshold !== 'number' || !Number.isFinite(threshold))) problems.push('threshold must be a number');
  if (type !== 'absent' && threshold === null) problems.push(`threshold is required for ${type}`);
  const summary = raw.summary_function ?? 'average';
  if (!ALERT_SUMMARY_FUNCTIONS.includes(summary as AlertSummaryFunction)) problems.push(`summary_function must be one of ${ALERT_SUMMARY_FUNCTIONS.join(', ')}`);
  const duration = raw.duration ?? null;
  if (duration !== null && (!Number.isInteger(duration) || (duration as number) < 60 || (duration as number) > 3600)) problems.push('duration must be an integer from 60 to 3600 seconds');
  if (type === 'absent' && duration === null) problems.push('duration is required for absent');
  if (problems.length) return null;
  return {
    type, metric_name: metric as string, source: null, tags, detect_reset: detectReset as boolean,
    threshold: type === 'absent' ? null : (threshold as number), summary_function: summary as AlertSummaryFunction, duration: duration as number | null,
  };
}
