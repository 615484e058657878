// The head: the points each series received since the last checkpoint, in memory, per
// window. A plain sample costs ten bytes (a 16-bit time offset and a float64); summary
// columns are allocated only when a series receives a summary. Durability comes from the
// WAL until a checkpoint writes these points as chunk parts (checkpoint.ts) and empties
// the head: its size follows the rate times the checkpoint interval, never the window.
// A window its series has moved on from waits for that checkpoint as the raw chunk the
// checkpoint will write (Columns.freeze), about two bytes a point.
import { ALL_COLUMNS, COLUMN, copyPoint, emptyPoints, rollUp, sortMerge, type Points } from './points.js';
import { decodeChunk, encodeChunk } from './chunk.js';
import { isPlainSummary, type Summary } from './sample.js';
import { WINDOW } from './keys.js';

interface SummaryColumns {
  count: Float64Array;
  min: Float64Array;
  max: Float64Array;
  last: Float64Array;
  sumsq: Float64Array;
}

const SUMMARY_KEYS = ['count', 'min', 'max', 'last', 'sumsq'] as const;

function summaryColumns(size: number): SummaryColumns {
  return { count: new Float64Array(size), min: new Float64Array(size), max: new Float64Array(size), last: new Float64Array(size), sumsq: new Float64Array(size) };
}

const INITIAL = 16;
/** Fewer points than this are not worth a frozen chunk: their columns are about as small. */
const FREEZE_MIN = 32;

/**
 * Steps whose buckets a window keeps between reads (rollCached): the 900 s and 3600 s
 * tiers, where a bucket stands for 15 to 60 one-minute points. The 60 s tier is not
 * cached: for points a minute apart its buckets are the points themselves.
 */
export const CACHED_STEPS: readonly number[] = [900, 3600];

/** Numbers a bucket in PackedBuckets: time, count, sum, min, max, last, sumsq, lastT. */
const BUCKET = 8;

/**
 * Summaries packed eight numbers each (time, count, sum, min, max, last, sumsq, and when
 * the last sample was taken) in one
 * Float64Array that grows: what a read takes from the head for a coarse tier is one such
 * array for all its series, not seven arrays a window (those, held across the read's
 * LevelDB fetch, were promoted and cost more in garbage collection than the roll-up).
 */
export class PackedBuckets {
  buf: Float64Array;
  /** buckets held */
  size = 0;

  constructor(capacity = 64) {
    this.buf = new Float64Array(capacity * BUCKET);
  }

  reset(): this {
    this.size = 0;
    return this;
  }

  push(t: number, count: number, sum: number, min: number, max: number, last: number, sumsq: number, lastT: number): void {
    let at = this.size * BUCKET;
    if (at === this.buf.length) this.grow(this.size + 1);
    const buf = this.buf;
    buf[at++] = t;
    buf[at++] = count;
    buf[at++] = sum;
    buf[at++] = min;
    buf[at++] = max;
    buf[at++] = last;
    buf[at++] = sumsq;
    buf[at] = lastT;
    this.size++;
  }

  /** Appends points (buckets already) as buckets. */
  pushPoints(p: Points): void {
    for (let i = 0; i < p.t.length; i++) this.push(p.t[i]!, p.count[i]!, p.sum[i]!, p.min[i]!, p.max[i]!, p.last[i]!, p.sumsq[i]!, p.lastT[i]!);
  }

  /** Appends buckets [a, b) of `src`. */
  append(src: PackedBuckets, a: number, b: number): void {
    if (a >= b) return;
    if ((this.size + b - a) * BUCKET > this.buf.length) this.grow(this.size + b - a);
    // a loop, not set(subarray()): a view a window per read cost more than the copy
    const from = src.buf;
    const to = this.buf;
    for (let i = a * BUCKET, at = this.size * BUCKET, end = b * BUCKET; i < end; i++, at++) to[at] = from[i]!;
    this.size += b - a;
  }

