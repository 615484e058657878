// The time picker's ranges and the resolution each asks for. Librato's mapping, so a
// chart never asks for a resolution the stored rollups cannot give: up to an hour the
// raw points, 3-6 hours one-minute rollups, 12-24 hours 15-minute rollups, days hourly.

export interface Range { key: string; label: string; seconds: number }

export const RANGES: readonly Range[] = [
  { key: '15m', label: '15 minutes', seconds: 900 },
  { key: '1h', label: '1 hour', seconds: 3600 },
  { key: '3h', label: '3 hours', seconds: 3 * 3600 },
  { key: '6h', label: '6 hours', seconds: 6 * 3600 },
  { key: '12h', label: '12 hours', seconds: 12 * 3600 },
  { key: '24h', label: '24 hours', seconds: 24 * 3600 },
  { key: '3d', label: '3 days', seconds: 3 * 86400 },
  { key: '7d', label: '7 days', seconds: 7 * 86400 },
  { key: '30d', label: '30 days', seconds: 30 * 86400 },
];

export const DEFAULT_RANGE = '1h';

/** The stored tiers (seconds; 1 stands for raw points, one a second at most). */
export const RESOLUTIONS = [1, 60, 900, 3600] as const;

/** The finest resolution a range of `seconds` may ask for. */
export function resolutionFor(seconds: number): number {
  if (seconds <= 3600) return 1;
  if (seconds <= 6 * 3600) return 60;
  if (seconds <= 24 * 3600) return 900;
  return 3600;
}

/** The resolutions a range may ask for: its own and every coarser tier. */
export function resolutionsFor(seconds: number): number[] {
  const finest = resolutionFor(seconds);
  return RESOLUTIONS.filter((r) => r >= finest);
}

export function rangeByKey(key: string | null | undefined): Range {
  return RANGES.find((r) => r.key === key) ?? RANGES.find((r) => r.key === DEFAULT_RANGE)!;
}

export interface Interval { start: number; end: number; resolution: number }

/** The interval a range ending at `end` (unix seconds) covers, at its resolution or a coarser one asked for. */
export function intervalOf(range: Range, end: number, resolution?: number): Interval {
  const allowed = resolutionsFor(range.seconds);
  const res = resolution !== undefined && allowed.includes(resolution) ? resolution : allowed[0]!;
  return { start: end - range.seconds, end, resolution: res };
}

export function resolutionLabel(res: number): string {
  return res === 1 ? 'raw' : res < 3600 ? `${res / 60} min` : `${res / 3600} h`;
}
