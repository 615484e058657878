// Librato's float rules (librato-api-notes §9): a base-10 exponent above 126 aborts the
// request; one below -130 is stored as 0.

export const MAX_MAGNITUDE = 1e127;
export const MIN_MAGNITUDE = 1e-130;

/**
 * The largest `count` of a summarized measurement: the store writes counts as varints,
 * which hold less than 2^63, and sums of many counts must stay exact doubles.
 */
export const MAX_SAMPLE_COUNT = 2 ** 40;

/** The value as stored, or null when it is too large to accept. */
export function withinExponentLimits(v: number): number | null {
  const mag = Math.abs(v);
  if (mag >= MAX_MAGNITUDE) return null;
  return mag < MIN_MAGNITUDE ? 0 : v;
}
