// The naive model the randomized engine test (model.test.ts) compares the engine with:
// a seeded generator of operation lists, and the expected points of every tier computed
// directly from the list of accepted samples, with none of the engine's machinery (no
// head, parts, merges or caches). Its rules are docs/storage.md's "Data model":
// - a raw point is every sample of its series at that second merged: counts and sums
//   add, min/max widen, `last` is the `last` of the sample written latest;
// - a roll-up bucket (60, 900, 3600 s, times floored) is every sample in it merged the
//   same way, except that `last` is the `last` of the sample with the latest time (of
//   those, the one written latest), and the bucket's last-sample time is that time;
// - a read at a tier over [from, to) gives the points (buckets) whose time t has
//   from <= t < to, each one whole.
import type { Summary } from '../../src/tsdb/sample.js';
import type { Points } from '../../src/tsdb/points.js';
import { seededRandom } from '../helpers/random.js';

export type ReadTier = 0 | 60 | 900 | 3600;
export const READ_TIERS: readonly ReadTier[] = [0, 60, 900, 3600];

export class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  int(lo: number, hi: number): number { // lo <= n <= hi
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** One sample as the test appends it: series index, window index, offset in the window. */
export interface GenSample {
  s: number;
  w: number;
  off: number;
  /** a plain value, or a summary */
  v: number | Summary;
}

export type Op =
  /** `cols`: through appendValues (plain values only), else append */
  | { k: 'append'; samples: GenSample[]; cols: boolean }
  /** several appends issued without waiting for one another */
  | { k: 'appendMany'; batches: GenSample[][] }
  | { k: 'checkpoint' }
  /** a checkpoint started and not waited for: the next ops run beside it */
  | { k: 'checkpointBg' }
  | { k: 'compacted' }
  /** close (final checkpoint) and open again */
  | { k: 'reopen' }
  /** the process dies (nothing more is written) and starts again: WAL replay */
  | { k: 'crash' }
  /** the retention pass (retention long enough to expire nothing: it merges multi-part windows) */
  | { k: 'retention' }
  /** the metric of the last series is deleted (its data with it; later samples make a fresh series) */
  | { k: 'purge' }
  /**
   * the same delete cut off: a checkpoint running when it starts and one after it, then
   * the process dies before its batch commits, so the metric is all there after the start
   */
  | { k: 'purgeCut' }
  /** a point for every filler series, in one append */
  | { k: 'bulk'; samples: GenSample[] }
  /** a checkpoint of which `batches` writes land, then the process dies: replay skips what they hold */
  | { k: 'crashMid'; batches: number };

export interface GenOptions {
  series: number;
  /** raw windows the samples fall in (indexes into the run's window starts) */
  windows: number;
  steps: number;
  /** no restarts, retention passes or purges: a window's parts pile up to merges of merges */
  quiet?: boolean;
  /**
   * Series of their own, indexes series.. series + filler - 1, that bulk ops give a point
   * each: enough for a checkpoint of several batches (a crash between them: crashMid) and
   * reads of several batches of series.
   */
  filler?: number;
}

/** Values of several kinds: integers, 2-decimal, full precision, negatives, huge and tiny. */
export function genValue(r: Rng): number {
  switch (r.int(0, 9)) {
    case 0: return r.int(-5, 5);
    case 1: return r.int(0, 1_000_000);
    case 2: return Math.round((r.next() * 2000 - 1000) * 100) / 100;
    case 3: return r.next() * 1e6 - 5e5;
    case 4: return (r.chance(0.5) ? -1 : 1) * r.next() * 1e120;
    case 5: return (r.chance(0.5) ? -1 : 1) * r.next() * 1e-120;
    case 6: return 0;
    // edges: what the API lets through at most (|v| < 1e127; below 1e-130 it stores 0), -0, 2^53 + 2, 0.1 + 0.2
    case 7: return r.pick([0.1, 0.2, 0.3, 1 / 3, Math.PI, -2.5, 1e15 + 0.5, 9.99e126, -9.99e126, 1.01e-130, -0, 2 ** 53 + 2, 0.1 + 0.2]);
    case 8: return r.int(-1000, 1000) / 10;
    default: return r.next();
  }
}

/** A summary of a few values (consistent: min <= last <= max, sum and sumsq theirs), sometimes scaled up in count. */
export function genSummary(r: Rng): Summary {
  const n = r.int(1, 5);
  const xs = Array.from({ length: n }, () => genValue(r));
  let sum = 0;
  let sumsq = 0;
  for (const x of xs) {
    sum += x;
    sumsq += x * x;
  }
  const s = { count: n, sum, min: Math.min(...xs), max: Math.max(...xs), last: xs[n - 1]!, sumsq };
  // a summary that happens to be one plain value stores as one: still a summary here
  if (r.chance(0.2)) {
    const k = r.int(2, 1000);
    return { count: n * k, sum: sum * k, min: s.min, max: s.max, last: s.last, sumsq: sumsq * k };
  }
  return s;
}

const W_OFFSETS_HOT = [0, 1, 59, 60, 61, 599, 600, 899, 900, 901, 3599, 3600, 3601, 7200, 10799, 10800];

/** `span[w]`: offsets in window w are below it (the window's length, or for the open window, how much of it has passed). */
export function generate(seed: number, o: GenOptions, span: readonly number[]): Op[] {
  const r = new Rng(seed);
  const ops: Op[] = [];
  // per window: offsets used so far, so repeats of a timestamp come up often
  const used: number[][] = Array.from({ length: o.windows }, () => []);
  let minutesOnly = r.chance(0.5);
  const sample = (): GenSample => {
    const w = r.int(0, o.windows - 1);
    let off: number;
    const u = used[w]!;
    const roll = r.next();
    if (u.length && roll < 0.25) off = r.pick(u); // a repeated timestamp
    else if (roll < 0.4) off = r.pick(W_OFFSETS_HOT);
    else if (minutesOnly) off = r.int(0, Math.floor(span[w]! / 60) - 1) * 60;
    else off = r.int(0, span[w]! - 1);
    if (minutesOnly && off % 60 !== 0) off -= off % 60;
    if (off >= span[w]!) off = r.int(0, span[w]! - 1);
    u.push(off);
    return { s: r.int(0, o.series - 1), w, off, v: r.chance(0.3) ? genSummary(r) : genValue(r) };
  };
  const batch = (): GenSample[] => {
    const n = r.pick([1, 1, 2, 3, 5, 8, 20, 60]);
    const out: GenSample[] = [];
    for (let i = 0; i < n; i++) {
      // sometimes the same series and second twice in one batch
      if (out.length && r.chance(0.1)) out.push({ ...out[r.int(0, out.length - 1)]!, v: r.chance(0.3) ? genSummary(r) : genValue(r) });
      else out.push(sample());
    }
    return out;
  };
  for (let i = 0; i < o.steps; i++) {
    if (o.filler && r.chance(0.12)) {
      if (r.chance(0.6)) {
        ops.push({ k: 'bulk', samples: Array.from({ length: o.filler }, (_, f) => ({ ...sample(), s: o.series + f, v: genValue(r) })) });
      } else ops.push({ k: 'crashMid', batches: r.int(0, 2) });
      continue;
    }
    if (r.chance(0.1)) minutesOnly = !minutesOnly;
    const roll = r.next();
    if (roll < 0.45) {
      const samples = batch();
      const plain = samples.every((x) => typeof x.v === 'number');
      ops.push({ k: 'append', samples, cols: plain && r.chance(0.5) });
    } else if (roll < 0.52) ops.push({ k: 'appendMany', batches: Array.from({ length: r.int(2, 4) }, batch) });
    else if (roll < 0.7) ops.push({ k: 'checkpoint' });
    else if (roll < 0.77) ops.push({ k: 'checkpointBg' });
    else if (roll < 0.87) ops.push({ k: 'compacted' });
    else if (o.quiet) ops.push({ k: 'checkpoint' });
    else if (roll < 0.93) ops.push({ k: 'reopen' });
    else if (roll < 0.97) ops.push({ k: 'crash' });
    else if (roll < 0.99) ops.push({ k: 'retention' });
    else ops.push(r.chance(0.5) ? { k: 'purge' } : { k: 'purgeCut' });
  }
  return ops;
}

export function asSummary(v: number | Summary): Summary {
  return typeof v === 'number' ? { count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v } : v;
}

/** An accepted sample: series, absolute time, summary, and its place in write order. */
interface Accepted {
  t: number;
  s: Summary;
  order: number;
}

/** Expected points plus, per point, the sum of |sum| and of sumsq of its samples (for the tolerance) and the sample count. */
export interface Expected extends Points {
  absSum: number[];
  absSumsq: number[];
  n: number[];
}

export class Model {
  private readonly bySeries: Accepted[][] = [];
  private order = 0;

