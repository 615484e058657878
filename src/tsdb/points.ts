// Points as summaries, column by column: every point carries count, sum, min, max, last
// and the sum of squares, so every summary function works at every tier, and two points
// (or two partial chunks) for the same time merge without loss. A point also carries the
// time of the sample its `last` came from (`lastT`): a roll-up bucket split across two
// parts (a late sample written after its bucket was checkpointed) takes its `last` from
// the part holding the later sample, not from the part written later.
import type { Summary } from './sample.js';

export interface Points {
  t: number[];
  count: number[];
  sum: number[];
  min: number[];
  max: number[];
  last: number[];
  sumsq: number[];
  /**
   * When the sample `last` holds was taken: the point's own time for a raw point, up to
   * a step later for a bucket. Read and written with `last` (COLUMN.last); may be the
   * time column itself in points only read, never in points merged into.
   */
  lastT: number[];
}

/**
 * Summary columns a read may skip, a bit each (time and sum are always read): a read for
 * `mean` needs count and sum only, and decoding min, max, last and sumsq as well cost it
 * most of its decoding time. A column not asked for holds anything (it may be the sum
 * column itself).
 */
export const COLUMN = { count: 1, min: 2, max: 4, last: 8, sumsq: 16 } as const;
export const ALL_COLUMNS = 31;

export function emptyPoints(): Points {
  return { t: [], count: [], sum: [], min: [], max: [], last: [], sumsq: [], lastT: [] };
}

/** `lastT`: when the sample `s.last` holds was taken (the point's time for a raw sample). */
export function pushPoint(p: Points, t: number, s: Summary, lastT = t): void {
  p.t.push(t);
  p.count.push(s.count);
  p.sum.push(s.sum);
  p.min.push(s.min);
  p.max.push(s.max);
  p.last.push(s.last);
  p.sumsq.push(s.sumsq);
  p.lastT.push(lastT);
}

/** Points [start, end) of `p`, copied. */
export function slicePoints(p: Points, start: number, end = p.t.length): Points {
  return { t: p.t.slice(start, end), count: p.count.slice(start, end), sum: p.sum.slice(start, end), min: p.min.slice(start, end), max: p.max.slice(start, end), last: p.last.slice(start, end), sumsq: p.sumsq.slice(start, end), lastT: p.lastT.slice(start, end) };
}

/**
 * Merges point j of `src` into point i of `dst` (same time; src written later). `last`
 * goes to the later sample; between samples of one second, to the later write.
 */
export function mergeInto(dst: Points, i: number, src: Points, j: number): void {
  dst.count[i]! += src.count[j]!;
  dst.sum[i]! += src.sum[j]!;
  if (src.min[j]! < dst.min[i]!) dst.min[i] = src.min[j]!;
  if (src.max[j]! > dst.max[i]!) dst.max[i] = src.max[j]!;
  if (src.lastT[j]! >= dst.lastT[i]!) {
    dst.last[i] = src.last[j]!;
    dst.lastT[i] = src.lastT[j]!;
  }
  dst.sumsq[i]! += src.sumsq[j]!;
}

/**
 * Points sorted by time with equal times merged. `parts` are in write order, so a later
 * part's `last` wins; within a part, a later index is a later write.
 */
export function sortMerge(parts: Points[]): Points {
  const filled = parts.filter((p) => p.t.length > 0);
  if (filled.length === 0) return emptyPoints();
  // the common cases: one in-order part, or in-order parts one after another
  let disjoint = true;
  for (let i = 0; i < filled.length && disjoint; i++) {
    const t = filled[i]!.t;
    if (!isStrictlySorted(t) || (i > 0 && filled[i - 1]!.t[filled[i - 1]!.t.length - 1]! >= t[0]!)) disjoint = false;
  }
  if (disjoint) return filled.length === 1 ? filled[0]! : concat(filled);
  if (filled.every((p) => isStrictlySorted(p.t))) return mergeSorted(filled);
  const order: { part: number; idx: number; t: number }[] = [];
  for (let p = 0; p < parts.length; p++) {
    const pt = parts[p]!.t;
    for (let i = 0; i < pt.length; i++) order.push({ part: p, idx: i, t: pt[i]! });
  }
  // stable sort keeps write order among equal times
  order.sort((a, b) => a.t - b.t);
  const out = emptyPoints();
  for (const o of order) {
    const src = parts[o.part]!;
    const n = out.t.length;
    if (n > 0 && out.t[n - 1] === o.t) mergeInto(out, n - 1, src, o.idx);
    else copyPoint(out, src, o.idx);
  }
  return out;
}

