// A number as JSON.stringify writes it, faster for the values a series answer is made of.
//
// Why: an answer of 1,440 measurements spent most of its JSON.stringify time turning
// doubles into text (about 100 ns each: V8 searches for the shortest digits that read back
// as the same double). Most stored values are decimals with a few places (gauges in cents,
// means of them), and those are found with integer arithmetic instead: when `v` is the
// double nearest to m / 10^e, with |m| < 10^15, no other decimal of 15 digits or fewer is
// nearer to it, so the shortest text for `v` is m's digits with a point e places from the
// right. Anything else falls back to V8.

const SCALES = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000];
/** below 10^15 a decimal of the mantissa's digits is the one shortest text for its double */
const MAX_MANTISSA = 1e15;

export function jsonNumber(v: number): string {
  if (Number.isInteger(v)) return '' + v; // also -0 as "0", and 1e21 and up in exponent form
  if (!Number.isFinite(v)) return 'null';
  // e <= 6: JavaScript writes 1e-7 and smaller in exponent form, these never are
  for (let e = 1; e < SCALES.length; e++) {
    const scale = SCALES[e]!;
    const m = Math.round(v * scale);
    // division is correctly rounded: m / scale is the double nearest to the decimal
    if (m / scale !== v || m >= MAX_MANTISSA || m <= -MAX_MANTISSA) continue;
    const abs = m < 0 ? -m : m;
    const fraction = abs % scale;
    let digits = '' + fraction;
    while (digits.length < e) digits = '0' + digits;
    return (m < 0 ? '-' : '') + (abs - fraction) / scale + '.' + digits;
  }
  return '' + v;
}
