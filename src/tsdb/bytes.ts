// Growable byte writer and its reader: unsigned/zig-zag varints up to 2^53 (arithmetic,
// not 32-bit bit ops, so counters past 2^31 survive) and raw float64s. The chunk and WAL
// codecs are built on these two classes only.

const f64 = new Float64Array(1);
const u8 = new Uint8Array(f64.buffer);

export class ByteWriter {
  buf: Buffer;
  pos = 0;

  constructor(initial = 256) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  /** Room for n more bytes at pos: a caller that writes buf[pos++] itself asks first. */
  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.pos++] = b;
  }

  /** Non-negative integer up to 2^53. */
  uvarint(n: number): void {
    this.room(8);
    while (n >= 128) {
      this.buf[this.pos++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[this.pos++] = n;
  }

  /** Signed integer with |n| up to 2^52. */
  svarint(n: number): void {
    this.uvarint(n >= 0 ? n * 2 : -n * 2 - 1);
  }

  float64(v: number): void {
    this.room(8);
    f64[0] = v;
    for (let i = 0; i < 8; i++) this.buf[this.pos++] = u8[i]!;
  }

  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** A copy of what was written (the writer may be reused). */
  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }

  reset(): void {
    this.pos = 0;
  }
}

export class ByteReader {
  pos = 0;

  constructor(readonly buf: Uint8Array, start = 0, readonly end = buf.length) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  byte(): number {
    if (this.pos >= this.end) throw new RangeError('read past the end of a record');
    return this.buf[this.pos++]!;
  }

  uvarint(): number {
    let n = 0;
    let mul = 1;
    for (;;) {
      const b = this.byte();
      n += (b & 0x7f) * mul;
      if (b < 128) return n;
      mul *= 128;
      if (mul > 2 ** 56) throw new RangeError('varint too long');
    }
  }

  svarint(): number {
    const z = this.uvarint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  /** Moves past n bytes, which must be there. */
  skip(n: number): void {
    if (this.pos + n > this.end) throw new RangeError('read past the end of a record');
    this.pos += n;
  }

  float64(): number {
    if (this.pos + 8 > this.end) throw new RangeError('read past the end of a record');
    for (let i = 0; i < 8; i++) u8[i] = this.buf[this.pos++]!;
    return f64[0]!;
  }
}
