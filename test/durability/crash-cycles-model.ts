// What the crash-cycle test expects the service to hold: every (series, second) it ever
// wrote to, each written at most once, with the state the test knows of it.
//   pending: sent, no answer yet (the kill may have cut it off): stored or not, never half
//   stored:  answered 2xx (or pending and then read back whole): must be there, exactly
//   absent:  pending and then not found after the restart: must never appear
//   deleted: its metric's DELETE was answered 204 (or read back as landed): never again
// A slot is written at most once, so a point read back is either exactly what was sent to
// its slot or garbage; nothing is ever merged with something else.
export type SlotState = 'pending' | 'stored' | 'absent' | 'deleted';

export interface Expected {
  count: number;
  sum: number;
  min: number;
  max: number;
  /** the tagged API's `last`; the source-based API stores the mean as last and does not answer it */
  last: number;
}

export interface Slot {
  time: number;
  expected: Expected;
  state: SlotState;
  /** the metric's generation when written: a DELETE takes every generation up to its own */
  gen: number;
  /** the request that wrote it: one request is one WAL record, stored whole or not at all */
  req: number;
}

export type Api = 'tagged' | 'sourced';

export interface MetricDef {
  name: string;
  api: Api;
  summary: boolean;
  deletable: boolean;
  /** tagged: [host, zone] pairs; sourced: source names */
  series: string[];
}

export interface SeriesModel {
  metric: MetricDef;
  /** `host=h1,zone=z0` or `source=s3` */
  label: string;
  slots: Map<number, Slot>;
  /** the in-order front: most points go just after it, some before it (late, out of order) */
  cursor: number;
}

export interface MetricState {
  def: MetricDef;
  gen: number;
  /** a DELETE in flight (its generation), unresolved until the next start reads the metric */
  deleting: number | null;
  /** requests in flight naming this metric */
  inflight: number;
  /** the deleter holds it: writers leave it alone */
  locked: boolean;
}

const HOSTS = 20;
const ZONES = 2;
const SOURCES = 10;

function taggedSeries(hosts: number, zones: number): string[] {
  const out: string[] = [];
  for (let h = 0; h < hosts; h++) for (let z = 0; z < zones; z++) out.push(`host=h${h},zone=z${z}`);
  return out;
}

export const METRICS: MetricDef[] = [
  // many series: a checkpoint's parts then take more than one batch (2,000 operations)
  { name: 'cc.tag.a', api: 'tagged', summary: false, deletable: false, series: taggedSeries(5 * HOSTS, ZONES) },
  { name: 'cc.tag.b', api: 'tagged', summary: false, deletable: false, series: taggedSeries(HOSTS, ZONES) },
  { name: 'cc.tag.sum', api: 'tagged', summary: true, deletable: false, series: taggedSeries(HOSTS, ZONES) },
  { name: 'cc.del.0', api: 'tagged', summary: false, deletable: true, series: taggedSeries(4, 1) },
  { name: 'cc.del.1', api: 'tagged', summary: true, deletable: true, series: taggedSeries(4, 1) },
  { name: 'cc.src.g', api: 'sourced', summary: false, deletable: false, series: Array.from({ length: SOURCES }, (_, i) => `source=s${i}`) },
  { name: 'cc.src.s', api: 'sourced', summary: true, deletable: false, series: Array.from({ length: SOURCES }, (_, i) => `source=s${i}`) },
];

/** A point of a request: its series and slot. */
export interface Written { series: SeriesModel; slot: Slot }

export class Model {
  readonly series = new Map<string, SeriesModel>();
  readonly metrics = new Map<string, MetricState>();
  private requests = 0;

  /**
   * `from`..`to`: the times written (epoch seconds). The range spans several 6-hour raw
   * windows, all ended: checkpoints write them soon and idle ones are sealed, so late
   * points land in windows already sealed and merged.
   */
  constructor(private readonly rnd: () => number, readonly from: number, readonly to: number) {
    for (const def of METRICS) {
      this.metrics.set(def.name, { def, gen: 0, deleting: null, inflight: 0, locked: false });
      for (const label of def.series) {
        const cursor = from + Math.floor(rnd() * 3600);
        this.series.set(`${def.name}|${label}`, { metric: def, label, slots: new Map(), cursor });
      }
    }
  }

  private int(lo: number, hi: number): number {
    return lo + Math.floor(this.rnd() * (hi - lo + 1));
  }

  /** A value with two decimals, sometimes negative. */
  private value(): number {
    return Math.round((this.rnd() * 2000 - (this.rnd() < 0.2 ? 1500 : 0)) * 100) / 100;
  }

  /** A second of the series never written before: mostly just past the front, some late. */
  private time(s: SeriesModel): number | null {
    for (let tries = 0; tries < 20; tries++) {
      let t: number;
      if (this.rnd() < 0.8 && s.cursor < this.to) {
        s.cursor = Math.min(this.to, s.cursor + this.int(1, 40));
        t = s.cursor;
      } else {
        t = this.int(this.from, this.to); // late or out of order (or ahead of the front)
      }
      if (!s.slots.has(t)) return t;
    }
    return null;
  }

  private expected(summary: boolean): Expected {
    if (!summary) {
      const v = this.value();
      return { count: 1, sum: v, min: v, max: v, last: v };
    }
    const count = this.int(2, 9);
    const min = this.value();
    const max = Math.round((min + this.rnd() * 500) * 100) / 100;
    const mid = Math.round(((min + max) / 2) * 100) / 100;
    return { count, sum: min + max + (count - 2) * mid, min, max, last: max };
  }

  /** Writable metrics of an API now (not held by the deleter). */
  private writable(api: Api): MetricState[] {
    return [...this.metrics.values()].filter((m) => m.def.api === api && !m.locked);
  }

  /** The points of one new request; each slot is marked pending. */
  plan(api: Api, n: number): Written[] {
    const out: Written[] = [];
    const req = ++this.requests;
    const metrics = this.writable(api);
    for (let i = 0; i < n && metrics.length; i++) {
      const m = metrics[this.int(0, metrics.length - 1)]!;
      const label = m.def.series[this.int(0, m.def.series.length - 1)]!;
      const s = this.series.get(`${m.def.name}|${label}`)!;
      const time = this.time(s);
      if (time === null) continue;
      const slot: Slot = { time, expected: this.expected(m.def.summary), state: 'pending', gen: m.gen, req };
      s.slots.set(time, slot);
      out.push({ series: s, slot });
    }
    return out;
  }
}

/** The body of a tagged request for these points. */
export function taggedBody(points: Written[]): unknown {
  return {
    measurements: points.map(({ series, slot }) => {
      const tags = Object.fromEntries(series.label.split(',').map((p) => p.split('=')));
      const e = slot.expected;
      const base = { name: series.metric.name, time: slot.time, tags };
      return series.metric.summary ? { ...base, count: e.count, sum: e.sum, min: e.min, max: e.max, last: e.last } : { ...base, value: e.sum };
    }),
  };
}

/** The body of a source-based request for these points (all gauges). */
export function sourcedBody(points: Written[]): unknown {
  return {
    gauges: points.map(({ series, slot }) => {
      const e = slot.expected;
      const base = { name: series.metric.name, source: series.label.slice('source='.length), measure_time: slot.time };
      if (!series.metric.summary) return { ...base, value: e.sum };
      return { ...base, count: e.count, sum: e.sum, min: e.min, max: e.max, sum_squares: e.min * e.min + e.max * e.max };
    }),
  };
}