  purge(series: number): void {
    this.bySeries[series] = [];
  }

  accept(series: number, t: number, s: Summary): void {
    (this.bySeries[series] ??= []).push({ t, s: { ...s }, order: this.order++ });
  }

  /** The points of a series at a tier whose times are in [from, to). */
  read(series: number, tier: ReadTier, from: number, to: number): Expected {
    const samples = this.bySeries[series] ?? [];
    const step = tier === 0 ? 1 : tier;
    const buckets = new Map<number, Accepted[]>();
    for (const a of samples) {
      const b = Math.floor(a.t / step) * step;
      if (b < from || b >= to) continue;
      let list = buckets.get(b);
      if (!list) buckets.set(b, (list = []));
      list.push(a);
    }
    const out: Expected = { t: [], count: [], sum: [], min: [], max: [], last: [], sumsq: [], lastT: [], absSum: [], absSumsq: [], n: [] };
    for (const b of [...buckets.keys()].sort((x, y) => x - y)) {
      const list = buckets.get(b)!; // in write order
      let count = 0;
      let sum = 0;
      let sumsq = 0;
      let absSum = 0;
      let min = Infinity;
      let max = -Infinity;
      let lastOf = list[0]!;
      for (const a of list) {
        count += a.s.count;
        sum += a.s.sum;
        sumsq += a.s.sumsq;
        absSum += Math.abs(a.s.sum);
        if (a.s.min < min) min = a.s.min;
        if (a.s.max > max) max = a.s.max;
        // latest time; of equal times the later write (list is in write order)
        if (a.t >= lastOf.t) lastOf = a;
      }
      out.t.push(b);
      out.count.push(count);
      out.sum.push(sum);
      out.min.push(min);
      out.max.push(max);
      out.last.push(lastOf.s.last);
      out.sumsq.push(sumsq);
      out.lastT.push(lastOf.t);
      out.absSum.push(absSum);
      out.absSumsq.push(Math.abs(sumsq));
      out.n.push(list.length);
    }
    return out;
  }
}

const EPS = Number.EPSILON;

/**
 * Where `got` differs from `want`, described, or null. Times, counts, min, max and last
 * exactly (numerically: -0 equals 0); sums and sums of squares within the rounding error
 * of adding the point's samples in another order. `columns`: which summary columns to
 * check (COLUMN bits, as read.ts takes them).
 */
export function diffPoints(got: Points, want: Expected, columns = 31): string | null {
  const show = (i: number) => `want t=${want.t[i]} count=${want.count[i]} sum=${want.sum[i]} min=${want.min[i]} max=${want.max[i]} last=${want.last[i]} lastT=${want.lastT[i]} sumsq=${want.sumsq[i]}; got t=${got.t[i]} count=${got.count[i]} sum=${got.sum[i]} min=${got.min[i]} max=${got.max[i]} last=${got.last[i]} lastT=${got.lastT[i]} sumsq=${got.sumsq[i]}`;
  const n = Math.max(got.t.length, want.t.length);
  for (let i = 0; i < n; i++) {
    if (got.t[i] !== want.t[i]) return `point ${i} of ${want.t.length} (got ${got.t.length}): time ${got.t[i]} where ${want.t[i]} (${show(i)})`;
    const close = (g: number, w: number, mag: number) => g === w || Math.abs(g - w) <= 4 * (want.n[i]! + 1) * EPS * mag;
    if (!close(got.sum[i]!, want.sum[i]!, want.absSum[i]!)) return `point ${i}: sum (${show(i)})`;
    if (columns & 1 && got.count[i] !== want.count[i]) return `point ${i}: count (${show(i)})`;
    if (columns & 2 && !(got.min[i] === want.min[i])) return `point ${i}: min (${show(i)})`;
    if (columns & 4 && !(got.max[i] === want.max[i])) return `point ${i}: max (${show(i)})`;
    if (columns & 8 && (got.last[i] !== want.last[i] || got.lastT[i] !== want.lastT[i])) return `point ${i}: last (${show(i)})`;
    if (columns & 16 && !close(got.sumsq[i]!, want.sumsq[i]!, want.absSumsq[i]!)) return `point ${i}: sumsq (${show(i)})`;
  }
  return null;
}
