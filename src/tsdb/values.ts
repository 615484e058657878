// One column of float64s. Three encodings, chosen per column:
// - decimal: every value is m / 10^e for a common e <= 12 and |m| <= 2^51 (counters,
//   gauges with a few decimals): the scale, then zig-zag varint deltas of m. A steady
//   counter or a slow gauge costs one or two bytes a value.
// - near-decimal (sums and sums of squares of summaries only, where it is smaller than
//   xor): every value lies within a few units in the last place of m / 10^e. The sum of
//   fifteen two-decimal gauges, added in floating point, is rarely the double nearest to
//   a two-decimal number, so the decimal form fails and xor costs seven or eight bytes
//   a value; this form stores the decimal delta and the distance in the double's bits
//   from m / 10^e (zig-zag varints each), three or four bytes.
// - xor: each value's 64 bits XOR the previous value's (Gorilla), byte-aligned: one
//   header byte (leading zero bytes << 4 | trailing zero bytes) and the bytes between.
//   A repeated value costs one byte; noise costs at most nine.
// All round-trip exactly, including -0, subnormals and the largest finite doubles.
import type { ByteReader, ByteWriter } from './bytes.js';

const DECIMAL = 0;
const XOR = 1;
const NEAR_DECIMAL = 2;
const MAX_SCALE = 12;
/** the largest distance in bits a near-decimal value may have (two varint bytes) */
const MAX_RESIDUE = 4096;
const MAX_MANTISSA = 2 ** 51;
const POW10 = Array.from({ length: MAX_SCALE + 1 }, (_, e) => 10 ** e);

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** The smallest scale e with v === round(v * 10^e) / 10^e, or -1. */
function scaleOf(v: number, from: number): number {
  if (Object.is(v, -0)) return -1;
  for (let e = from; e <= MAX_SCALE; e++) {
    const p = POW10[e]!;
    const m = Math.round(v * p);
    if (Math.abs(m) > MAX_MANTISSA) return -1;
    if (m / p === v) return e;
  }
  return -1;
}

function commonScale(values: ArrayLike<number>, n: number): number {
  let e = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    const p = POW10[e]!;
    const m = Math.round(v * p);
    if (m / p === v && Math.abs(m) <= MAX_MANTISSA && !Object.is(v, -0)) continue;
    e = scaleOf(v, e + 1);
    if (e < 0) return -1;
  }
  // A larger scale found late must hold for the earlier values too (it does: a value
  // exact at 10^a is exact at every 10^b, b > a, unless m overflows — checked here).
  const p = POW10[e]!;
  for (let i = 0; i < n; i++) {
    const m = Math.round(values[i]! * p);
    if (Math.abs(m) > MAX_MANTISSA || m / p !== values[i]) return -1;
  }
  return e;
}

/**
 * `sums`: the column holds sums (a summary's sum or sum of squares), for which the
 * near-decimal form is tried when the decimal one does not fit.
 */
export function writeValues(w: ByteWriter, values: ArrayLike<number>, n: number, sums = false): void {
  const e = commonScale(values, n);
  if (e >= 0) {
    w.byte(DECIMAL);
    w.byte(e);
    const p = POW10[e]!;
    let prev = 0;
    for (let i = 0; i < n; i++) {
      const m = Math.round(values[i]! * p);
      w.svarint(m - prev);
      prev = m;
    }
    return;
  }
  const start = w.pos;
  writeXorColumn(w, values, n);
  // a sums column takes the near-decimal form instead where that is smaller
  const near = sums ? nearScale(values, n) : -1;
  if (near >= 0 && nearColumn(values, n, near, null) < w.pos - start) {
    w.pos = start; // written over
    nearColumn(values, n, near, w);
  }
}

/**
 * The distance from m / p to v in units of the last place: the difference of their
 * bits as integers (exact while small; a sign apart, it is huge). `m + 0` by the caller:
 * a -0 mantissa would not survive its varint.
 */
function residue(v: number, m: number, p: number): number {
  f64[0] = v;
  const hi = u32[1]!;
  const lo = u32[0]!;
  f64[0] = m / p;
  return (hi - u32[1]!) * 4294967296 + (lo - u32[0]!);
}

function nearFits(v: number, p: number): boolean {
  const m = Math.round(v * p) + 0;
  // written so that NaN fails too
  if (!(Math.abs(m) <= MAX_MANTISSA)) return false;
  return Math.abs(residue(v, m, p)) <= MAX_RESIDUE;
}

/** The smallest scale at which every value is near a decimal, or -1. */
function nearScale(values: ArrayLike<number>, n: number): number {
  let e = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    while (!nearFits(v, POW10[e]!)) if (++e > MAX_SCALE) return -1;
  }
  // a value near a decimal at 10^a is near one at 10^b, b > a, but the mantissa may
  // outgrow its bound: checked once more at the scale found
  const p = POW10[e]!;
  for (let i = 0; i < n; i++) if (!nearFits(values[i]!, p)) return -1;
  return e;
}

function varintBytes(z: number): number {
  let bytes = 1;
  while (z >= 128) {
    z = Math.floor(z / 128);
    bytes++;
  }
  return bytes;
}

function zigzag(x: number): number {
  return x >= 0 ? x * 2 : -x * 2 - 1;
}

