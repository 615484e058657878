// jsonNumber must write every number exactly as JSON.stringify does: decimals found by
// integer arithmetic, everything else through V8.
import t from 'tap';
import { jsonNumber } from '../../src/http/json-number.js';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = Math.imul(s ^ (s >>> 15), s | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

t.test('edge values', async (t) => {
  const values = [
    0, -0, 1, -1, 0.1, 0.2, 0.1 + 0.2, 0.3, 1.5, -1.5, 0.5, 0.05, 0.000001, 0.0000001, 1e-7, 5e-324, -5e-324,
    2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e15, 1e15 + 0.5, 999999999999999.9, 99999999999999.99, 1e20, 1e21, 1e22, -1e21,
    123456.789, 0.001, 0.999999, 1.000001, 9.999995, 12345678.123456, 1234567890.12345, Number.MAX_VALUE, -Number.MAX_VALUE,
    Number.MIN_VALUE, Number.EPSILON, 1 / 3, 2 / 3, 100 / 7, 67.45, 1764288000, 60, 3600,
  ];
  for (const v of values) t.equal(jsonNumber(v), JSON.stringify(v), String(v));
});

t.test('non-finite numbers are null, as JSON.stringify writes them', async (t) => {
  for (const v of [NaN, Infinity, -Infinity]) t.equal(jsonNumber(v), 'null');
});

t.test('a million random values of every kind read back as JSON.stringify writes them', async (t) => {
  const random = rng(7);
  let differ = 0;
  let first = '';
  for (let i = 0; i < 1_000_000; i++) {
    let v: number;
    switch (i % 6) {
      case 0: v = Math.round((random() - 0.5) * 1e6) / 100; break; // cents
      case 1: v = random() * 100; break; // full precision
      case 2: v = Math.round(random() * 1e12) / 10 ** (1 + (i % 7)); break; // up to 6 places, large mantissas
      case 3: v = (random() - 0.5) * 10 ** (Math.floor(random() * 40) - 15); break; // any magnitude
      case 4: v = Math.round(random() * 1e6) / 1e3 / 3; break; // means of decimals
      default: v = Math.round(random() * 1e17) / 100; break; // mantissas past 10^15
    }
    if (jsonNumber(v) !== JSON.stringify(v)) {
      differ++;
      first ||= `${JSON.stringify(v)} written as ${jsonNumber(v)}`;
    }
  }
  t.equal(differ, 0, first || 'all equal');
});