/**
 * Sorted parts merged k ways, without an object per point: at equal times the earlier
 * part's point comes first and a later part's merges into it, as the stable sort orders
 * them (so the same additions in the same order). The common overlap: a bucket split
 * across two checkpoints, in a stored part and in the head.
 */
function mergeSorted(parts: Points[]): Points {
  const at = new Array<number>(parts.length).fill(0);
  const out = emptyPoints();
  for (;;) {
    let best = -1;
    let time = Infinity;
    for (let p = 0; p < parts.length; p++) {
      const t = parts[p]!.t[at[p]!];
      if (t !== undefined && t < time) {
        time = t;
        best = p;
      }
    }
    if (best < 0) return out;
    const n = out.t.length;
    if (n > 0 && out.t[n - 1] === time) mergeInto(out, n - 1, parts[best]!, at[best]!);
    else copyPoint(out, parts[best]!, at[best]!);
    at[best]!++;
  }
}

function concat(parts: Points[]): Points {
  let total = 0;
  for (const p of parts) total += p.t.length;
  const t = new Array<number>(total);
  const sum = new Array<number>(total);
  // a column that is the sum column itself in every part (one a read did not ask for, or
  // min, max and last of plain points) stays so here: five copies fewer a series
  const column = (of: (p: Points) => number[]): number[] => (parts.every((p) => of(p) === p.sum) ? sum : new Array<number>(total));
  const out: Points = { t, sum, count: column((p) => p.count), min: column((p) => p.min), max: column((p) => p.max), last: column((p) => p.last), sumsq: column((p) => p.sumsq), lastT: column((p) => p.lastT) };
  let at = 0;
  for (const p of parts) {
    for (let i = 0; i < p.t.length; i++, at++) {
      t[at] = p.t[i]!;
      sum[at] = p.sum[i]!;
    }
  }
  const fill = (dst: number[], of: (p: Points) => number[]) => {
    if (dst === sum) return;
    let k = 0;
    for (const p of parts) {
      const src = of(p);
      for (let i = 0; i < p.t.length; i++, k++) dst[k] = src[i]!;
    }
  };
  fill(out.count, (p) => p.count);
  fill(out.min, (p) => p.min);
  fill(out.max, (p) => p.max);
  fill(out.last, (p) => p.last);
  fill(out.sumsq, (p) => p.sumsq);
  fill(out.lastT, (p) => p.lastT);
  return out;
}

/**
 * Appends the points of `src` to `out` (whose columns not read are its sum column, as
 * chunk.ts's pointsFor makes them) if their times never go back, from out's last on: a
 * time equal to the one before merges into it, as sortMerge merges a later write into
 * an earlier one. That is the head's points after a read's stored parts, and the head's
 * two halves (being written, received since): a 60 s bucket split between them at a
 * checkpoint is common, and sent every such series through a k-way merge that copied
 * all its points one by one. Returns false, appending nothing, if a time goes back.
 */
export function appendInOrder(out: Points, src: Points): boolean {
  const n = src.t.length;
  if (n === 0) return true;
  const st = src.t;
  const lastT = out.t.length > 0 ? out.t[out.t.length - 1]! : -Infinity;
  if (st[0]! < lastT) return false;
  let strictly = st[0]! > lastT;
  for (let i = 1; i < n; i++) {
    if (st[i]! < st[i - 1]!) return false;
    if (st[i] === st[i - 1]) strictly = false;
  }
  if (!strictly) {
    for (let i = 0; i < n; i++) {
      if (out.t.length > 0 && out.t[out.t.length - 1] === st[i]) mergeWanted(out, out.t.length - 1, src, i);
      else pushWanted(out, src, i);
    }
    return true;
  }
  const push = (dst: number[], from: number[]) => { for (let i = 0; i < n; i++) dst.push(from[i]!); };
  push(out.t, st);
  push(out.sum, src.sum);
  if (out.count !== out.sum) push(out.count, src.count);
  if (out.min !== out.sum) push(out.min, src.min);
  if (out.max !== out.sum) push(out.max, src.max);
  if (out.last !== out.sum) {
    push(out.last, src.last);
    push(out.lastT, src.lastT);
  }
  if (out.sumsq !== out.sum) push(out.sumsq, src.sumsq);
  return true;
}

