// One condition over the points of its streams at one moment: pure functions, no I/O, so
// the engine and the tests (and a preview over past data) share them. A stream is
// `violating`, `ok`, or has `nodata` (nothing to judge by: its earlier verdict stands).
//   above / below, no duration: the latest point received since tracking began decides.
//   above / below, with duration: the latest point violates, and so has every point back
//     to one at least `duration` older than it (the violating run spans the duration, and
//     began after tracking began: the spec's "tracking starts with samples received after
//     creation or update").
//   absent: a stream that reported (since tracking began, or within `duration` before)
//     and has no point in the last `duration` seconds.
import type { ConditionRecord } from '../domain/alerts.js';
import type { Points } from '../tsdb/engine.js';

export type Verdict =
  | { kind: 'violating'; value: number; recorded_at: number; count?: number; begin?: number; end?: number }
  | { kind: 'ok' }
  | { kind: 'nodata' };

/** The value of each point by the condition's summary function (derivative: from the point before). */
export function pointValues(c: ConditionRecord, p: Points): { t: number[]; v: number[] } {
  const t: number[] = [];
  const v: number[] = [];
  for (let i = 0; i < p.t.length; i++) {
    const mean = p.sum[i]! / p.count[i]!;
    let x: number;
    switch (c.summary_function) {
      case 'min': x = p.min[i]!; break;
      case 'max': x = p.max[i]!; break;
      case 'sum': x = p.sum[i]!; break;
      case 'count': x = p.count[i]!; break;
      case 'average': x = mean; break;
      case 'derivative': {
        if (i === 0) continue;
        const d = p.last[i]! - p.last[i - 1]!;
        // detect_reset: a decrease is a counter reset and reports zero
        x = c.detect_reset && d < 0 ? 0 : d;
        break;
      }
    }
    t.push(p.t[i]!);
    v.push(x);
  }
  return { t, v };
}

function violates(c: ConditionRecord, x: number): boolean {
  return c.type === 'above' ? x > c.threshold! : x < c.threshold!;
}

/**
 * The verdict for one stream (or one group) of an above/below condition at `now`, from its
 * raw points, which must reach back at least `duration` (and one point more for derivative).
 */
export function thresholdVerdict(c: ConditionRecord, p: Points, now: number, trackingFrom: number): Verdict {
  const { t, v } = pointValues(c, p);
  let last = t.length - 1;
  while (last >= 0 && t[last]! > now) last--;
  if (last < 0 || t[last]! < trackingFrom) return { kind: 'nodata' };
  if (!violates(c, v[last]!)) return { kind: 'ok' };
  if (c.duration === null) return { kind: 'violating', value: v[last]!, recorded_at: t[last]! };
  let first = last;
  while (first > 0 && t[first - 1]! >= trackingFrom && violates(c, v[first - 1]!)) first--;
  // not violating for long enough yet: the violating points must span the duration, so a
  // lone point (or a short run) followed by silence is never taken for a whole duration
  if (t[first]! > t[last]! - c.duration) return { kind: 'ok' };
  return { kind: 'violating', value: v[last]!, recorded_at: t[last]!, count: last - first + 1, begin: t[first]!, end: t[last]! };
}

/**
 * The verdict for one stream of an absent condition: `latest` is its newest point time at
 * or before now (or null when it has none since it could count as having reported).
 */
export function absentVerdict(c: ConditionRecord, latest: number | null, now: number): Verdict {
  if (latest === null) return { kind: 'nodata' };
  if (latest > now - c.duration!) return { kind: 'ok' };
  return { kind: 'violating', value: now - latest, recorded_at: latest };
}

/** Librato's stream identity in payloads: `tag=value` pairs sorted by tag, comma-joined. */
export function streamKey(tags: readonly (readonly [string, string])[]): string {
  return [...tags].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join(',');
}
