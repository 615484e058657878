// The head: the points each series received since the last checkpoint, in memory, per
// window. A plain sample costs ten bytes (a 16-bit time offset and a float64); summary
// columns are allocated only when a series receives a summary. Durability comes from the
// WAL until a checkpoint writes these points as chunk parts (checkpoint.ts) and empties
// the head: its size follows the rate times the checkpoint interval, never the window.
import { copyPoint, emptyPoints, rollUp, sortMerge, type Points } from './points.js';
import { isPlainSummary, type Summary } from './sample.js';

interface SummaryColumns {
  count: Float64Array;
  min: Float64Array;
  max: Float64Array;
  last: Float64Array;
  sumsq: Float64Array;
}

const INITIAL = 16;

function grow<T extends Float64Array | Uint16Array>(a: T, size: number): T {
  const next = new (a.constructor as { new (n: number): T })(size);
  next.set(a);
  return next;
}

/**
 * Points of one series in one window, as typed columns with room to grow: times as
 * seconds from the window start (a window is 21,600 s, so 16 bits), values as float64; ten
 * bytes a plain point.
 */
export class Columns {
  private dt: Uint16Array;
  private v: Float64Array;
  private cx: SummaryColumns | null = null;
  private n = 0;
  /** times strictly increasing (in-order appends): ranges can be cut by binary search */
  sorted = true;
  /** the oldest WAL record holding one of these points (null: none, e.g. loaded from a snapshot) */
  firstSeq: number | null = null;
  /** when the first of these points arrived */
  firstAppendMs = 0;

  /** `capacity`: room for this many points before the first growth; `from`: columns to take as they are */
  constructor(readonly window: number, capacity = INITIAL, from?: { dt: Uint16Array; v: Float64Array; cx: SummaryColumns | null; sorted: boolean }) {
    if (from) {
      this.dt = from.dt;
      this.v = from.v;
      this.cx = from.cx;
      this.n = from.dt.length;
      this.sorted = from.sorted;
      return;
    }
    this.dt = new Uint16Array(Math.max(INITIAL, capacity));
    this.v = new Float64Array(Math.max(INITIAL, capacity));
  }

  /**
   * A copy of the points with from <= t < to (all of them when unsorted), for a read:
   * two or seven typed-array copies, where rolling up now would build seven arrays a
   * series while the read holds every series of the query.
   */
  copy(from: number, to: number): Columns {
    const a = this.sorted ? this.lowerBound(from) : 0;
    const b = this.sorted ? this.lowerBound(to) : this.n;
    const cx = this.cx;
    return new Columns(this.window, 0, {
      dt: this.dt.slice(a, b), v: this.v.slice(a, b), sorted: this.sorted,
      cx: cx && { count: cx.count.slice(a, b), min: cx.min.slice(a, b), max: cx.max.slice(a, b), last: cx.last.slice(a, b), sumsq: cx.sumsq.slice(a, b) },
    });
  }

  get size(): number {
    return this.n;
  }

  append(t: number, s: Summary): void {
    const n = this.n;
    const d = t - this.window;
    if (d < 0 || d >= 65536) throw new RangeError('time outside the head window');
    if (n > 0 && this.dt[n - 1] === d) {
      this.mergeLast(s);
      return;
    }
    const plain = isPlainSummary(s);
    if (!plain && !this.cx) this.expand();
    if (n > 0 && d < this.dt[n - 1]!) this.sorted = false;
    if (n === this.v.length) this.resize(n + (n >> 1) + 8);
    this.dt[n] = d;
    this.v[n] = s.sum;
    const cx = this.cx;
    if (cx) {
      cx.count[n] = s.count;
      cx.min[n] = s.min;
      cx.max[n] = s.max;
      cx.last[n] = s.last;
      cx.sumsq[n] = s.sumsq;
    }
    this.n = n + 1;
  }

  private resize(size: number): void {
    this.dt = grow(this.dt, size);
    this.v = grow(this.v, size);
    const cx = this.cx;
    if (cx) this.cx = { count: grow(cx.count, size), min: grow(cx.min, size), max: grow(cx.max, size), last: grow(cx.last, size), sumsq: grow(cx.sumsq, size) };
  }