/**
 * After sorted, distinct points were appended to `out` from index `start` on (one chunk
 * part, chunk.ts's decodeChunkInto): merges the first of them into the point before when
 * their times are equal (a bucket split between two parts of a window). Returns false if
 * the first comes before it: the parts overlap, only sortMerge orders them, and `out`,
 * left as it is, must be thrown away.
 */
export function mergeSeam(out: Points, start: number): boolean {
  if (start === 0 || start >= out.t.length) return true;
  const before = out.t[start - 1]!;
  const first = out.t[start]!;
  if (first > before) return true;
  if (first < before) return false;
  mergeWanted(out, start - 1, out, start);
  for (const col of wantedColumns(out)) col.splice(start, 1);
  return true;
}

/** The distinct arrays of `p`: time, sum and the columns that are not the sum column. */
function wantedColumns(p: Points): number[][] {
  const out = [p.t, p.sum];
  for (const col of [p.count, p.min, p.max, p.last, p.sumsq, p.lastT]) if (col !== p.sum) out.push(col);
  return out;
}

/** mergeInto for `dst` whose columns not read are its sum column: only the others change. */
function mergeWanted(dst: Points, i: number, src: Points, j: number): void {
  const sum = dst.sum;
  if (dst.count !== sum) dst.count[i]! += src.count[j]!;
  if (dst.min !== sum && src.min[j]! < dst.min[i]!) dst.min[i] = src.min[j]!;
  if (dst.max !== sum && src.max[j]! > dst.max[i]!) dst.max[i] = src.max[j]!;
  if (dst.last !== sum && src.lastT[j]! >= dst.lastT[i]!) {
    dst.last[i] = src.last[j]!;
    dst.lastT[i] = src.lastT[j]!;
  }
  if (dst.sumsq !== sum) dst.sumsq[i]! += src.sumsq[j]!;
  sum[i]! += src.sum[j]!;
}

/** copyPoint for `dst` whose columns not read are its sum column. */
function pushWanted(dst: Points, src: Points, i: number): void {
  const sum = dst.sum;
  dst.t.push(src.t[i]!);
  if (dst.count !== sum) dst.count.push(src.count[i]!);
  if (dst.min !== sum) dst.min.push(src.min[i]!);
  if (dst.max !== sum) dst.max.push(src.max[i]!);
  if (dst.last !== sum) {
    dst.last.push(src.last[i]!);
    dst.lastT.push(src.lastT[i]!);
  }
  if (dst.sumsq !== sum) dst.sumsq.push(src.sumsq[i]!);
  sum.push(src.sum[i]!);
}

export function copyPoint(dst: Points, src: Points, i: number): void {
  dst.t.push(src.t[i]!);
  dst.count.push(src.count[i]!);
  dst.sum.push(src.sum[i]!);
  dst.min.push(src.min[i]!);
  dst.max.push(src.max[i]!);
  dst.last.push(src.last[i]!);
  dst.sumsq.push(src.sumsq[i]!);
  dst.lastT.push(src.lastT[i]!);
}

function alignedTo(t: number[], step: number): boolean {
  for (let i = 0; i < t.length; i++) if (t[i]! % step !== 0 || (i > 0 && t[i]! <= t[i - 1]!)) return false;
  return true;
}

/** Whether points are already sorted with distinct times (the common, in-order case). */
export function isStrictlySorted(t: number[]): boolean {
  for (let i = 1; i < t.length; i++) if (t[i]! <= t[i - 1]!) return false;
  return true;
}

/** Buckets of `step` seconds (times floored), each the merge of its points. Input sorted. */
export function rollUp(p: Points, step: number): Points {
  if (alignedTo(p.t, step)) return p; // already one point a bucket
  const out = emptyPoints();
  for (let i = 0; i < p.t.length; i++) {
    const t = p.t[i]!;
    const b = Math.floor(t / step) * step;
    const n = out.t.length;
    if (n > 0 && out.t[n - 1] === b) mergeInto(out, n - 1, p, i);
    else {
      copyPoint(out, p, i);
      out.t[n] = b;
    }
  }
  return out;
}