  /** The first bucket whose time is >= t (buckets in time order). */
  lowerBound(t: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.buf[mid * BUCKET]! < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** A copy of the buckets, exactly as long as they are. */
  private grow(buckets: number): void {
    const next = new Float64Array(Math.max(buckets, this.size * 2) * BUCKET);
    next.set(this.buf.subarray(0, this.size * BUCKET));
    this.buf = next;
  }
}

/**
 * Buckets [a, b) of a packed array as points, in the packing order. `columns` (COLUMN
 * bits): the summary columns wanted besides time and sum; the others hold anything.
 */
export function unpack(buf: Float64Array, a: number, b: number, columns = ALL_COLUMNS): Points {
  const n = b - a;
  const t = new Array<number>(n);
  const sum = new Array<number>(n);
  for (let i = 0, at = a * BUCKET; i < n; i++, at += BUCKET) {
    t[i] = buf[at]!;
    sum[i] = buf[at + 2]!;
  }
  const column = (bit: number, offset: number): number[] => {
    if (!(columns & bit)) return sum;
    const out = new Array<number>(n);
    for (let i = 0, at = a * BUCKET + offset; i < n; i++, at += BUCKET) out[i] = buf[at]!;
    return out;
  };
  return { t, sum, count: column(COLUMN.count, 1), min: column(COLUMN.min, 3), max: column(COLUMN.max, 4), last: column(COLUMN.last, 5), sumsq: column(COLUMN.sumsq, 6), lastT: column(COLUMN.last, 7) };
}

/**
 * Copies of head columns for one read, in typed arrays shared by all its series that
 * grow as needed: a read of the last hour of 10,000 series took 20,000 typed-array
 * slices, each with its own backing store, and most of its time went to allocating and
 * collecting them. Copy k is read back as a Columns of views (columns(k)).
 */
export class ColumnCopies {
  private dt: Uint16Array;
  private v: Float64Array;
  private cx: SummaryColumns | null = null;
  private used = 0;
  /** per copy: window, first index, end index, 1 if sorted + 2 if summary columns */
  private readonly meta: number[] = [];

  constructor(capacity = 1024) {
    this.dt = new Uint16Array(capacity);
    this.v = new Float64Array(capacity);
  }

  /** copies made */
  get size(): number {
    return this.meta.length / 4;
  }

  /** Forgets the copies (keeps the arrays): the next batch of a read reuses them. */
  reset(): this {
    this.used = 0;
    this.meta.length = 0;
    return this;
  }

  add(window: number, sorted: boolean, dt: Uint16Array, v: Float64Array, cx: SummaryColumns | null, a: number, b: number): void {
    const n = b - a;
    const at = this.used;
    if (at + n > this.v.length) this.grow(at + n);
    if (cx && !this.cx) this.cx = summaryColumns(this.v.length);
    const out = this.cx;
    for (let i = 0; i < n; i++) {
      this.dt[at + i] = dt[a + i]!;
      this.v[at + i] = v[a + i]!;
    }
    if (cx && out) {
      for (const k of SUMMARY_KEYS) {
        const src = cx[k];
        const dst = out[k];
        for (let i = 0; i < n; i++) dst[at + i] = src[a + i]!;
      }
    }
    this.used = at + n;
    this.meta.push(window, at, at + n, (sorted ? 1 : 0) | (cx ? 2 : 0));
  }

  /** Copy k, as columns viewing these arrays. */
  columns(k: number): Columns {
    const m = this.meta;
    const window = m[4 * k]!;
    const a = m[4 * k + 1]!;
    const b = m[4 * k + 2]!;
    const flags = m[4 * k + 3]!;
    const cx = this.cx;
    return new Columns(window, 0, {
      dt: this.dt.subarray(a, b), v: this.v.subarray(a, b), sorted: (flags & 1) !== 0,
      cx: flags & 2 && cx ? { count: cx.count.subarray(a, b), min: cx.min.subarray(a, b), max: cx.max.subarray(a, b), last: cx.last.subarray(a, b), sumsq: cx.sumsq.subarray(a, b) } : null,
    });
  }