  private mergeLast(s: Summary): void {
    if (!this.cx) this.expand();
    const cx = this.cx!;
    const i = this.n - 1;
    this.v[i]! += s.sum;
    cx.count[i]! += s.count;
    if (s.min < cx.min[i]!) cx.min[i] = s.min;
    if (s.max > cx.max[i]!) cx.max[i] = s.max;
    cx.last[i] = s.last;
    cx.sumsq[i]! += s.sumsq;
  }

  private expand(): void {
    const size = this.v.length;
    const v = this.v;
    const cx: SummaryColumns = { count: new Float64Array(size), min: new Float64Array(size), max: new Float64Array(size), last: new Float64Array(size), sumsq: new Float64Array(size) };
    for (let i = 0; i < this.n; i++) {
      cx.count[i] = 1;
      cx.min[i] = cx.max[i] = cx.last[i] = v[i]!;
      cx.sumsq[i] = v[i]! * v[i]!;
    }
    this.cx = cx;
  }

  /** Sorted points with equal times merged. */
  points(): Points {
    return this.range(-Infinity, Infinity, 0);
  }

  /**
   * Points with from <= t < to, sorted, equal times merged; with `step`, rolled up into
   * buckets of that many seconds. In-order chunks are cut without copying the rest.
   */
  range(from: number, to: number, step: number): Points {
    if (!this.sorted) {
      const all = sortMerge([this.columns(0, this.n)]);
      const cut = emptyPoints();
      for (let i = 0; i < all.t.length; i++) if (all.t[i]! >= from && all.t[i]! < to) copyPoint(cut, all, i);
      return step ? rollUp(cut, step) : cut;
    }
    const a = this.lowerBound(from);
    const b = this.lowerBound(to);
    return step ? this.rolledUp(a, b, step) : this.columns(a, b);
  }

  /** Buckets of `step` seconds straight from the typed columns (sorted chunks only). */
  private rolledUp(a: number, b: number, step: number): Points {
    const out: Points = { t: [], count: [], sum: [], min: [], max: [], last: [], sumsq: [] };
    if (a >= b) return out;
    const w = this.window;
    const dt = this.dt;
    const v = this.v;
    const cx = this.cx;
    // the open bucket, in locals; pushed when the next bucket starts
    let bucket = NaN;
    let count = 0;
    let sum = 0;
    let min = 0;
    let max = 0;
    let last = 0;
    let sumsq = 0;
    const flush = () => {
      out.t.push(bucket);
      out.count.push(count);
      out.sum.push(sum);
      out.min.push(min);
      out.max.push(max);
      out.last.push(last);
      out.sumsq.push(sumsq);
    };
    for (let i = a; i < b; i++) {
      const t = w + dt[i]!;
      const x = v[i]!;
      const start = t - (t % step);
      const c = cx ? cx.count[i]! : 1;
      const lo = cx ? cx.min[i]! : x;
      const hi = cx ? cx.max[i]! : x;
      if (start !== bucket) {
        if (count > 0) flush();
        bucket = start;
        count = c;
        sum = x;
        min = lo;
        max = hi;
        last = cx ? cx.last[i]! : x;
        sumsq = cx ? cx.sumsq[i]! : x * x;
        continue;
      }
      count += c;
      sum += x;
      if (lo < min) min = lo;
      if (hi > max) max = hi;
      last = cx ? cx.last[i]! : x;
      sumsq += cx ? cx.sumsq[i]! : x * x;
    }
    flush();
    return out;
  }

  /** First index whose time is >= t (sorted chunks only). */
  private lowerBound(t: number): number {
    const d = t - this.window;
    if (d <= 0) return 0;
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.dt[mid]! < d) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private columns(a: number, b: number): Points {
    const w = this.window;
    const t = new Array<number>(b - a);
    const sum = new Array<number>(b - a);
    for (let i = a; i < b; i++) {
      t[i - a] = w + this.dt[i]!;
      sum[i - a] = this.v[i]!;
    }
    const cx = this.cx;
    if (cx) {
      return {
        t, sum, count: Array.from(cx.count.subarray(a, b)), min: Array.from(cx.min.subarray(a, b)),
        max: Array.from(cx.max.subarray(a, b)), last: Array.from(cx.last.subarray(a, b)), sumsq: Array.from(cx.sumsq.subarray(a, b)),
      };
    }
    // plain points: min = max = last = the value (shared arrays, never mutated in place)
    return { t, sum, count: new Array<number>(b - a).fill(1), min: sum, max: sum, last: sum, sumsq: sum.map((x) => x * x) };
  }

