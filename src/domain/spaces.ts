// Spaces and the charts they hold: names unique per account, charts with their streams
// and thresholds, and every rule that involves more than one field. Key layouts:
//   spaces  <account>!<space id>
//   charts  <account>!<space id>!<chart id>   (a space's charts are one range read)
import type { Store } from '../store/db.js';
import type { CommitQueue, WriteOp } from '../store/commit.js';
import { Collection, idKey } from '../store/collection.js';
import { Sequence } from '../store/sequence.js';
import { BatchedWrites } from '../store/batched-writes.js';
import { alreadyExists, notFound, paramErrors, requestError, type ParamErrors, fieldErrors } from '../errors.js';
import { AccountLock } from './account-lock.js';
import { atLimit, overLimit, type AccountLimitsOf } from './account-limits.js';
import { transformProblem } from './transform.js';
import { controlCharacterProblem, displayTextProblem } from './text.js';
import { canonicalMetricName } from './names.js';
import type { CompositeCheck } from './metrics.js';
import {
  CHART_FIELDS,
  type ChartInput, type ChartType, type Scalar, type SpaceInput, type StreamInput, type Threshold,
} from './chart-input.js';

export interface SpaceRecord {
  id: number;
  name: string;
  /** the space-level tag filter switch, stored and answered (absent in older records: false) */
  tags?: boolean;
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

/**
 * How the chart rules learn a metric's type (a persisted composite allows
 * downsample_function) and the name it was created with (streams show that spelling).
 */
export type MetricOf = (accountId: number, metric: string) => Promise<{ type: string; name: string } | undefined>;

/** What a stream plots, computed on every read. */
export interface StreamInfo {
  type: string;
  /** the metric's name as created, when the metric exists */
  metric?: string;
}

const spaceKey = (spaceId: number) => idKey(spaceId);
const chartKey = (spaceId: number, chartId: number) => `${idKey(spaceId)}!${idKey(chartId)}`;
const chartsOf = (spaceId: number) => `${idKey(spaceId)}!`;

const now = () => Math.floor(Date.now() / 1000);

const KNOWN_CHART_FIELDS: ReadonlySet<string> = new Set(CHART_FIELDS);
/**
 * Fields beyond the API's that one chart keeps: each request is bounded by its schema,
 * but updates merge, and without a bound a chart would grow with every PUT.
 */
export const MAX_CHART_EXTRA_FIELDS = 40;

/**
 * What the charts of one space may hold together, as stored JSON (the answer of
 * GET /v1/spaces/:id/charts is about as large). Each chart is bounded by its schema, but
 * a space of charts at that bound was a 151 MB answer that took the service past 1 GB;
 * a real dashboard of a hundred charts is well under a megabyte.
 */
export const MAX_SPACE_CHART_BYTES = 8 * 1024 * 1024;

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
    private readonly metricOf: MetricOf,
    /** parses a composite stream on save (the query layer's parser, handed in) */
    private readonly checkComposite: CompositeCheck | null,
    private readonly limits: AccountLimitsOf,
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

  /** From the keys alone: listing a space does not read its charts. */
  async chartIdsOf(accountId: number, spaceId: number): Promise<number[]> {
    const ids: number[] = [];
    for await (const key of this.charts.keys(accountId, chartsOf(spaceId))) ids.push(Number(key.slice(chartsOf(spaceId).length)));
    return ids;
  }

  create(accountId: number, input: SpaceInput): Promise<SpaceRecord> {
    return this.lock.run(accountId, async () => {
      const name = spaceName(input.name);
      const limit = this.limits().spaces;
      if (await atLimit(this.spaces, accountId, limit)) throw overLimit('an account', limit, 'spaces', 'spaces');
      await this.checkNameFree(accountId, name);
      const { id, op } = await this.spaceIds.next();
      const t = now();
      const space: SpaceRecord = { id, name, tags: input.tags ?? false, created_at: t, updated_at: t };
      await this.commit.write([op, this.spaces.put(accountId, spaceKey(id), space)]);
      return space;
    });
  }

  rename(accountId: number, spaceId: number, input: SpaceInput): Promise<void> {
    return this.lock.run(accountId, async () => {
      const space = await this.get(accountId, spaceId);
      const name = spaceName(input.name);
      await this.checkNameFree(accountId, name, spaceId);
      const tags = input.tags ?? space.tags ?? false;
      await this.commit.write([this.spaces.put(accountId, spaceKey(spaceId), { ...space, name, tags, updated_at: now() })]);
    });
  }

