// Snappy's block format (github.com/google/snappy, format_description.txt), compression only,
// for the remote-write bodies the bench sends Prometheus. Real remote-write senders compress
// with snappy; bodies of literals only were three to four times larger, so Prometheus paid
// for reading and decoding bytes no real sender sends, and the ratios flattered us.
// Greedy matching on four-byte hashes, like snappy's own compressor: the bodies are built
// before the timed replay, so what matters is the size, not this code's speed.

const MIN_MATCH = 4;
/** a copy with a two-byte offset reaches this far back and copies at most 64 bytes */
const MAX_OFFSET = 65535;
const MAX_COPY = 64;
const HASH_BITS = 14;

/** Bytes written into a buffer sized for the worst case (all literals). */
class Out {
  constructor(size) {
    this.buf = Buffer.allocUnsafe(size);
    this.at = 0;
  }

  push(...bytes) {
    for (const b of bytes) this.buf[this.at++] = b;
  }

  uvarint(n) {
    while (n >= 0x80) { this.push((n & 0x7f) | 0x80); n = Math.floor(n / 128); }
    this.push(n);
  }

  bytes() {
    return this.buf.subarray(0, this.at);
  }
}

function hash(data, i) {
  return (Math.imul(data.readUInt32LE(i), 0x1e35a7bd) >>> (32 - HASH_BITS));
}

function literal(out, data, from, to) {
  let n = to - from;
  if (n === 0) return;
  n -= 1;
  if (n < 60) out.push(n << 2);
  else if (n < 0x100) out.push(60 << 2, n);
  else if (n < 0x10000) out.push(61 << 2, n & 0xff, n >> 8);
  else out.push(62 << 2, n & 0xff, (n >> 8) & 0xff, n >> 16);
  out.at += data.copy(out.buf, out.at, from, to);
}

function copy(out, offset, length) {
  while (length > 0) {
    // a piece of 1-3 bytes is still a valid two-byte-offset copy
    const n = Math.min(length, MAX_COPY);
    out.push(((n - 1) << 2) | 2, offset & 0xff, offset >> 8);
    length -= n;
  }
}

/** `data` (a Buffer) in snappy's block format. */
export function snappyCompress(data) {
  // snappy's own bound (MaxCompressedLength)
  const out = new Out(32 + data.length + Math.ceil(data.length / 6));
  out.uvarint(data.length);
  const table = new Int32Array(1 << HASH_BITS).fill(-1);
  let pending = 0; // start of the bytes not yet emitted
  let i = 0;
  while (i + MIN_MATCH <= data.length) {
    const h = hash(data, i);
    const candidate = table[h];
    table[h] = i;
    if (candidate < 0 || i - candidate > MAX_OFFSET || data.readUInt32LE(candidate) !== data.readUInt32LE(i)) {
      i++;
      continue;
    }
    let length = MIN_MATCH;
    while (i + length < data.length && data[candidate + length] === data[i + length]) length++;
    literal(out, data, pending, i);
    copy(out, i - candidate, length);
    i += length;
    pending = i;
  }
  literal(out, data, pending, data.length);
  return out.bytes();
}
