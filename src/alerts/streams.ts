// The streams of one condition and their verdicts at one moment, read from the series
// store: what the engine evaluates on each tick and what a preview evaluates at each step.
import type { ConditionRecord } from '../domain/alerts.js';
import type { Points, ReadOptions, SeriesRef, SeriesStore } from '../tsdb/engine.js';
import type { TagExpr } from '../tsdb/tag-expr.js';
import { rollUp, slicePoints, sortMerge } from '../tsdb/points.js';
import { canonicalMetricName } from '../domain/names.js';
import { tagsMapToExpr } from '../query/filter.js';
import { absentVerdict, streamKey, thresholdVerdict, type Verdict } from './evaluate.js';

/** How far back a stream's points are read beyond a condition's duration. */
const LOOKBACK = 3600;
/** The longest raw read of any condition (duration at most 3600 s). */
export const MAX_READ_SPAN = 3600 + LOOKBACK;
/** Tag filters compiled once per condition (their globs are regular expressions). */
const exprs = new WeakMap<ConditionRecord, TagExpr>();
/**
 * The alert engine's checks wait for a wide read's turn rather than skip a round
 * (limits.wide_reads); a preview, an HTTP request like any query, does not.
 */
export const PATIENT: ReadOptions = { patient: true };
/** Streams quiet for longer than this are no longer looked for (auto-clear's horizon). */
export const AUTO_CLEAR_SECONDS = 10 * 86400;

/** The streams a condition watches. */
export function conditionRefs(series: SeriesStore, account: number, c: ConditionRecord): SeriesRef[] {
  let expr = exprs.get(c);
  if (!expr) {
    // a tag named twice: its patterns OR'ed, as in a query's `tags` (a Map built straight
    // from the list kept only the last filter, and the first one's streams went unwatched)
    const patterns = new Map<string, string[]>();
    for (const t of c.tags) patterns.set(t.name, [...(patterns.get(t.name) ?? []), ...t.values]);
    exprs.set(c, (expr = tagsMapToExpr(patterns)));
  }
  return series.select(account, canonicalMetricName(c.metric_name), expr);
}

const spanOf = (c: ConditionRecord) => (c.duration ?? 0) + LOOKBACK;

/**
 * The raw reads of one evaluation round, one per account and span: a thousand alerts on
 * one metric read it with one call, not a thousand (each read is a LevelDB round trip).
 */
export class RoundReads {
  private readonly wanted = new Map<string, { account: number; span: number; ids: Set<number> }>();
  private readonly got = new Map<string, Map<number, Points>>();

  constructor(private readonly series: SeriesStore, private readonly now: number) {}

  /** Notes what a condition will read. */
  plan(account: number, c: ConditionRecord): void {
    const key = `${account}:${spanOf(c)}`;
    let w = this.wanted.get(key);
    if (!w) this.wanted.set(key, (w = { account, span: spanOf(c), ids: new Set() }));
    for (const r of conditionRefs(this.series, account, c)) w.ids.add(r.id);
  }

  async fetch(): Promise<void> {
    for (const [key, w] of this.wanted) {
      const ids = [...w.ids];
      const points = ids.length ? await this.series.read(w.account, ids, 0, this.now - w.span, this.now + 1, PATIENT) : [];
      this.got.set(key, new Map(ids.map((id, i) => [id, points[i]!])));
    }
  }

  /** The raw points of these series for a condition, if this round read them all. */
  raw(account: number, c: ConditionRecord, refs: readonly SeriesRef[]): Points[] | null {
    const got = this.got.get(`${account}:${spanOf(c)}`);
    if (!got || !refs.every((r) => got.has(r.id))) return null;
    return refs.map((r) => got.get(r.id)!);
  }
}

