// Points as summaries, column by column: every point carries count, sum, min, max, last
// and the sum of squares, so every summary function works at every tier, and two points
// (or two partial chunks) for the same time merge without loss.

export interface Points {
  t: number[];
  count: number[];
  sum: number[];
  min: number[];
  max: number[];
  last: number[];
  sumsq: number[];
}

export function emptyPoints(): Points {
  return { t: [], count: [], sum: [], min: [], max: [], last: [], sumsq: [] };
}

/** One summary point; `last` of the later-written point wins on merge. */
export interface Summary {
  count: number;
  sum: number;
  min: number;
  max: number;
  last: number;
  sumsq: number;
}

export function pushPoint(p: Points, t: number, s: Summary): void {
  p.t.push(t);
  p.count.push(s.count);
  p.sum.push(s.sum);
  p.min.push(s.min);
  p.max.push(s.max);
  p.last.push(s.last);
  p.sumsq.push(s.sumsq);
}

/** Merges point j of `src` into point i of `dst` (same time; src written later). */
export function mergeInto(dst: Points, i: number, src: Points, j: number): void {
  dst.count[i]! += src.count[j]!;
  dst.sum[i]! += src.sum[j]!;
  if (src.min[j]! < dst.min[i]!) dst.min[i] = src.min[j]!;
  if (src.max[j]! > dst.max[i]!) dst.max[i] = src.max[j]!;
  dst.last[i] = src.last[j]!;
  dst.sumsq[i]! += src.sumsq[j]!;
}

/**
 * Points sorted by time with equal times merged. `parts` are in write order, so a later
 * part's `last` wins; within a part, a later index is a later write.
 */
export function sortMerge(parts: Points[]): Points {
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

export function copyPoint(dst: Points, src: Points, i: number): void {
  dst.t.push(src.t[i]!);
  dst.count.push(src.count[i]!);
  dst.sum.push(src.sum[i]!);
  dst.min.push(src.min[i]!);
  dst.max.push(src.max[i]!);
  dst.last.push(src.last[i]!);
  dst.sumsq.push(src.sumsq[i]!);
}

/** Whether points are already sorted with distinct times (the common, in-order case). */
export function isStrictlySorted(t: number[]): boolean {
  for (let i = 1; i < t.length; i++) if (t[i]! <= t[i - 1]!) return false;
  return true;
}

/** Buckets of `step` seconds (times floored), each the merge of its points. Input sorted. */
export function rollUp(p: Points, step: number, from = 0, to = Infinity): Points {
  const out = emptyPoints();
  for (let i = 0; i < p.t.length; i++) {
    const t = p.t[i]!;
    if (t < from || t >= to) continue;
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

/** Points with from <= t < to. Input sorted. */
export function slice(p: Points, from: number, to: number): Points {
  let a = 0;
  while (a < p.t.length && p.t[a]! < from) a++;
  let b = a;
  while (b < p.t.length && p.t[b]! < to) b++;
  return {
    t: p.t.slice(a, b), count: p.count.slice(a, b), sum: p.sum.slice(a, b), min: p.min.slice(a, b),
    max: p.max.slice(a, b), last: p.last.slice(a, b), sumsq: p.sumsq.slice(a, b),
  };
}