  private grow(size: number): void {
    const next = Math.max(size, this.v.length * 2);
    this.dt = grow(this.dt, next);
    this.v = grow(this.v, next);
    const cx = this.cx;
    if (cx) this.cx = { count: grow(cx.count, next), min: grow(cx.min, next), max: grow(cx.max, next), last: grow(cx.last, next), sumsq: grow(cx.sumsq, next) };
  }
}

/** Whether t is a bucket boundary of `step` (the open ends of a range are). */
function onStep(t: number, step: number): boolean {
  return !Number.isFinite(t) || t % step === 0;
}

/** Roll-ups of one read are built here, then copied out at their exact size. */
const scratch = new PackedBuckets(1024);

/** The buckets of one step over the points of sorted columns. */
interface RollCache {
  buckets: PackedBuckets;
  /** the first point of the last bucket (which later points may still join) */
  upTo: number;
  /** the columns' version the buckets were brought up to date at */
  version: number;
}

/**
 * A series window's time and value columns in one buffer (values first, 8-byte aligned):
 * an ArrayBuffer and its backing store cost about 150 bytes beyond their data, and the
 * head holds a pair for every series.
 */
function pointColumns(size: number): { dt: Uint16Array; v: Float64Array } {
  const buf = new ArrayBuffer(size * 10);
  return { v: new Float64Array(buf, 0, size), dt: new Uint16Array(buf, size * 8, size) };
}

function grow<T extends Float64Array | Uint16Array>(a: T, size: number): T {
  const next = new (a.constructor as { new (n: number): T })(size);
  next.set(a);
  return next;
}

const NO_DT = new Uint16Array(0);
const NO_V = new Float64Array(0);

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
  /** counts appends (merges into the last point included): the bucket caches' clock */
  private version = 0;
  /** times strictly increasing (in-order appends): ranges can be cut by binary search */
  sorted = true;
  /** buckets of the coarse steps rolled up by earlier reads (sorted columns only) */
  private rolled: Map<number, RollCache> | null = null;
  /** the oldest WAL record holding one of these points (null: none, e.g. loaded from a snapshot) */
  firstSeq: number | null = null;
  /** when the first of these points arrived */
  firstAppendMs = 0;
  /** points the columns have room for once allocated */
  private room = INITIAL;
  /** the points as the raw chunk a checkpoint writes, in place of the columns (freeze); null while the columns hold them */
  private frozen: Buffer | null = null;
  /** onWholeMinutes() of the frozen points */
  private frozenOnMinutes = false;

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
    // allocated at the first append: a checkpoint that takes 400,000 windows at once
    // (after a replay) spent seconds and most of its garbage collection on fresh columns
    // that windows which had ended would never fill
    this.dt = NO_DT;
    this.v = NO_V;
    this.room = Math.max(INITIAL, capacity);
  }

  /**
   * A copy of the points with from <= t < to (all of them when unsorted), for a read:
   * two or seven typed-array copies, where rolling up now would build seven arrays a
   * series while the read holds every series of the query.
   */
  copy(from: number, to: number): Columns {
    const copies = new ColumnCopies(0);
    this.copyInto(from, to, copies);
    return copies.columns(0);
  }

  /** Appends a copy of the points with from <= t < to (all of them when unsorted) to `copies`. */
  copyInto(from: number, to: number, copies: ColumnCopies): void {
    if (this.frozen) return this.view().copyInto(from, to, copies);
    const a = this.sorted ? this.lowerBound(from) : 0;
    const b = this.sorted ? this.lowerBound(to) : this.n;
    copies.add(this.window, this.sorted, this.dt, this.v, this.cx, a, b);
  }

  get size(): number {
    return this.n;
  }

  /** Points there is room for before the next growth. */
  get capacity(): number {
    return this.v.length;
  }

  /** Points the next window of this series will likely receive between checkpoints. */
  get roomWanted(): number {
    return Math.max(this.v.length, this.room);
  }

  append(t: number, s: Summary): void {
    if (this.frozen) this.thaw();
    this.version++;
    const n = this.n;
    const d = t - this.window;
    if (d < 0 || d >= 65536) throw new RangeError('time outside the head window');
    if (n > 0 && this.dt[n - 1] === d) {
      this.mergeLast(s);
      return;
    }
    const plain = isPlainSummary(s);
    if (!plain && !this.cx) this.expand();
    if (n > 0 && d < this.dt[n - 1]!) {
      this.sorted = false;
      this.rolled = null;
    }
    if (n === this.v.length) this.resize(n === 0 ? this.room : this.grownSize(d));
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

  /**
   * Room for the next points when the columns are full and `d` arrives. Half as much again,
   * unless the points so far came in order at a steady pace that leaves fewer before the
   * window ends: a series a minute apart fills 360 points a window, which growing by half
   * from 348 left at 530 (a day of backfill for 10,000 such series, loaded before a
   * checkpoint took it, held 16 bytes a point instead of 10).
   * Never less than an eighth more, so an estimate proved wrong still costs amortised
   * constant copying.
   */
  private grownSize(d: number): number {
    const n = this.n;
    const half = n + (n >> 1) + 8;
    if (!this.sorted || n < 8) return half;
    const step = (this.dt[n - 1]! - this.dt[0]!) / (n - 1);
    if (step < 1) return half;
    const left = Math.ceil((WINDOW - 1 - d) / step) + 1;
    return Math.min(half, n + Math.max(n >> 3, left + 8));
  }

  private resize(size: number): void {
    const { dt, v } = pointColumns(size);
    dt.set(this.dt);
    v.set(this.v);
    this.dt = dt;
    this.v = v;
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
    const cx = summaryColumns(size);
    for (let i = 0; i < this.n; i++) {
      cx.count[i] = 1;
      cx.min[i] = cx.max[i] = cx.last[i] = v[i]!;
      cx.sumsq[i] = v[i]! * v[i]!;
    }
    this.cx = cx;
  }

  /**
   * Encodes the points as the raw chunk a checkpoint would write for them and lets the
   * columns go: called once the series has moved on to a later window, which then takes
   * no points but late ones (an append thaws it) until a checkpoint writes it. A backfill
   * (or a replay) held every window it loaded in columns until then: the push
   * benchmark's day of 10,000 series a minute apart, 14.4 M points at ten bytes each,
   * where the chunk takes about two. The checkpoint writes this chunk as it is
   * (rawChunk); a read decodes it, or takes the bucket caches it left.
   */
  freeze(): void {
    if (this.frozen || !this.sorted || this.n < FREEZE_MIN) return;
    this.frozenOnMinutes = this.onWholeMinutes();
    // without summary columns every point is plain: only times and values to build and encode
    const plain = this.cx === null;
    this.frozen = encodeChunk(this.columns(0, this.n, plain ? 0 : ALL_COLUMNS), this.window, plain || undefined);
    this.room = Math.max(this.room, this.n);
    this.dt = NO_DT;
    this.v = NO_V;
    this.cx = null;
  }

  /**
   * Whether every point is known to be a plain sample: sorted columns without summary
   * columns (out of order, two points of one second merge into a summary).
   */
  get plain(): boolean {
    return !this.frozen && this.cx === null && this.sorted;
  }

  /** The frozen points as the raw chunk of their window (null unless frozen). */
  get rawChunk(): Buffer | null {
    return this.frozen;
  }

  /** Back to columns (for an append to a frozen window). */
  private thaw(): void {
    const thawed = this.decoded();
    this.frozen = null;
    this.dt = thawed.dt;
    this.v = thawed.v;
    this.cx = thawed.cx;
  }

  /** The frozen points as columns for one read, sharing these columns' bucket caches (and their clock). */
  private view(): Columns {
    const view = this.decoded();
    view.rolled = this.rolled ??= new Map();
    view.version = this.version;
    return view;
  }

  private decoded(): Columns {
    const p = decodeChunk(this.frozen!, this.window);
    const n = p.t.length;
    const w = this.window;
    const { dt, v } = pointColumns(n);
    for (let i = 0; i < n; i++) {
      dt[i] = p.t[i]! - w;
      v[i] = p.sum[i]!;
    }
    // a chunk of plain points decodes its min column as the sum column itself
    const cx = p.min === p.sum ? null : { count: Float64Array.from(p.count), min: Float64Array.from(p.min), max: Float64Array.from(p.max), last: Float64Array.from(p.last), sumsq: Float64Array.from(p.sumsq) };
    return new Columns(w, 0, { dt, v, cx, sorted: true });
  }

  /**
   * Frozen columns: appends the buckets of `step` with from <= t < to straight from the
   * cache reads left, if it holds them (a current cache, whole buckets asked for), as
   * rollCached would give them; false otherwise.
   */
  private cachedInto(from: number, to: number, step: number, out: PackedBuckets): boolean {
    const cache = this.rolled?.get(step);
    if (!cache || cache.version !== this.version || !onStep(from, step) || !onStep(to, step)) return false;
    const { buckets } = cache;
    out.append(buckets, buckets.lowerBound(from), buckets.lowerBound(to));
    return true;
  }

  /**
   * Hands the points to a checkpoint as a new Columns (with the buckets reads kept, which
   * describe those points) and empties these in place. With `keepArrays` the new Columns
   * hold an exact copy and these keep their arrays: a series' live columns stay where they
   * are for as long as its window is open. A fresh set of columns a series at every
   * checkpoint scattered the head's arrays over the heap, and appends in series order,
   * which met them one after another in memory after the first allocation, then met a
   * cache miss a column. Without it the arrays themselves go, and these start unallocated.
   */
  takeAll(keepArrays = true): Columns {
    const n = this.n;
    let taken: Columns;
    // summary columns are rare: the taken columns take them whole, and these start plain
    const cx = this.cx;
    if (this.frozen) {
      // no arrays to copy or keep: the chunk goes as it is
      taken = new Columns(this.window, 0, { dt: NO_DT, v: NO_V, cx: null, sorted: true });
      taken.frozen = this.frozen;
      taken.frozenOnMinutes = this.frozenOnMinutes;
      taken.n = n;
      this.frozen = null;
    } else if (keepArrays) {
      const { dt, v } = pointColumns(n);
      dt.set(this.dt.subarray(0, n));
      v.set(this.v.subarray(0, n));
      taken = new Columns(this.window, 0, { dt, v, cx, sorted: this.sorted });
    } else {
      // a window its series has moved on from (a backfill's, a replay's older ones) may
      // never see another point: its arrays go with the checkpoint, as they are
      taken = new Columns(this.window, 0, { dt: this.dt, v: this.v, cx, sorted: this.sorted });
      taken.n = n;
      this.dt = NO_DT;
      this.v = NO_V;
      this.room = INITIAL;
    }
    taken.rolled = this.rolled;
    taken.version = this.version;
    taken.firstSeq = this.firstSeq;
    taken.firstAppendMs = this.firstAppendMs;
    this.n = 0;
    this.cx = null;
    this.sorted = true;
    this.rolled = null;
    this.firstSeq = null;
    this.firstAppendMs = 0;
    // room for about as many as came (a burst does not keep a large array for the window)
    if (this.v.length > 2 * n + INITIAL) {
      this.room = Math.max(INITIAL, n);
      this.dt = NO_DT;
      this.v = NO_V;
    }
    return taken;
  }

  /**
   * Takes back points a checkpoint could not write (`taken`, from takeAll), ahead of what
   * arrived since: these columns then hold both, as if the checkpoint never ran.
   */
  giveBack(taken: Columns): void {
    const since = this.n ? this.points() : null;
    const sinceSeq = this.firstSeq;
    this.dt = taken.dt;
    this.v = taken.v;
    this.cx = taken.cx;
    this.n = taken.n;
    this.frozen = taken.frozen;
    this.frozenOnMinutes = taken.frozenOnMinutes;
    this.sorted = taken.sorted;
    this.rolled = taken.rolled;
    this.version = taken.version + 1;
    this.firstSeq = taken.firstSeq;
    this.firstAppendMs = taken.firstAppendMs;
    if (since) {
      this.load(since);
      if (sinceSeq !== null && (this.firstSeq === null || sinceSeq < this.firstSeq)) this.firstSeq = sinceSeq;
    }
  }

  /** Sorted points with equal times merged. */
  points(): Points {
    return this.range(-Infinity, Infinity, 0);
  }

  /**
   * Points with from <= t < to, sorted, equal times merged; with `step`, rolled up into
   * buckets of that many seconds. In-order chunks are cut without copying the rest.
   * `columns` (COLUMN bits): the summary columns wanted besides time and sum (for sorted
   * columns, the others are not built and hold anything).
   */
  range(from: number, to: number, step: number, columns = ALL_COLUMNS): Points {
    if (this.frozen) return step ? this.view().range(from, to, step, columns) : decodeChunk(this.frozen, this.window, from, to, columns);
    if (!this.sorted) {
      const all = sortMerge([this.columns(0, this.n)]);
      const cut = emptyPoints();
      for (let i = 0; i < all.t.length; i++) if (all.t[i]! >= from && all.t[i]! < to) copyPoint(cut, all, i);
      return step ? rollUp(cut, step) : cut;
    }
    if (!step) return this.columns(this.lowerBound(from), this.lowerBound(to), columns);
    const out = scratch.reset();
    if (CACHED_STEPS.includes(step)) this.rollCached(from, to, step, out);
    else this.rollInto(this.lowerBound(from), this.lowerBound(to), step, out);
    return unpack(out.buf, 0, out.size, columns);
  }

  /** Whether there are points and every one lies on a whole minute (a MINUTE_RAW part, keys.ts). */
  onWholeMinutes(): boolean {
    // window starts are whole minutes (multiples of 900 s even with the test knob), so the offset decides it
    if (this.frozen) return this.frozenOnMinutes;
    const { dt, n } = this;
    for (let i = 0; i < n; i++) if (dt[i]! % 60 !== 0) return false;
    return n > 0;
  }

  /**
   * All the points rolled up into buckets of `step`, as `range` gives them, for a
   * checkpoint: from the buckets reads kept, if any, but without keeping new ones. These
   * columns are being written and are read from here only until the write lands; a
   * bucket cache for each of 100,000 flushed series cost more than the roll-up itself.
   * `points`: the points, for frozen columns, where the caller may have decoded them already.
   */
  rolledUp(step: number, points: () => Points = () => this.points()): Points {
    if (this.frozen) {
      const out = scratch.reset();
      // rollUp folds the points in the order rollInto does: the same figures to the last bit
      return this.cachedInto(-Infinity, Infinity, step, out) ? unpack(out.buf, 0, out.size) : rollUp(points(), step);
    }
    if (!this.sorted || this.rolled?.has(step)) return this.range(-Infinity, Infinity, step);
    const out = scratch.reset();
    this.rollInto(0, this.n, step, out);
    return unpack(out.buf, 0, out.size);
  }

  /**
   * Appends the buckets of `step` with from <= t < to to `out`, as `range` would roll
   * them up (sorted or not). For a cached step, from the buckets earlier reads kept.
   */
  bucketsInto(from: number, to: number, step: number, out: PackedBuckets): void {
    if (this.frozen) {
      if (this.cachedInto(from, to, step, out)) return;
      // a cached step fills the cache for the reads after; another decodes only the points
      // asked for, into no columns (for a live read of the last hour grouped over 10,000
      // series, a view a window cost twice the read)
      if (CACHED_STEPS.includes(step)) return this.view().bucketsInto(from, to, step, out);
      out.pushPoints(rollUp(decodeChunk(this.frozen, this.window, from, to), step));
      return;
    }
    if (!this.sorted) {
      out.pushPoints(this.range(from, to, step));
      return;
    }
    if (CACHED_STEPS.includes(step)) this.rollCached(from, to, step, out);
    else this.rollInto(this.lowerBound(from), this.lowerBound(to), step, out);
  }

  /**
   * The buckets of a cached step (sorted columns): the whole buckets inside the range
   * come from the buckets earlier reads kept, the partial ones at its edges are rolled up
   * from the points. The columns are sorted, so a point can only join the last bucket or
   * start a new one: after appends, a read folds the last bucket again and the points
   * since; with none, nothing. Repeated hourly reads of live data stop rolling up every
   * raw point (issue 14). Every bucket is folded from the same points in the same order
   * as an uncached roll-up, so the figures are identical to the last bit.
   */
  private rollCached(from: number, to: number, step: number, out: PackedBuckets): void {
    const cached = this.cachedBuckets(step);
    // whole buckets: [first, end); the partial ones at the edges come from the points
    const first = from === -Infinity ? -Infinity : Math.ceil(from / step) * step;
    const end = to === Infinity ? Infinity : Math.floor(to / step) * step;
    if (first >= end) {
      this.rollInto(this.lowerBound(from), this.lowerBound(to), step, out);
      return;
    }
    this.rollInto(this.lowerBound(from), this.lowerBound(first), step, out);
    out.append(cached, cached.lowerBound(first), cached.lowerBound(end));
    this.rollInto(this.lowerBound(end), this.lowerBound(to), step, out);
  }

  /**
   * The buckets of `step` over all the points, brought up to date: the last one (it may
   * still grow) is folded again from its points after any append, the others are kept.
   */
  private cachedBuckets(step: number): PackedBuckets {
    this.rolled ??= new Map();
    let cache = this.rolled.get(step);
    if (!cache) this.rolled.set(step, (cache = { buckets: new PackedBuckets(4), upTo: 0, version: -1 }));
    const buckets = cache.buckets;
    if (cache.version !== this.version) {
      if (buckets.size) buckets.size--;
      this.rollInto(cache.upTo, this.n, step, buckets);
      if (buckets.size) cache.upTo = this.lowerBound(buckets.buf[(buckets.size - 1) * BUCKET]!);
      cache.version = this.version;
    }
    return buckets;
  }

  /** Appends buckets of `step` seconds of points [a, b) to `out` (sorted chunks only). */
  private rollInto(a: number, b: number, step: number, out: PackedBuckets): void {
    if (a >= b) return;
    const w = this.window;
    const dt = this.dt;
    const v = this.v;
    const cx = this.cx;
    // the open bucket, in locals; pushed when the next bucket starts. Times only grow, so
    // a point past the open bucket's end starts the next one: one modulo a bucket, not a
    // point (a floating-point modulo a point was most of a grouped read's head roll-up)
    let bucket = NaN;
    let end = -Infinity;
    let count = 0;
    let sum = 0;
    let min = 0;
    let max = 0;
    let last = 0;
    let sumsq = 0;
    // the columns are sorted: a bucket's last sample is its last point
    let lastT = 0;
    for (let i = a; i < b; i++) {
      const t = w + dt[i]!;
      const x = v[i]!;
      const c = cx ? cx.count[i]! : 1;
      const lo = cx ? cx.min[i]! : x;
      const hi = cx ? cx.max[i]! : x;
      if (t >= end) {
        if (count > 0) out.push(bucket, count, sum, min, max, last, sumsq, lastT);
        bucket = t - (t % step);
        end = bucket + step;
        count = c;
        sum = x;
        min = lo;
        max = hi;
        last = cx ? cx.last[i]! : x;
        sumsq = cx ? cx.sumsq[i]! : x * x;
        lastT = t;
        continue;
      }
      count += c;
      sum += x;
      if (lo < min) min = lo;
      if (hi > max) max = hi;
      last = cx ? cx.last[i]! : x;
      sumsq += cx ? cx.sumsq[i]! : x * x;
      lastT = t;
    }
    out.push(bucket, count, sum, min, max, last, sumsq, lastT);
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

  private columns(a: number, b: number, columns = ALL_COLUMNS): Points {
    const w = this.window;
    const t = new Array<number>(b - a);
    const sum = new Array<number>(b - a);
    for (let i = a; i < b; i++) {
      t[i - a] = w + this.dt[i]!;
      sum[i - a] = this.v[i]!;
    }
    const cx = this.cx;
    // raw points: each one's last sample is at its own time (the time column, never mutated in place)
    if (cx) {
      return {
        t, sum, count: Array.from(cx.count.subarray(a, b)), min: Array.from(cx.min.subarray(a, b)),
        max: Array.from(cx.max.subarray(a, b)), last: Array.from(cx.last.subarray(a, b)), sumsq: Array.from(cx.sumsq.subarray(a, b)), lastT: t,
      };
    }
    // plain points: min = max = last = the value (shared arrays, never mutated in place)
    const count = columns & COLUMN.count ? new Array<number>(b - a).fill(1) : sum;
    return { t, sum, count, min: sum, max: sum, last: sum, sumsq: columns & COLUMN.sumsq ? sum.map((x) => x * x) : sum, lastT: t };
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
  /**
   * The old-layout snapshot its points were loaded from (wal-replay.ts): deleted in the
   * batch that writes them as parts, so that no start loads them again beside the parts.
   */
  snapshotKey: string | null = null;
  /** checkpoints that took this window's points so far (each part's size limit differs: partPlace) */
  captures = 0;

  /** `capacity`: room for this many points before the first growth */
  constructor(readonly account: number, readonly series: number, readonly window: number, capacity?: number) {
    this.cols = new Columns(window, capacity);
  }

  /** Points the series' next window will likely receive between checkpoints. */
  get roomWanted(): number {
    return this.cols.roomWanted;
  }

  get size(): number {
    return this.cols.size;
  }

  /** `seq`: the WAL record holding the point; `now`: the time, read once a batch (43 ns a call was 2-3 % of ingest) */
  append(t: number, s: Summary, seq: number, now: number): void {
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
   * Hands the points received so far to a checkpoint: a copy while the window is its
   * series' current one (`live`), whose columns go on receiving; the arrays themselves
   * otherwise, as a window the series has moved on from may never fill them again.
   */
  capture(live = true): Columns {
    this.captures++;
    const taken = this.cols.takeAll(live);
    this.flushing = taken;
    return taken;
  }

  /** The series has moved on to a later window: the points waiting here are kept as a chunk (Columns.freeze). */
  freeze(): void {
    this.cols.freeze();
  }

  /** A checkpoint that could not write its columns gives them back (before what came since). */
  restore(): void {
    const taken = this.flushing;
    if (!taken) return;
    this.flushing = null;
    this.cols.giveBack(taken);
  }

  /** Copies what is held here with from <= t < to into `copies` (being written, then received since). */
  copyInto(from: number, to: number, copies: ColumnCopies): void {
    if (this.flushing && this.flushing.size) this.flushing.copyInto(from, to, copies);
    if (this.cols.size) this.cols.copyInto(from, to, copies);
  }

  /** Appends the buckets of `step` held here with from <= t < to to `out` (being written, then received since). */
  bucketsInto(from: number, to: number, step: number, out: PackedBuckets): void {
    if (this.flushing && this.flushing.size) this.flushing.bucketsInto(from, to, step, out);
    if (this.cols.size) this.cols.bucketsInto(from, to, step, out);
  }

  /** Loads points (from a snapshot of the old layout) as if appended in order. */
  load(p: Points): void {
    this.cols.load(p);
  }
}

/**
 * Head chunks by series: a series' open windows in an array (one, except around a window
 * boundary or for late points). A Map of windows a series cost about 250 bytes of heap
 * more than the array, for every series held.
 */
export class Head {
  readonly series = new Map<number, HeadChunk[]>();

  /** The series' open windows, in no particular order; not to be kept (it changes). */
  get(series: number): readonly HeadChunk[] | undefined {
    return this.series.get(series);
  }

  /** Whether the head holds this window of the series. */
  has(series: number, window: number): boolean {
    const chunks = this.series.get(series);
    return chunks !== undefined && chunks.some((c) => c.window === window);
  }

  /** The series' window, opened with room for `capacity` points if new. */
  chunk(account: number, series: number, window: number, capacity?: number): HeadChunk {
    const chunks = this.series.get(series);
    if (chunks) for (const c of chunks) if (c.window === window) return c;
    const c = new HeadChunk(account, series, window, capacity);
    // a literal of one: push onto an empty array reserves room for 17
    if (chunks) chunks.push(c);
    else this.series.set(series, [c]);
    return c;
  }

  remove(chunk: HeadChunk): void {
    const chunks = this.series.get(chunk.series);
    const at = chunks ? chunks.indexOf(chunk) : -1;
    if (at < 0) return;
    chunks!.splice(at, 1);
    if (chunks!.length === 0) this.series.delete(chunk.series);
  }

  *chunks(): Generator<HeadChunk> {
    for (const chunks of this.series.values()) yield* chunks;
  }
}