/** The verdict of each stream (or the group) of one condition, and the newest point seen. */
export async function conditionVerdicts(
  series: SeriesStore, account: number, c: ConditionRecord, now: number, trackingFrom: number, reads: RoundReads | null = null, opts: ReadOptions = {},
): Promise<{ verdicts: Map<string, Verdict>; newest: number | null }> {
  const refs = conditionRefs(series, account, c);
  const verdicts = new Map<string, Verdict>();
  if (refs.length === 0) return { verdicts, newest: null };
  const span = spanOf(c);
  const raw = reads?.raw(account, c, refs) ?? await series.read(account, refs.map((r) => r.id), 0, now - span, now + 1, opts);
  let newest: number | null = null;
  for (const p of raw) {
    const t = p.t[p.t.length - 1];
    if (t !== undefined && (newest === null || t > newest)) newest = t;
  }
  if (c.type === 'absent') {
    // streams silent for longer than the raw read: their last point, from the 60 s tier
    const quiet = refs.filter((_, i) => raw[i]!.t.length === 0);
    const older = quiet.length ? await series.read(account, quiet.map((r) => r.id), 60, Math.max(trackingFrom - c.duration!, now - AUTO_CLEAR_SECONDS), now - span, opts) : [];
    const latestOf = new Map(quiet.map((r, i) => [r.id, older[i]!.t[older[i]!.t.length - 1] ?? null]));
    const reported = (latest: number | null) => (latest !== null && latest >= trackingFrom - c.duration! ? latest : null);
    const latests = refs.map((r, i) => {
      const p = raw[i]!;
      return p.t.length ? p.t[p.t.length - 1]! : latestOf.get(r.id) ?? null;
    });
    if (c.tags.some((t) => t.grouped)) {
      // one group, as for above/below: absent only when none of its streams has reported
      let latest: number | null = null;
      for (const l of latests) if (l !== null && (latest === null || l > latest)) latest = l;
      verdicts.set(groupKey(c), absentVerdict(c, reported(latest), now));
    } else {
      refs.forEach((r, i) => verdicts.set(streamKey(r.tags), absentVerdict(c, reported(latests[i] ?? null), now)));
    }
    return { verdicts, newest };
  }
  if (c.tags.some((t) => t.grouped)) {
    const group = c.summary_function === 'derivative' ? groupChange(raw, now, c.detect_reset) : groupPoints(raw, now);
    verdicts.set(groupKey(c), thresholdVerdict(c, group, now, trackingFrom));
  } else {
    refs.forEach((r, i) => verdicts.set(streamKey(r.tags), thresholdVerdict(c, raw[i]!, now, trackingFrom)));
  }
  return { verdicts, newest };
}

/** The period a grouped condition's streams are combined over (a tagged metric's default). */
const GROUP_PERIOD = 60;

/**
 * A grouped condition's streams as one: summed up per minute, as a query's group_by
 * combines them, each minute dated by its newest sample (the time a payload reports, and
 * the one tracking and duration are judged by). Merged per timestamp instead, hosts that
 * report at different seconds were never combined: the newest "group" point was one
 * host's. Points ahead of `now` are left out, as thresholdVerdict leaves them.
 */
export function groupPoints(raw: readonly Points[], now: number): Points {
  const newest = new Map<number, number>();
  const cut = raw.map((p) => {
    const upToNow = pointsUpTo(p, now);
    for (const t of upToNow.t) {
      const bucket = t - (t % GROUP_PERIOD);
      if (!(newest.get(bucket)! >= t)) newest.set(bucket, t);
    }
    return upToNow;
  });
  const merged = sortMerge(cut.map((p) => rollUp(p, GROUP_PERIOD)));
  // a new object: the merge may hand back a part that this round's other conditions share
  return { ...merged, t: merged.t.map((b) => newest.get(b)!) };
}

/**
 * A grouped derivative condition's streams as one: the group points of groupPoints whose
 * `last` runs up by the sum of each stream's change from its previous minute (with
 * detect_reset, a stream's decrease adds 0), so that the derivative of the group is the
 * sum of the streams' derivatives, as a query's group_by sums them. The group point's own
 * `last` is one host's value (whichever reported last in the minute): its derivative
 * jumped by the difference between two hosts' counters.
 */
export function groupChange(raw: readonly Points[], now: number, detectReset: boolean): Points {
  const change = new Map<number, number>();
  for (const p of raw) {
    const minutes = rollUp(pointsUpTo(p, now), GROUP_PERIOD);
    for (let i = 1; i < minutes.t.length; i++) {
      const d = minutes.last[i]! - minutes.last[i - 1]!;
      change.set(minutes.t[i]!, (change.get(minutes.t[i]!) ?? 0) + (detectReset && d < 0 ? 0 : d));
    }
  }
  const group = groupPoints(raw, now);
  let total = 0;
  return { ...group, last: group.t.map((t) => (total += change.get(t - (t % GROUP_PERIOD)) ?? 0)) };
}

/** The points at or before `now` (thresholdVerdict leaves later ones out too). */
function pointsUpTo(p: Points, now: number): Points {
  let n = p.t.length;
  while (n > 0 && p.t[n - 1]! > now) n--;
  return n === p.t.length ? p : slicePoints(p, 0, n);
}

/** A grouped condition's one stream is named by its filter: `host=web*,region=eu`. */
function groupKey(c: ConditionRecord): string {
  return streamKey(c.tags.map((t) => [t.name, t.values.join('|')] as const));
}