/** The near-decimal form of a column at scale e, written to `w`; with `w` null, only its length in bytes. */
function nearColumn(values: ArrayLike<number>, n: number, e: number, w: ByteWriter | null): number {
  w?.byte(NEAR_DECIMAL);
  w?.byte(e);
  const p = POW10[e]!;
  let bytes = 2;
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    const m = Math.round(v * p) + 0;
    const d = residue(v, m, p);
    if (w) {
      w.svarint(m - prev);
      w.svarint(d);
    } else bytes += varintBytes(zigzag(m - prev)) + varintBytes(zigzag(d));
    prev = m;
  }
  return bytes;
}

function writeXorColumn(w: ByteWriter, values: ArrayLike<number>, n: number): void {
  w.byte(XOR);
  let prevHi = 0;
  let prevLo = 0;
  for (let i = 0; i < n; i++) {
    f64[0] = values[i]!;
    const lo = u32[0]!;
    const hi = u32[1]!;
    const xh = (hi ^ prevHi) >>> 0;
    const xl = (lo ^ prevLo) >>> 0;
    const h = xorHeader(xh, xl);
    w.byte(h);
    if (h !== 0x80) for (let b = h >> 4; b < 8 - (h & 0x0f); b++) w.byte(byteAt(xh, xl, b));
    prevHi = hi;
    prevLo = lo;
  }
}

function byteAt(hi: number, lo: number, i: number): number {
  // i = 0 is the most significant byte
  return i < 4 ? (hi >>> (24 - 8 * i)) & 0xff : (lo >>> (24 - 8 * (i - 4))) & 0xff;
}

/** leading zero bytes << 4 | trailing zero bytes of the XOR, or 0x80 when it is 0 */
function xorHeader(hi: number, lo: number): number {
  if (hi === 0 && lo === 0) return 0x80;
  const lead = hi !== 0 ? Math.clz32(hi) >> 3 : 4 + (Math.clz32(lo) >> 3);
  // trailing zero bits: those below the lowest set bit (x & -x isolates it)
  const trail = lo !== 0 ? (31 - Math.clz32(lo & -lo)) >> 3 : 4 + ((31 - Math.clz32(hi & -hi)) >> 3);
  return (lead << 4) | trail;
}

/**
 * Reads a column of n values, keeping those with index in [from, to) (all by default):
 * every value is parsed, so the reader ends past the column, but only kept ones are
 * pushed (a query cutting one hour out of a day allocates for that hour only).
 */
export function readValues(r: ByteReader, out: number[], n: number, from = 0, to = n): void {
  const mode = r.byte();
  if (mode === DECIMAL) {
    const e = r.byte();
    if (e > MAX_SCALE) throw new RangeError('bad decimal scale');
    readDecimal(r, out, n, from, to, POW10[e]!);
    return;
  }
  if (mode === NEAR_DECIMAL) {
    const e = r.byte();
    if (e > MAX_SCALE) throw new RangeError('bad decimal scale');
    readNearDecimal(r, out, n, from, to, POW10[e]!);
    return;
  }
  if (mode !== XOR) throw new RangeError('unknown value encoding');
  // the bytes straight from the buffer: this loop is most of what a read spends decoding
  const buf = r.buf;
  const end = r.end;
  let pos = r.pos;
  let hi = 0;
  let lo = 0;
  for (let i = 0; i < n; i++) {
    if (pos >= end) throw new RangeError('read past the end of a record');
    const h = buf[pos++]!;
    if (h !== 0x80) {
      const lead = h >> 4;
      const trail = h & 0x0f;
      if (pos + 8 - trail - lead > end) throw new RangeError('read past the end of a record');
      let xh = 0;
      let xl = 0;
      for (let b = lead; b < 8 - trail; b++) {
        const v = buf[pos++]!;
        if (b < 4) xh |= v << (24 - 8 * b);
        else xl |= v << (24 - 8 * (b - 4));
      }
      hi = (hi ^ xh) >>> 0;
      lo = (lo ^ xl) >>> 0;
    }
    if (i >= from && i < to) {
      u32[0] = lo;
      u32[1] = hi;
      out.push(f64[0]!);
    }
  }
  r.pos = pos;
}

/** The zig-zag varint deltas of a decimal column, read straight from the buffer (ByteReader.svarint inlined). */
function readDecimal(r: ByteReader, out: number[], n: number, from: number, to: number, p: number): void {
  const buf = r.buf;
  const end = r.end;
  let pos = r.pos;
  let m = 0;
  for (let i = 0; i < n; i++) {
    if (pos >= end) throw new RangeError('read past the end of a record');
    let b = buf[pos++]!;
    let z = b & 0x7f;
    let mul = 1;
    while (b >= 128) {
      mul *= 128;
      if (mul > 2 ** 56) throw new RangeError('varint too long');
      if (pos >= end) throw new RangeError('read past the end of a record');
      b = buf[pos++]!;
      z += (b & 0x7f) * mul;
    }
    m += z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    if (i >= from && i < to) out.push(m / p);
  }
  r.pos = pos;
}

/** Pairs of zig-zag varints (mantissa delta, distance in bits) of a near-decimal column. */
function readNearDecimal(r: ByteReader, out: number[], n: number, from: number, to: number, p: number): void {
  let m = 0;
  for (let i = 0; i < n; i++) {
    m += r.svarint();
    const d = r.svarint();
    if (Math.abs(d) > MAX_RESIDUE) throw new RangeError('bad near-decimal distance');
    if (i < from || i >= to) continue;
    f64[0] = m / p;
    let lo = u32[0]! + d;
    let hi = u32[1]!;
    if (lo < 0) { lo += 4294967296; hi -= 1; } else if (lo >= 4294967296) { lo -= 4294967296; hi += 1; }
    u32[0] = lo;
    u32[1] = hi;
    out.push(f64[0]!);
  }
}
