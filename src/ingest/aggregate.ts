// Service-side aggregation (metrics with `aggregate: true`): measurements of one series
// within one period are combined into one summary point. Because the engine merges
// points of a series that share a time into one summary (count, sum, min, max, last,
// sum of squares), aggregating is flooring each time to its period: the "buffer" is the
// engine's head, written ahead and checkpointed like any point, so it survives kill -9,
// a restart and SIGTERM without a flush of its own.
import type { Sample } from '../tsdb/sample.js';

export const DEFAULT_AGGREGATION_PERIOD = 60;

export function aggregationPeriod(period: number | null): number {
  return period ?? DEFAULT_AGGREGATION_PERIOD;
}

/** The sample moved to the start of its aggregation period. */
export function aggregated(sample: Sample, period: number): Sample {
  const time = Math.floor(sample.time / period) * period;
  return time === sample.time ? sample : { ...sample, time };
}
