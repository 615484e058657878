// The head: points of open windows, in memory, per series. Plain samples cost two
// numbers (time, value); summary columns are allocated only when a series receives a
// summary. Durability comes from the WAL and the head snapshots written at checkpoints.
import { emptyPoints, isStrictlySorted, sortMerge, type Points, type Summary } from './points.js';
import { isPlainSummary } from './wal.js';

interface SummaryColumns {
  count: number[];
  min: number[];
  max: number[];
  last: number[];
  sumsq: number[];
}

export class HeadChunk {
  t: number[] = [];
  v: number[] = [];
  cx: SummaryColumns | null = null;
  /** changed since the last snapshot */
  dirty = true;
  /** a snapshot of it exists in LevelDB */
  snapshotted = false;
  lastAppendMs = Date.now();

  constructor(readonly account: number, readonly series: number, readonly window: number) {}

  get size(): number {
    return this.t.length;
  }

  append(t: number, s: Summary): void {
    this.dirty = true;
    this.lastAppendMs = Date.now();
    const n = this.t.length;
    const plain = isPlainSummary(s);
    if (n > 0 && this.t[n - 1] === t) {
      this.mergeLast(s, plain);
      return;
    }
    if (!plain && !this.cx) this.expand();
    this.t.push(t);
    this.v.push(s.sum);
    const cx = this.cx;
    if (cx) {
      cx.count.push(s.count);
      cx.min.push(s.min);
      cx.max.push(s.max);
      cx.last.push(s.last);
      cx.sumsq.push(s.sumsq);
    }
  }

  private mergeLast(s: Summary, _plain: boolean): void {
    if (!this.cx) this.expand();
    const cx = this.cx!;
    const i = this.t.length - 1;
    this.v[i]! += s.sum;
    cx.count[i]! += s.count;
    if (s.min < cx.min[i]!) cx.min[i] = s.min;
    if (s.max > cx.max[i]!) cx.max[i] = s.max;
    cx.last[i] = s.last;
    cx.sumsq[i]! += s.sumsq;
  }

  private expand(): void {
    const v = this.v;
    this.cx = { count: v.map(() => 1), min: v.slice(), max: v.slice(), last: v.slice(), sumsq: v.map((x) => x * x) };
  }

  /** Sorted points with equal times merged. */
  points(): Points {
    const p = emptyPoints();
    p.t = this.t.slice();
    p.sum = this.v.slice();
    if (this.cx) {
      p.count = this.cx.count.slice();
      p.min = this.cx.min.slice();
      p.max = this.cx.max.slice();
      p.last = this.cx.last.slice();
      p.sumsq = this.cx.sumsq.slice();
    } else {
      p.count = this.v.map(() => 1);
      p.min = this.v.slice();
      p.max = this.v.slice();
      p.last = this.v.slice();
      p.sumsq = this.v.map((x) => x * x);
    }
    return isStrictlySorted(p.t) ? p : sortMerge([p]);
  }

  /** Loads points (from a snapshot) as if appended in order. */
  load(p: Points): void {
    for (let i = 0; i < p.t.length; i++) {
      this.append(p.t[i]!, { count: p.count[i]!, sum: p.sum[i]!, min: p.min[i]!, max: p.max[i]!, last: p.last[i]!, sumsq: p.sumsq[i]! });
    }
  }
}

/** Head chunks by series, then window. */
export class Head {
  readonly series = new Map<number, Map<number, HeadChunk>>();
  points = 0;

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
    this.points -= chunk.size;
  }

  *chunks(): Generator<HeadChunk> {
    for (const byWindow of this.series.values()) yield* byWindow.values();
  }
}