  /** Deletes the space with its charts; charts elsewhere that pointed at it lose the reference. */
  delete(accountId: number, spaceId: number): Promise<void> {
    return this.lock.run(accountId, async () => {
      await this.get(accountId, spaceId);
      // Charts are read one at a time and written in batches, the space record last: a
      // crash part-way leaves the space with fewer charts, and deleting it again finishes.
      const batches = new BatchedWrites(this.commit);
      for await (const chart of this.charts.range(accountId, '', '\uffff')) {
        if (chart.space_id === spaceId) await batches.add(this.charts.del(accountId, chartKey(spaceId, chart.id)));
        else if (chart.related_space === spaceId) {
          await batches.add(this.charts.put(accountId, chartKey(chart.space_id, chart.id), { ...chart, related_space: null }));
        }
      }
      await batches.flush();
      await this.commit.write([this.spaces.del(accountId, spaceKey(spaceId))]);
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
      const limit = this.limits().charts_per_space;
      if (await atLimit(this.charts, accountId, limit, chartsOf(spaceId))) throw overLimit('a space', limit, 'charts', 'charts_per_space');
      const { id } = await this.chartIds.next();
      const t = now();
      const blank: ChartRecord = {
        id, space_id: spaceId, name: '', type: 'line', streams: [], min: null, max: null, label: null,
        related_space: null, thresholds: null, extra: {}, created_at: t, updated_at: t,
      };
      const chart = await this.applyChart(accountId, blank, input);
      await this.checkSpaceBytes(accountId, chart);
      await this.commit.write([...this.idMarks(), this.charts.put(accountId, chartKey(spaceId, id), chart)]);
      return chart;
    });
  }

  updateChart(accountId: number, spaceId: number, chartId: number, input: ChartInput): Promise<ChartRecord> {
    return this.lock.run(accountId, async () => {
      const existing = await this.getChart(accountId, spaceId, chartId);
      const chart = { ...(await this.applyChart(accountId, existing, input)), updated_at: now() };
      await this.checkSpaceBytes(accountId, chart);
      await this.commit.write([...this.idMarks(), this.charts.put(accountId, chartKey(spaceId, chartId), chart)]);
      return chart;
    });
  }

  /**
   * What persists the chart and stream ids reserved so far. A chart's ids are reserved
   * before awaits (its streams' checks, the space's size), during which another account's
   * chart can take later ids and be written: the ops of next() would then set the stored
   * counters back, and after a restart those later ids were handed out again, a new chart
   * overwriting the other account's. So the writes carry the high-water marks, taken
   * with no await before the write.
   */
  private idMarks(): WriteOp[] {
    return [this.chartIds.highWaterOp(), this.streamIds.highWaterOp()].filter((op): op is WriteOp => op !== null);
  }

  deleteChart(accountId: number, spaceId: number, chartId: number): Promise<void> {
    return this.lock.run(accountId, async () => {
      await this.getChart(accountId, spaceId, chartId);
      await this.commit.write([this.charts.del(accountId, chartKey(spaceId, chartId))]);
    });
  }

  /** Refuses a chart that would take its space's charts past MAX_SPACE_CHART_BYTES (itself counted as it would be stored). */
  private async checkSpaceBytes(accountId: number, chart: ChartRecord): Promise<void> {
    let bytes = JSON.stringify(chart).length;
    const prefix = chartsOf(chart.space_id);
    for await (const other of this.charts.range(accountId, prefix, `${prefix}~`)) {
      if (other.id !== chart.id) bytes += JSON.stringify(other).length;
    }
    if (bytes > MAX_SPACE_CHART_BYTES) {
      const mib = (n: number) => n / 1024 / 1024;
      throw requestError(400, `the charts of a space hold at most ${mib(MAX_SPACE_CHART_BYTES)} MiB; this chart would bring space ${chart.space_id} to ${mib(bytes).toFixed(1)} MiB`);
    }
  }

  private async checkNameFree(accountId: number, name: string, self?: number): Promise<void> {
    const taken = (await this.spaces.list(accountId)).some((s) => s.id !== self && sameName(s.name, name));
    if (taken) throw alreadyExists('name', 'is already the name of another space');
  }

