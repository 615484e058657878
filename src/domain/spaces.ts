// Spaces and the charts they hold: names unique per account, charts with their streams
// and thresholds, and every rule that involves more than one field. Key layouts:
//   spaces  <account>!<space id>
//   charts  <account>!<space id>!<chart id>   (a space's charts are one range read)
import type { Store } from '../store/db.js';
import type { CommitQueue, WriteOp } from '../store/commit.js';
import { Collection, idKey } from '../store/collection.js';
import { Sequence } from '../store/sequence.js';
import { alreadyExists, notFound, paramErrors, type ParamErrors, fieldErrors } from '../errors.js';
import { AccountLock } from './account-lock.js';
import { transformProblem } from './transform.js';
import { displayTextProblem } from './text.js';
import { canonicalMetricName } from './names.js';
import type { CompositeCheck } from './metrics.js';
import {
  CHART_FIELDS,
  type ChartInput, type ChartType, type Scalar, type SpaceInput, type StreamInput, type Threshold,
} from './chart-input.js';

export interface SpaceRecord {
  id: number;
  name: string;
  created_at: number;
  updated_at: number;
}

/** A stream as stored: its id and the fields the client set (never `type`). */
export type StreamRecord = { id: number } & Record<string, unknown>;

export interface ChartRecord {
  id: number;
  space_id: number;
  name: string;
  type: ChartType;
  streams: StreamRecord[];
  min: number | null;
  max: number | null;
  label: string | null;
  related_space: number | null;
  thresholds: Threshold[] | null;
  /** fields the spec does not name, echoed as sent */
  extra: Record<string, Scalar>;
  created_at: number;
  updated_at: number;
}

/** How the chart rules learn a metric's type (a persisted composite allows downsample_function). */
export type MetricTypeOf = (accountId: number, metric: string) => Promise<string | undefined>;

const spaceKey = (spaceId: number) => idKey(spaceId);
const chartKey = (spaceId: number, chartId: number) => `${idKey(spaceId)}!${idKey(chartId)}`;
const chartsOf = (spaceId: number) => `${idKey(spaceId)}!`;

const now = () => Math.floor(Date.now() / 1000);

const KNOWN_CHART_FIELDS: ReadonlySet<string> = new Set(CHART_FIELDS);

