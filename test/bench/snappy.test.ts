// The bench's snappy compressor (bench/snappy.js) against a decoder written here from the
// format description: every input comes back byte for byte, and repetitive input shrinks.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { snappyCompress } from '../../bench/snappy.js';

function decode(src: Buffer): Buffer {
  let at = 0;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    const b = src[at++]!;
    length += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
  }
  const out = Buffer.alloc(length);
  let n = 0;
  while (at < src.length) {
    const tag = src[at++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let len = tag >> 2;
      if (len >= 60) {
        const bytes = len - 59;
        len = 0;
        for (let i = 0; i < bytes; i++) len += src[at++]! * 256 ** i;
      }
      len += 1;
      src.copy(out, n, at, at + len);
      at += len;
      n += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === 1) {
      len = ((tag >> 2) & 7) + 4;
      offset = ((tag >> 5) << 8) | src[at++]!;
    } else if (kind === 2) {
      len = (tag >> 2) + 1;
      offset = src.readUInt16LE(at);
      at += 2;
    } else {
      len = (tag >> 2) + 1;
      offset = src.readUInt32LE(at);
      at += 4;
    }
    if (offset === 0 || offset > n) throw new Error(`bad offset ${offset} at output ${n}`);
    // byte by byte: a copy may overlap what it writes (a run)
    for (let i = 0; i < len; i++, n++) out[n] = out[n - offset]!;
  }
  if (n !== length) throw new Error(`decoded ${n} bytes, the preamble says ${length}`);
  return out;
}

t.test('round trips', async (t) => {
  const labels = Buffer.from('\n\x08__name__\x12\x14bench_requests_value\n\x04host\x12\x09host-0042');
  const cases: Record<string, Buffer> = {
    empty: Buffer.alloc(0),
    'one byte': Buffer.from('x'),
    'three bytes': Buffer.from('abc'),
    'a run (overlapping copies)': Buffer.alloc(1000, 'a'),
    random: randomBytes(100_000),
    'repeated labels, long literals between': Buffer.concat(Array.from({ length: 3000 }, (_, i) => Buffer.concat([labels, randomBytes(i % 300)]))),
    'repeats further back than a copy reaches': Buffer.concat([Buffer.from('0123456789abcdef'), randomBytes(70_000), Buffer.from('0123456789abcdef')]),
  };
  for (const [name, input] of Object.entries(cases)) {
    t.same(decode(snappyCompress(input)), input, name);
  }
});

t.test('remote-write-like bodies shrink', async (t) => {
  const body = Buffer.concat(Array.from({ length: 1000 }, (_, i) => Buffer.from(`\n\x08__name__\x12\x14bench_requests_value\n\x04host\x12\x09host-${String(i).padStart(4, '0')}\n\x06region\x12\x08region-${i % 5}`)));
  const packed = snappyCompress(body);
  t.ok(packed.length < body.length / 3, `${body.length} bytes to ${packed.length}`);
  t.same(decode(packed), body);
});
