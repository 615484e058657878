// One column of float64s. Five encodings, chosen per column:
// - decimal: every value is m / 10^e for a common e <= 12 and |m| <= 2^51 (counters,
//   gauges with a few decimals): the scale, then zig-zag varint deltas of m. A steady
//   counter or a slow gauge costs one or two bytes a value.
// - packed decimal (chunks only, where it is smaller than the varints): the same deltas
//   in blocks of 64, each block its smallest delta and the bits every delta above it
//   needs. A varint spends a whole byte where a delta needs a bit more than seven, and
//   a second one from the sign's bit on: a counter growing by 0-99 a step (7 bits) costs
//   1.35 bytes a value as varints and 0.92 packed.
// - near-decimal (sums and sums of squares of summaries only, where it is smaller than
//   xor): every value lies within a few units in the last place of m / 10^e. The sum of
//   fifteen two-decimal gauges, added in floating point, is rarely the double nearest to
//   a two-decimal number, so the decimal form fails and xor costs seven or eight bytes
//   a value; this form stores the decimal delta and the distance in the double's bits
//   from m / 10^e (zig-zag varints each), three or four bytes.
// - xor: each value's 64 bits XOR the previous value's (Gorilla), byte-aligned: one
//   header byte (leading zero bytes << 4 | trailing zero bytes) and the bytes between.
//   A repeated value costs one byte; noise costs at most nine.
// - packed float (chunks only, where it is smaller than xor): each double split into its
//   12 sign and exponent bits and its 52 mantissa bits, in blocks of 64: the block's
//   smallest sign-and-exponent and the bits the others need above it, and the mantissas
//   without the trailing zero bits they all have. Floats that change in every bit from
//   one value to the next (ratios, latencies, the push benchmark's random fifth) cost
//   xor six to eight bytes (6.0 for the benchmark's): a header byte, and the changed
//   bytes whole; packed, a value costs the bits of its exponent's spread and its
//   mantissa's precision, about 55 bits for a full double, 27 for one that went through
//   a float32.
// All round-trip exactly, including -0, subnormals and the largest finite doubles.
import type { ByteReader, ByteWriter } from './bytes.js';

const DECIMAL = 0;
const XOR = 1;
const NEAR_DECIMAL = 2;
const PACKED_DECIMAL = 3;
const PACKED_FLOAT = 4;
/** the bits of a double's sign and exponent, and of its mantissa */
const HEAD_BITS = 12;
const MANTISSA_BITS = 52;
const TWO_32 = 4294967296;
/** deltas a packed block holds: its offset and width follow a stretch of the column, not all of it */
const PACKED_BLOCK = 64;
/**
 * The widest packed delta: mantissas of at most 2^51 differ by at most 2^52, so a
 * block's deltas less its smallest need up to 54 bits. Wider than PART bits, a delta
 * is written in parts of PART bits (its top bits first), so that the 32-bit integer
 * the bits gather in never overflows.
 */
const MAX_WIDTH = 54;
const PART = 24;
const PART_SIZE = 2 ** PART;
const MAX_SCALE = 12;
/** the largest distance in bits a near-decimal value may have (two varint bytes) */
const MAX_RESIDUE = 4096;
const MAX_MANTISSA = 2 ** 51;
const POW10 = Array.from({ length: MAX_SCALE + 1 }, (_, e) => 10 ** e);
/** 2^k by table: `2 ** k` of a k not known in advance took most of a packed float read */
const POW2 = Array.from({ length: 54 }, (_, k) => 2 ** k);
const INVERSE_POW2 = POW2.map((x) => 1 / x);

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

/** writeValues' forms beyond decimal and xor, as bits. */
export const VALUE_FORMS = {
  /** the column holds sums (a summary's sum or sum of squares): try near-decimal where decimal does not fit */
  sums: 1,
  /**
   * try the packed decimal form: for chunks, whose columns are one series' values in time
   * order. A WAL record's column runs across series, where packing seldom pays for the
   * pass that sizes it on the ingest path.
   */
  packed: 2,
} as const;

let mantissas = new Float64Array(1024);