/** Space names are unique per account without regard to case or surrounding blanks. */
const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export class Spaces {
  private readonly spaces: Collection<SpaceRecord>;
  private readonly charts: Collection<ChartRecord>;
  private readonly spaceIds: Sequence;
  private readonly chartIds: Sequence;
  private readonly streamIds: Sequence;
  private readonly lock = new AccountLock();

  constructor(
    store: Store,
    private readonly commit: CommitQueue,
    private readonly metricType: MetricTypeOf,
    /** parses a composite stream on save (the query layer's parser, handed in) */
    private readonly checkComposite: CompositeCheck | null = null,
  ) {
    this.spaces = new Collection<SpaceRecord>(store, 'spaces');
    this.charts = new Collection<ChartRecord>(store, 'charts');
    this.spaceIds = new Sequence(store, 'spaces');
    this.chartIds = new Sequence(store, 'charts');
    this.streamIds = new Sequence(store, 'chart_streams');
  }

  list(accountId: number): Promise<SpaceRecord[]> {
    return this.spaces.list(accountId);
  }

  async get(accountId: number, spaceId: number): Promise<SpaceRecord> {
    const space = await this.spaces.get(accountId, spaceKey(spaceId));
    if (!space) throw notFound('Space');
    return space;
  }

  async chartIdsOf(accountId: number, spaceId: number): Promise<number[]> {
    return (await this.charts.list(accountId, chartsOf(spaceId))).map((c) => c.id);
  }

  create(accountId: number, input: SpaceInput): Promise<SpaceRecord> {
    return this.lock.run(accountId, async () => {
      const name = spaceName(input.name);
      await this.checkNameFree(accountId, name);
      const { id, op } = await this.spaceIds.next();
      const t = now();
      const space: SpaceRecord = { id, name, created_at: t, updated_at: t };
      await this.commit.write([op, this.spaces.put(accountId, spaceKey(id), space)]);
      return space;
    });
  }

  rename(accountId: number, spaceId: number, input: SpaceInput): Promise<void> {
    return this.lock.run(accountId, async () => {
      const space = await this.get(accountId, spaceId);
      const name = spaceName(input.name);
      await this.checkNameFree(accountId, name, spaceId);
      await this.commit.write([this.spaces.put(accountId, spaceKey(spaceId), { ...space, name, updated_at: now() })]);
    });
  }

  /** Deletes the space with its charts; charts elsewhere that pointed at it lose the reference. */
  delete(accountId: number, spaceId: number): Promise<void> {
    return this.lock.run(accountId, async () => {
      await this.get(accountId, spaceId);
      const ops: WriteOp[] = [this.spaces.del(accountId, spaceKey(spaceId))];
      for (const chart of await this.charts.list(accountId)) {
        if (chart.space_id === spaceId) ops.push(this.charts.del(accountId, chartKey(spaceId, chart.id)));
        else if (chart.related_space === spaceId) {
          ops.push(this.charts.put(accountId, chartKey(chart.space_id, chart.id), { ...chart, related_space: null }));
        }
      }
      await this.commit.write(ops);
    });
  }

  async listCharts(accountId: number, spaceId: number): Promise<ChartRecord[]> {
    await this.get(accountId, spaceId);
    return this.charts.list(accountId, chartsOf(spaceId));
  }

  async getChart(accountId: number, spaceId: number, chartId: number): Promise<ChartRecord> {
    await this.get(accountId, spaceId);
    const chart = await this.charts.get(accountId, chartKey(spaceId, chartId));
    if (!chart) throw notFound('Chart');
    return chart;
  }

  createChart(accountId: number, spaceId: number, input: ChartInput): Promise<ChartRecord> {
    return this.lock.run(accountId, async () => {
      await this.get(accountId, spaceId);
      const ops: WriteOp[] = [];
      const { id, op } = await this.chartIds.next();
      ops.push(op);
      const t = now();
      const blank: ChartRecord = {
        id, space_id: spaceId, name: '', type: 'line', streams: [], min: null, max: null, label: null,
        related_space: null, thresholds: null, extra: {}, created_at: t, updated_at: t,
      };
      const chart = await this.applyChart(accountId, blank, input, ops);
      ops.push(this.charts.put(accountId, chartKey(spaceId, id), chart));
      await this.commit.write(ops);
      return chart;
    });
  }

  updateChart(accountId: number, spaceId: number, chartId: number, input: ChartInput): Promise<ChartRecord> {
    return this.lock.run(accountId, async () => {
      const existing = await this.getChart(accountId, spaceId, chartId);
      const ops: WriteOp[] = [];
      const chart = { ...(await this.applyChart(accountId, existing, input, ops)), updated_at: now() };
      ops.push(this.charts.put(accountId, chartKey(spaceId, chartId), chart));
      await this.commit.write(ops);
      return chart;
    });
  }

  deleteChart(accountId: number, spaceId: number, chartId: number): Promise<void> {
    return this.lock.run(accountId, async () => {
      await this.getChart(accountId, spaceId, chartId);
      await this.commit.write([this.charts.del(accountId, chartKey(spaceId, chartId))]);
    });
  }

  private async checkNameFree(accountId: number, name: string, self?: number): Promise<void> {
    const taken = (await this.spaces.list(accountId)).some((s) => s.id !== self && sameName(s.name, name));
    if (taken) throw alreadyExists('name', 'is already the name of another space');
  }

  /**
   * The chart after `input`: fields given replace, fields left out stay; `streams`
   * replaces every stream. New stream ids are reserved through `ops`.
   */
  private async applyChart(accountId: number, chart: ChartRecord, input: ChartInput, ops: WriteOp[]): Promise<ChartRecord> {
    const next: ChartRecord = { ...chart, extra: { ...chart.extra, ...extrasOf(input, KNOWN_CHART_FIELDS) } };
    if (input.name !== undefined) next.name = input.name.trim();
    if (input.type !== undefined) next.type = input.type;
    if (input.min !== undefined) next.min = input.min;
    if (input.max !== undefined) next.max = input.max;
    if (input.label !== undefined) next.label = input.label;
    if (input.related_space !== undefined) next.related_space = input.related_space;
    if (input.thresholds !== undefined) next.thresholds = input.thresholds;

    const errors: ParamErrors = fieldErrors();
    const nameProblem = input.name === undefined ? null : displayTextProblem(input.name);
    if (nameProblem) add(errors, 'name', nameProblem);
    if (input.streams !== undefined) {
      next.streams = [];
      const unclaimed = new Map(chart.streams.map((s) => [s.id, s]));
      for (const [i, s] of input.streams.entries()) {
        await this.checkStream(accountId, s, `streams[${i}]`, errors);
        next.streams.push(await this.storedStream(s, unclaimed, ops));
      }
    }
    if (next.type === 'bignumber' && !next.thresholds?.length) add(errors, 'thresholds', 'are required when type is bignumber');
    if (next.min !== null && next.max !== null && next.min > next.max) add(errors, 'min', 'must not be greater than max');
    if (input.related_space != null) await this.checkRelatedSpace(accountId, chart.space_id, input.related_space, errors);
    if (Object.keys(errors).length) throw paramErrors(errors);
    return next;
  }

  /**
   * A stream of this chart keeps its id when the body sends it back (once: a repeated id
   * gets a new one); every other stream gets a new id.
   */
  private async storedStream(input: StreamInput, unclaimed: Map<number, StreamRecord>, ops: WriteOp[]): Promise<StreamRecord> {
    const { id: given, type: _computed, ...fields } = input;
    if (fields.metric !== undefined) fields.metric = canonicalMetricName(fields.metric);
    // an emptied form field means "no transform"
    if (typeof fields.transform_function === 'string' && !fields.transform_function.trim()) fields.transform_function = null;
    // tag names and values are stored lower-cased (spec, tag rules); match them the same way
    if (fields.tags) fields.tags = fields.tags.map((t) => ({ ...t, name: t.name.toLowerCase(), ...(t.values ? { values: t.values.map((v) => v.toLowerCase()) } : {}) }));
    const keep = unclaimed.get(Number(given));
    if (keep) {
      unclaimed.delete(keep.id);
      return { id: keep.id, ...fields };
    }
    const { id, op } = await this.streamIds.next();
    ops.push(op);
    return { id, ...fields };
  }

  private async checkStream(accountId: number, s: StreamInput, at: string, errors: ParamErrors): Promise<void> {
    if (s.composite !== undefined) {
      for (const field of ['metric', 'tags', 'group_function'] as const) {
        if (s[field] !== undefined) add(errors, `${at}.${field}`, 'cannot be combined with composite');
      }
      const problem = typeof s.composite === 'string' && this.checkComposite ? await this.checkComposite(accountId, s.composite) : null;
      if (problem) add(errors, `${at}.composite`, problem);
    } else if (s.metric === undefined) {
      add(errors, `${at}.metric`, 'is required unless the stream is a composite');
    } else if (s.downsample_function !== undefined && (await this.metricType(accountId, s.metric)) !== 'composite') {
      add(errors, `${at}.downsample_function`, 'applies only to composite streams and composite metrics');
    }
    if (typeof s.transform_function === 'string' && s.transform_function.trim()) {
      const problem = transformProblem(s.transform_function);
      if (problem) add(errors, `${at}.transform_function`, problem);
    }
    if (s.min != null && s.max != null && s.min > s.max) add(errors, `${at}.min`, 'must not be greater than max');
  }

  /** Only the caller's own spaces qualify; another account's space reads exactly as a missing one. */
  private async checkRelatedSpace(accountId: number, ownSpace: number, related: number, errors: ParamErrors): Promise<void> {
    if (related === ownSpace) add(errors, 'related_space', 'must be another space than the chart\'s own');
    else if (!(await this.spaces.get(accountId, spaceKey(related)))) add(errors, 'related_space', 'must be the id of one of your spaces');
  }

  /** What each stream plots, recomputed on every read: its metric's type (a gauge until the metric exists), or composite. */
  async streamTypes(accountId: number, chart: ChartRecord): Promise<string[]> {
    const types: string[] = [];
    for (const s of chart.streams) {
      types.push(typeof s.metric === 'string' ? ((await this.metricType(accountId, s.metric)) ?? 'gauge') : 'composite');
    }
    return types;
  }
}

function spaceName(raw: string): string {
  const problem = displayTextProblem(raw);
  if (problem) throw paramErrors({ name: [problem] });
  return raw.trim();
}

function add(errors: ParamErrors, field: string, message: string): void {
  const list = (errors[field] ??= []) as string[];
  list.push(message);
}

function extrasOf(input: Record<string, unknown>, known: ReadonlySet<string>): Record<string, Scalar> {
  const extra: Record<string, Scalar> = {};
  for (const [k, v] of Object.entries(input)) if (!known.has(k)) extra[k] = v as Scalar;
  return extra;
}