  /**
   * The chart after `input`: fields given replace, fields left out stay; `streams`
   * replaces every stream. New stream ids are reserved here and persisted by idMarks().
   */
  private async applyChart(accountId: number, chart: ChartRecord, input: ChartInput): Promise<ChartRecord> {
    const next: ChartRecord = { ...chart, extra: { ...chart.extra, ...extrasOf(input, KNOWN_CHART_FIELDS) } };
    if (input.name !== undefined) next.name = input.name.trim();
    if (input.type !== undefined) next.type = input.type;
    if (input.min !== undefined) next.min = input.min;
    if (input.max !== undefined) next.max = input.max;
    if (input.label !== undefined) next.label = input.label;
    if (input.related_space !== undefined) next.related_space = input.related_space;
    if (input.thresholds !== undefined) next.thresholds = input.thresholds;

    const errors: ParamErrors = fieldErrors();
    const extras = Object.keys(next.extra).length;
    if (extras > MAX_CHART_EXTRA_FIELDS) add(errors, 'fields', `a chart keeps at most ${MAX_CHART_EXTRA_FIELDS} fields beyond the API's own; this update would make ${extras}`);
    const nameProblem = input.name === undefined ? null : displayTextProblem(input.name);
    if (nameProblem) add(errors, 'name', nameProblem);
    const labelProblem = typeof input.label === 'string' ? controlCharacterProblem(input.label) : null;
    if (labelProblem) add(errors, 'label', labelProblem);
    if (input.streams !== undefined) {
      next.streams = [];
      const unclaimed = new Map(chart.streams.map((s) => [s.id, s]));
      for (const [i, s] of input.streams.entries()) {
        await this.checkStream(accountId, s, `streams[${i}]`, errors);
        next.streams.push(await this.storedStream(s, unclaimed));
      }
    }
    if (next.type === 'bignumber' && !next.thresholds?.length) add(errors, 'thresholds', 'are required when type is bignumber');
    if (next.min !== null && next.max !== null && next.min > next.max) add(errors, 'min', 'must not be greater than max');
    // related_space is stored and answered as given (any integer): checking it against
    // the caller's spaces would refuse what clients send, and a different answer for
    // another account's id would reveal that it exists
    if (Object.keys(errors).length) throw paramErrors(errors);
    return next;
  }

  /**
   * A stream of this chart keeps its id when the body sends it back (once: a repeated id
   * gets a new one); every other stream gets a new id.
   */
  private async storedStream(input: StreamInput, unclaimed: Map<number, StreamRecord>): Promise<StreamRecord> {
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
    const { id } = await this.streamIds.next();
    return { id, ...fields };
  }

  private async checkStream(accountId: number, s: StreamInput, at: string, errors: ParamErrors): Promise<void> {
    if (s.composite !== undefined) {
      for (const field of ['metric', 'tags', 'group_function'] as const) {
        if (s[field] !== undefined) add(errors, `${at}.${field}`, 'cannot be combined with composite');
      }
      const problem = typeof s.composite === 'string' && this.checkComposite ? await this.checkComposite(accountId, s.composite, null) : null;
      if (problem) add(errors, `${at}.composite`, problem);
    } else if (s.metric === undefined) {
      add(errors, `${at}.metric`, 'is required unless the stream is a composite');
    } else if (s.downsample_function !== undefined && (await this.metricOf(accountId, s.metric))?.type !== 'composite') {
      add(errors, `${at}.downsample_function`, 'applies only to composite streams and composite metrics');
    }
    if (typeof s.transform_function === 'string' && s.transform_function.trim()) {
      const problem = transformProblem(s.transform_function);
      if (problem) add(errors, `${at}.transform_function`, problem);
    }
    if (s.min != null && s.max != null && s.min > s.max) add(errors, `${at}.min`, 'must not be greater than max');
    // shown in legends, tooltips and on the axis, as the chart's name is: the same rule
    // (they may be empty, though: no units, the metric's name as the legend)
    for (const field of STREAM_TEXT_FIELDS) {
      const text = s[field];
      const problem = typeof text === 'string' ? controlCharacterProblem(text) : null;
      if (problem) add(errors, `${at}.${field}`, problem);
    }
  }


  /** What each stream plots, recomputed on every read: its metric's type (a gauge until the metric exists) and name, or composite. */
  async streamInfo(accountId: number, chart: ChartRecord): Promise<StreamInfo[]> {
    const out: StreamInfo[] = [];
    for (const s of chart.streams) {
      if (typeof s.metric !== 'string') { out.push({ type: 'composite' }); continue; }
      const m = await this.metricOf(accountId, s.metric);
      out.push(m ? { type: m.type, metric: m.name } : { type: 'gauge' });
    }
    return out;
  }
}

const STREAM_TEXT_FIELDS = ['name', 'units_short', 'units_long'] as const;

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