export function writeValues(w: ByteWriter, values: ArrayLike<number>, n: number, forms = 0): void {
  const e = commonScale(values, n);
  if (e >= 0) {
    const p = POW10[e]!;
    if (forms & VALUE_FORMS.packed && n > 2) {
      if (mantissas.length < n) mantissas = new Float64Array(Math.max(n, 2 * mantissas.length));
      const m = mantissas;
      for (let i = 0; i < n; i++) m[i] = Math.round(values[i]! * p);
      if (packedBytes(m, n) < varintColumnBytes(m, n)) {
        w.byte(PACKED_DECIMAL);
        w.byte(e);
        writePacked(w, m, n);
        return;
      }
    }
    // the varints straight from the values: a WAL record's columns take this path on ingest
    w.byte(DECIMAL);
    w.byte(e);
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
  const xor = w.pos - start;
  // a sums column may take the near-decimal form, a chunk's the packed float form,
  // whichever is smallest (written over the xor form)
  const near = forms & VALUE_FORMS.sums ? nearScale(values, n) : -1;
  const nearBytes = near >= 0 ? nearColumn(values, n, near, null) : Infinity;
  const floatBytes = forms & VALUE_FORMS.packed && n > 2 ? packedFloatBytes(values, n) : Infinity;
  if (nearBytes < xor && nearBytes <= floatBytes) {
    w.pos = start;
    nearColumn(values, n, near, w);
  } else if (floatBytes < xor) {
    w.pos = start;
    writePackedFloats(w, n);
  }
}

/**
 * Per value, its sign and exponent less its block's smallest, and its mantissa less the
 * trailing zero bits every mantissa of its block has; per block, that smallest and the two
 * widths: what packedFloatBytes found, for writePackedFloats.
 */
let floatHeads = new Float64Array(1024);
let floatMantissas = new Float64Array(1024);
let blockHead = new Uint16Array(64);
let blockHeadWidth = new Uint8Array(64);
let blockMantissaWidth = new Uint8Array(64);

/** The zero bits below the lowest set bit of a mantissa (its top 20 bits, its low 32), 52 if it is 0. */
function trailingZeros(hi20: number, lo: number): number {
  if (lo !== 0) return 31 - Math.clz32(lo & -lo);
  if (hi20 !== 0) return 63 - Math.clz32(hi20 & -hi20);
  return MANTISSA_BITS;
}

/** The bytes of the packed float form of values[0, n), its mode byte included; the blocks are left for writePackedFloats. */
function packedFloatBytes(values: ArrayLike<number>, n: number): number {
  if (floatHeads.length < n) {
    floatHeads = new Float64Array(Math.max(n, 2 * floatHeads.length));
    floatMantissas = new Float64Array(floatHeads.length);
  }
  const blocks = Math.ceil(n / PACKED_BLOCK);
  if (blockHead.length < blocks) {
    blockHead = new Uint16Array(2 * blocks);
    blockHeadWidth = new Uint8Array(2 * blocks);
    blockMantissaWidth = new Uint8Array(2 * blocks);
  }
  const heads = floatHeads;
  const mantissas = floatMantissas;
  let bytes = 1;
  for (let b = 0, from = 0; from < n; b++, from += PACKED_BLOCK) {
    const to = Math.min(n, from + PACKED_BLOCK);
    let lo = 1 << HEAD_BITS;
    let hi = 0;
    let zeros = MANTISSA_BITS;
    for (let i = from; i < to; i++) {
      f64[0] = values[i]!;
      const head = u32[1]! >>> 20;
      const hi20 = u32[1]! & 0xfffff;
      heads[i] = head;
      mantissas[i] = hi20 * TWO_32 + u32[0]!;
      if (head < lo) lo = head;
      if (head > hi) hi = head;
      if (zeros > 0) zeros = Math.min(zeros, trailingZeros(hi20, u32[0]!));
    }
    const scale = POW2[zeros]!;
    for (let i = from; i < to; i++) {
      heads[i]! -= lo;
      mantissas[i]! /= scale;
    }
    const headWidth = bitLength(hi - lo);
    const mantissaWidth = MANTISSA_BITS - zeros;
    blockHead[b] = lo;
    blockHeadWidth[b] = headWidth;
    blockMantissaWidth[b] = mantissaWidth;
    bytes += varintBytes(lo) + 2 + Math.ceil((headWidth * (to - from)) / 8) + Math.ceil((mantissaWidth * (to - from)) / 8);
  }
  return bytes;
}

/**
 * Per block of 64 values: the smallest sign and exponent (uvarint), the width of the
 * others above it and the width of the mantissas (a byte each), then the signs and
 * exponents packed, then the mantissas without their common trailing zeros, packed.
 */
function writePackedFloats(w: ByteWriter, n: number): void {
  w.byte(PACKED_FLOAT);
  for (let b = 0, from = 0; from < n; b++, from += PACKED_BLOCK) {
    const to = Math.min(n, from + PACKED_BLOCK);
    w.uvarint(blockHead[b]!);
    w.byte(blockHeadWidth[b]!);
    w.byte(blockMantissaWidth[b]!);
    packBits(w, floatHeads, from, to, blockHeadWidth[b]!);
    packBits(w, floatMantissas, from, to, blockMantissaWidth[b]!);
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

/** The bytes of the varint deltas of m[0, n), the decimal form's header apart. */
function varintColumnBytes(m: Float64Array, n: number): number {
  let bytes = 0;
  let prev = 0;
  for (let i = 0; i < n; i++) {
    bytes += varintBytes(zigzag(m[i]! - prev));
    prev = m[i]!;
  }
  return bytes;
}

/** Each block's smallest delta and width, as packedBytes found them for writePacked. */
let blockLo = new Float64Array(64);
let blockWidth = new Uint8Array(64);
/** The widest value unpackBits reads in double arithmetic: it and the 7 bits before it fit 53. */
const FLOAT_BITS_WIDTH = 46;
/** One block's values, about to be packed or just unpacked. */
const block = new Float64Array(PACKED_BLOCK);

/** The bits a non-negative integer up to 2^53 needs (0 for 0). */
function bitLength(x: number): number {
  return x < 4294967296 ? 32 - Math.clz32(x) : 64 - Math.clz32(Math.floor(x / 4294967296));
}

/**
 * The bytes of the packed form of m[0, n), its header apart; each block's smallest delta
 * and width (delta i is m[i] - m[i-1]) are left in blockLo and blockWidth.
 */
function packedBytes(m: Float64Array, n: number): number {
  const blocks = Math.ceil((n - 1) / PACKED_BLOCK);
  if (blockLo.length < blocks) {
    blockLo = new Float64Array(2 * blocks);
    blockWidth = new Uint8Array(2 * blocks);
  }
  let bytes = varintBytes(zigzag(m[0]!));
  for (let b = 0, from = 1; from < n; b++, from += PACKED_BLOCK) {
    const to = Math.min(n, from + PACKED_BLOCK);
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = from; i < to; i++) {
      const d = m[i]! - m[i - 1]!;
      if (d < lo) lo = d;
      if (d > hi) hi = d;
    }
    const width = bitLength(hi - lo);
    blockLo[b] = lo;
    blockWidth[b] = width;
    bytes += varintBytes(zigzag(lo)) + 1 + Math.ceil((width * (to - from)) / 8);
  }
  return bytes;
}

/**
 * m[0] as a zig-zag varint, then per block of deltas: the smallest (zig-zag varint), the
 * width in bits (a byte), and each delta less the smallest in that many bits, most
 * significant first, the block padded to a whole byte. The blocks as packedBytes(m, n)
 * just found them.
 */
function writePacked(w: ByteWriter, m: Float64Array, n: number): void {
  w.svarint(m[0]!);
  for (let b = 0, from = 1; from < n; b++, from += PACKED_BLOCK) {
    const to = Math.min(n, from + PACKED_BLOCK);
    const lo = blockLo[b]!;
    const width = blockWidth[b]!;
    w.svarint(lo);
    w.byte(width);
    for (let i = from; i < to; i++) block[i - from] = m[i]! - m[i - 1]! - lo;
    packBits(w, block, 0, to - from, width);
  }
}

/**
 * xs[from, to), integers in [0, 2^width), `width` bits each, most significant first, the
 * last byte padded. A value wider than PART bits is written in parts of at most PART
 * bits, the top one first; at most 7 bits wait in acc between parts, so it stays within
 * 31 bits.
 */
function packBits(w: ByteWriter, xs: Float64Array, from: number, to: number, width: number): void {
  if (width === 0) return;
  w.room(Math.ceil((width * (to - from)) / 8));
  const buf = w.buf;
  let pos = w.pos;
  const parts = Math.ceil(width / PART);
  const top = width - PART * (parts - 1);
  const topScale = POW2[PART * (parts - 1)]!;
  let acc = 0;
  let bits = 0;
  for (let i = from; i < to; i++) {
    const v = xs[i]!;
    let scale = topScale;
    let size = top;
    for (;;) {
      acc = (acc << size) | (Math.floor(v / scale) % PART_SIZE);
      bits += size;
      while (bits >= 8) buf[pos++] = (acc >>> (bits -= 8)) & 0xff;
      acc &= (1 << bits) - 1;
      if (scale === 1) break;
      scale /= PART_SIZE;
      size = PART;
    }
  }
  if (bits > 0) buf[pos++] = (acc << (8 - bits)) & 0xff;
  w.pos = pos;
}

/** `count` values of `width` bits (packBits) from buf at pos into xs[0, count); the caller has checked that the bytes are there. */
function unpackBits(buf: Uint8Array, pos: number, xs: Float64Array, count: number, width: number): void {
  if (width === 0) {
    xs.fill(0, 0, count);
    return;
  }
  if (width <= FLOAT_BITS_WIDTH) {
    // in double arithmetic, exact while what waits in acc fits 53 bits: one multiply and
    // one floor a value instead of the parts below, which the widest mantissas need
    let acc = 0;
    let bits = 0;
    for (let i = 0; i < count; i++) {
      while (bits < width) {
        acc = acc * 256 + buf[pos++]!;
        bits += 8;
      }
      bits -= width;
      const v = Math.floor(acc * INVERSE_POW2[bits]!);
      acc -= v * POW2[bits]!;
      xs[i] = v;
    }
    return;
  }
  const parts = Math.ceil(width / PART);
  const top = width - PART * (parts - 1);
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < count; i++) {
    let v = 0;
    let size = top;
    for (let k = 0; k < parts; k++) {
      while (bits < size) {
        acc = (acc << 8) | buf[pos++]!;
        bits += 8;
      }
      bits -= size;
      v = v * PART_SIZE + ((acc >>> bits) & ((1 << size) - 1));
      acc &= (1 << bits) - 1;
      size = PART;
    }
    xs[i] = v;
  }
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
  if (mode === PACKED_DECIMAL) {
    const e = r.byte();
    if (e > MAX_SCALE) throw new RangeError('bad decimal scale');
    readPacked(r, out, n, from, to, POW10[e]!);
    return;
  }
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
  if (mode === PACKED_FLOAT) {
    readPackedFloats(r, out, n, from, to);
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

/** A packed decimal column (writePacked); blocks after the last value kept are skipped, not unpacked. */
function readPacked(r: ByteReader, out: number[], n: number, from: number, to: number, p: number): void {
  if (n === 0) return;
  let m = r.svarint();
  if (from <= 0 && to > 0) out.push(m / p);
  const buf = r.buf;
  for (let start = 1; start < n; start += PACKED_BLOCK) {
    const len = Math.min(PACKED_BLOCK, n - start);
    const lo = r.svarint();
    const width = r.byte();
    if (width > MAX_WIDTH) throw new RangeError('bad packed width');
    const pos = r.pos;
    r.skip(Math.ceil((width * len) / 8));
    if (start >= to) continue;
    unpackBits(buf, pos, block, len, width);
    for (let k = 0; k < len; k++) {
      m += lo + block[k]!;
      const i = start + k;
      if (i >= from && i < to) out.push(m / p);
    }
  }
}

/** One block's mantissas, just unpacked (its signs and exponents are in `block`). */
const blockMantissas = new Float64Array(PACKED_BLOCK);

/** A packed float column (writePackedFloats); blocks outside [from, to) are skipped, not unpacked. */
function readPackedFloats(r: ByteReader, out: number[], n: number, from: number, to: number): void {
  const buf = r.buf;
  for (let start = 0; start < n; start += PACKED_BLOCK) {
    const len = Math.min(PACKED_BLOCK, n - start);
    const lo = r.uvarint();
    const headWidth = r.byte();
    const mantissaWidth = r.byte();
    if (lo >= 1 << HEAD_BITS || headWidth > HEAD_BITS || mantissaWidth > MANTISSA_BITS) throw new RangeError('bad packed float block');
    const heads = r.pos;
    const headBytes = Math.ceil((headWidth * len) / 8);
    r.skip(headBytes + Math.ceil((mantissaWidth * len) / 8));
    if (start >= to || start + len <= from) continue;
    unpackBits(buf, heads, block, len, headWidth);
    unpackBits(buf, heads + headBytes, blockMantissas, len, mantissaWidth);
    const scale = POW2[MANTISSA_BITS - mantissaWidth]!;
    for (let k = Math.max(0, from - start); k < len && start + k < to; k++) {
      const head = lo + block[k]!;
      if (head >= 1 << HEAD_BITS) throw new RangeError('bad packed float block');
      const mantissa = blockMantissas[k]! * scale;
      const hi20 = Math.floor(mantissa / TWO_32);
      u32[1] = (head << 20) | hi20;
      u32[0] = mantissa - hi20 * TWO_32;
      out.push(f64[0]!);
    }
  }
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