  /** Loads points as if appended in order. */
  load(p: Points): void {
    for (let i = 0; i < p.t.length; i++) {
      this.append(p.t[i]!, { count: p.count[i]!, sum: p.sum[i]!, min: p.min[i]!, max: p.max[i]!, last: p.last[i]!, sumsq: p.sumsq[i]! });
    }
  }
}

/**
 * What one series received for one window since the last checkpoint, and while a
 * checkpoint writes those points, them too (still read from here until the parts holding
 * them are in LevelDB and in the catalog).
 */
export class HeadChunk {
  private cols: Columns;
  flushing: Columns | null = null;
  lastAppendMs = Date.now();

  constructor(readonly account: number, readonly series: number, readonly window: number) {
    this.cols = new Columns(window);
  }

  get size(): number {
    return this.cols.size;
  }

  /** `seq`: the WAL record holding the point */
  append(t: number, s: Summary, seq: number): void {
    const now = Date.now();
    this.lastAppendMs = now;
    const cols = this.cols;
    if (cols.size === 0) cols.firstAppendMs = now;
    if (cols.firstSeq === null) cols.firstSeq = seq;
    cols.append(t, s);
  }

  /** The oldest WAL record the points not yet taken by a checkpoint depend on, or null. */
  get firstSeq(): number | null {
    return this.cols.size ? this.cols.firstSeq : null;
  }

  /** When the oldest point not yet taken by a checkpoint arrived (0: none). */
  get firstAppendMs(): number {
    return this.cols.size ? this.cols.firstAppendMs : 0;
  }

  /** Sorted points with equal times merged (those not taken by a checkpoint). */
  points(): Points {
    return this.cols.points();
  }

  range(from: number, to: number, step: number): Points {
    return this.cols.range(from, to, step);
  }

  /**
   * Hands the columns received so far to a checkpoint (no copy) and starts afresh with
   * room for as many: the next interval brings about as many.
   */
  capture(): Columns {
    const taken = this.cols;
    this.flushing = taken;
    this.cols = new Columns(this.window, taken.size);
    return taken;
  }

  /** A checkpoint that could not write its columns gives them back (before what came since). */
  restore(): void {
    const taken = this.flushing;
    if (!taken) return;
    const since = this.cols;
    this.cols = taken;
    this.flushing = null;
    if (since.size) {
      this.cols.load(since.points());
      if (since.firstSeq !== null && (taken.firstSeq === null || since.firstSeq < taken.firstSeq)) taken.firstSeq = since.firstSeq;
    }
  }

  /** Copies of what is held here with from <= t < to (being written, then received since), oldest first. */
  copies(from: number, to: number): Columns[] {
    const out: Columns[] = [];
    if (this.flushing && this.flushing.size) out.push(this.flushing.copy(from, to));
    if (this.cols.size) out.push(this.cols.copy(from, to));
    return out;
  }

  /** Loads points (from a snapshot of the old layout) as if appended in order. */
  load(p: Points): void {
    this.cols.load(p);
  }
}

/** Head chunks by series, then window. */
export class Head {
  readonly series = new Map<number, Map<number, HeadChunk>>();

  get(series: number): Map<number, HeadChunk> | undefined {
    return this.series.get(series);
  }

  chunk(account: number, series: number, window: number): HeadChunk {
    let byWindow = this.series.get(series);
    if (!byWindow) this.series.set(series, (byWindow = new Map()));
    let c = byWindow.get(window);
    if (!c) byWindow.set(window, (c = new HeadChunk(account, series, window)));
    return c;
  }

  remove(chunk: HeadChunk): void {
    const byWindow = this.series.get(chunk.series);
    if (!byWindow || byWindow.get(chunk.window) !== chunk) return;
    byWindow.delete(chunk.window);
    if (byWindow.size === 0) this.series.delete(chunk.series);
  }

  *chunks(): Generator<HeadChunk> {
    for (const byWindow of this.series.values()) yield* byWindow.values();
  }
}
