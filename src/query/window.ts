// start_time / end_time / duration / resolution rules and the tier choice: the coarsest
// stored tier whose step divides the resolution and whose retention still covers the
// start; the raw tier serves any resolution within its retention. None: the 400 of
// librato-api-notes §7.
import { ApiError, paramErrors, fieldErrors } from '../errors.js';
import type { Tier } from '../tsdb/engine.js';
import type { Retention } from '../tsdb/retention.js';
import { FUTURE_SLACK_SECONDS } from '../domain/measure-times.js';

export const MAX_RESOLUTION = 604800;
export const UNAVAILABLE_RESOLUTION = 'The requested data resolution is unavailable for the given time range. Please try a different resolution.';

export interface Window {
  resolution: number;
  /** first bucket, floored to the resolution */
  from: number;
  /**
   * exclusive end: the end of the bucket holding end_time. Buckets are whole at both
   * ends: a stored roll-up cannot be cut at end_time, and an answer must not change when
   * its points move from the head to disk (nor differ from a composite's, which reads
   * whole buckets).
   */
  to: number;
  start: number;
  end: number;
  tier: Tier;
}

type Params = Record<string, string | undefined>;

function integer(params: Params, name: string, errors: Record<string, string[]>): number | undefined {
  const raw = params[name];
  if (raw === undefined || raw === '') return undefined;
  // (a number out of range is named as such: "is not a number" misled for -60 or 1e12)
  if (!/^\d{1,12}$/.test(raw)) { errors[name] = ['must be a whole number from 0 to 999999999999']; return undefined; }
  return Number(raw);
}

export function parseWindow(params: Params, now: number, retention: Retention): Window {
  const errors = fieldErrors();
  const resolution = integer(params, 'resolution', errors);
  if (resolution === undefined && !errors.resolution) errors.resolution = ['is required'];
  else if (resolution !== undefined && (resolution < 1 || resolution > MAX_RESOLUTION)) errors.resolution = [`must be from 1 to ${MAX_RESOLUTION} seconds`];
  const start = integer(params, 'start_time', errors);
  const endGiven = integer(params, 'end_time', errors);
  const duration = integer(params, 'duration', errors);
  if (start !== undefined && endGiven !== undefined && duration !== undefined) {
    errors.duration = ['cannot be combined with both start_time and end_time'];
  }
  if (start === undefined && duration === undefined && !errors.start_time && !errors.duration) errors.start_time = ['is required unless duration is given'];
  if (duration !== undefined && duration < 1) errors.duration = ['must be at least 1 second'];
  if (Object.keys(errors).length) throw paramErrors(errors);
  let s: number;
  let e: number;
  // end_time is inclusive, so a window of `duration` seconds ends duration - 1 after its
  // start: an hour from 10:00 is 10:00:00 .. 10:59:59, one bucket at resolution=3600, not two
  if (start !== undefined) {
    s = start;
    e = endGiven ?? (duration !== undefined ? start + duration - 1 : now);
  } else {
    e = endGiven ?? now;
    s = e - duration! + 1;
  }
  if (s > e) throw paramErrors({ start_time: [endGiven === undefined ? 'is in the future (end_time, not given, is now)' : 'must not be after end_time'] });
  // nothing is stored past the accepted clock skew: an end_time years ahead would only
  // size the answer (and its buckets) by empty time
  e = Math.min(e, Math.max(s, now + FUTURE_SLACK_SECONDS));
  const res = resolution!;
  const from = Math.floor(s / res) * res;
  const to = Math.floor(e / res) * res + res;
  const tier = chooseTier(res, from, now, retention);
  if (tier === null) throw new ApiError(400, { request: [UNAVAILABLE_RESOLUTION] });
  return { resolution: res, from, to, start: s, end: e, tier };
}

export function chooseTier(resolution: number, from: number, now: number, retention: Retention): Tier | null {
  const tiers: [Tier, number][] = [[3600, retention['3600']], [900, retention['900']], [60, retention['60']], [0, retention.raw]];
  for (const [tier, keep] of tiers) {
    if (tier !== 0 && resolution % tier !== 0) continue;
    if (from < now - keep) continue;
    return tier;
  }
  return null;
}
