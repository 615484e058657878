// POST /v1/alerts/preview: an alert's conditions replayed over stored data, step by step,
// with the engine's own verdicts: when it would have triggered and cleared, and when each
// stream violated. Tracking starts at the preview's start, as it would at creation.
import type { ConditionRecord } from '../domain/alerts.js';
import type { SeriesStore } from '../tsdb/engine.js';
import type { Violation } from '../notifiers/plugin.js';
import { conditionRefs, conditionVerdicts } from './streams.js';
import { paramErrors } from '../errors.js';

/**
 * Each step reads every condition's streams over its span again: what one preview may
 * cost, counted before anything is read (the route bounds the steps alone).
 */
export const MAX_PREVIEW_READS = 15_000;
/** steps x streams, summed over the conditions */
export const MAX_PREVIEW_EVALUATIONS = 1_000_000;

export interface PreviewEvent {
  time: number;
  kind: 'trigger' | 'clear';
  /** at a trigger: the violations, by stream */
  violations?: Record<string, Violation[]>;
}

export interface StreamPeriod {
  condition: number;
  begin: number;
  /** null: still violating at the end */
  end: number | null;
}

export interface Preview {
  start_time: number;
  end_time: number;
  step: number;
  events: PreviewEvent[];
  streams: Record<string, StreamPeriod[]>;
}

export async function previewAlert(
  series: SeriesStore, account: number, conditions: ConditionRecord[], start: number, end: number, step: number,
): Promise<Preview> {
  const steps = Math.floor((end - start) / step);
  const reads = steps * conditions.length;
  const evaluations = steps * conditions.reduce((n, c) => n + Math.max(1, conditionRefs(series, account, c).length), 0);
  if (reads > MAX_PREVIEW_READS || evaluations > MAX_PREVIEW_EVALUATIONS) {
    throw paramErrors({
      step: [`the preview would take ${reads} reads (steps x conditions, at most ${MAX_PREVIEW_READS}) and ${evaluations} evaluations (steps x streams, at most ${MAX_PREVIEW_EVALUATIONS}): use a larger step, a shorter range, fewer conditions or narrower tag filters`],
    });
  }
  const violating = new Map<number, Map<string, Violation>>(conditions.map((c) => [c.id, new Map()]));
  const streams: Record<string, StreamPeriod[]> = {};
  const events: PreviewEvent[] = [];
  let firing = false;
  for (let now = start + step; now <= end; now += step) {
    for (const c of conditions) {
      const found = violating.get(c.id)!;
      const { verdicts } = await conditionVerdicts(series, account, c, now, start);
      for (const [stream, v] of verdicts) {
        const periods = (streams[stream] ??= []);
        const open = periods.find((p) => p.condition === c.id && p.end === null);
        if (v.kind === 'violating') {
          found.set(stream, {
            metric: c.metric_name, value: v.value, recorded_at: v.recorded_at, condition_violated: c.id,
            ...(v.count !== undefined ? { count: v.count, begin: v.begin, end: v.end } : {}),
          });
          if (!open) periods.push({ condition: c.id, begin: now, end: null });
        } else if (v.kind === 'ok') {
          found.delete(stream);
          if (open) open.end = now;
        }
      }
    }
    const holds = conditions.every((c) => violating.get(c.id)!.size > 0);
    if (holds && !firing) {
      const byStream: Record<string, Violation[]> = {};
      for (const found of violating.values()) for (const [stream, v] of found) (byStream[stream] ??= []).push(v);
      events.push({ time: now, kind: 'trigger', violations: byStream });
    } else if (!holds && firing) {
      events.push({ time: now, kind: 'clear' });
    }
    firing = holds;
  }
  return { start_time: start, end_time: end, step, events, streams };
}
