import t, { type Test } from 'tap';
import { decodeChunk, encodeChunk } from '../../src/tsdb/chunk.js';
import { ByteReader, ByteWriter } from '../../src/tsdb/bytes.js';
import { readValues, VALUE_FORMS, writeValues } from '../../src/tsdb/values.js';
import { ALL_COLUMNS, COLUMN, emptyPoints, pushPoint, sortMerge, type Points } from '../../src/tsdb/points.js';
import { decodeWal, encodeWal, walSummary, type WalRecord } from '../../src/tsdb/wal.js';

/** A decoded record's samples as objects, to compare with what was encoded. */
const samplesOf = (rec: WalRecord) => rec.series.map((series, i) => ({ ...walSummary(rec, i, { count: 0, sum: 0, min: 0, max: 0, last: 0, sumsq: 0 }), time: rec.time[i], series }));

function roundTripValues(t: Test, values: number[]): number[] {
  const w = new ByteWriter(4);
  writeValues(w, values, values.length);
  const out: number[] = [];
  const r = new ByteReader(w.finish());
  readValues(r, out, values.length);
  t.ok(r.done, 'the reader consumed every byte');
  return out;
}

const same = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));

t.test('value columns round-trip exactly, edge values included', async (t) => {
  const cases: [string, number[]][] = [
    ['empty', []],
    ['integers and big counters', [0, 1, 2, 2 ** 31, 2 ** 32 + 7, 2 ** 51, -(2 ** 51), 123456789012]],
    ['two decimals', [43.27, 43.28, 41.1, -0.01, 99.99]],
    ['signed zeros', [0, -0, 0, -0]],
    ['extremes', [Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, -Number.MIN_VALUE, 1e-130, 9.99e126, 2 ** 53, 2 ** 53 + 2]],
    ['full precision', [Math.PI, Math.E, 0.1 + 0.2, 1 / 3, 12345.678901234567]],
    ['repeats', [7.5, 7.5, 7.5, 7.5]],
    ['non-finite bits survive too', [Infinity, -Infinity, NaN]],
  ];
  for (const [name, values] of cases) t.ok(same(roundTripValues(t, values), values), name);
});

t.test('steady counters and two-decimal gauges are compact', async (t) => {
  const counters = Array.from({ length: 360 }, (_, i) => 1_000_000 + i * 37);
  const w = new ByteWriter();
  writeValues(w, counters, counters.length);
  t.ok(w.pos < 2 * counters.length + 8, `counters: ${w.pos} bytes for ${counters.length} values`);
});

t.test('varints handle values past 32 bits', async (t) => {
  const w = new ByteWriter(1);
  const xs = [0, 127, 128, 2 ** 31, 2 ** 32, 2 ** 53 - 1];
  for (const x of xs) w.uvarint(x);
  for (const x of [-1, -(2 ** 40), 2 ** 40]) w.svarint(x);
  const r = new ByteReader(w.finish());
  t.same(xs.map(() => r.uvarint()), xs);
  t.same([r.svarint(), r.svarint(), r.svarint()], [-1, -(2 ** 40), 2 ** 40]);
  t.throws(() => r.byte(), RangeError, 'reading past the end throws');
});

function points(rows: [number, number][]): Points {
  const p = emptyPoints();
  for (const [time, v] of rows) pushPoint(p, time, { count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v });
  return p;
}

t.test('chunks round-trip plain and summary points', async (t) => {
  const win = 1_795_276_800;
  const plain = points([[win, 1], [win + 60, 2.5], [win + 120, -0], [win + 121, 3], [win + 21599, 1e-300]]);
  t.same(decodeChunk(encodeChunk(plain, win), win), plain);
  const summary = emptyPoints();
  pushPoint(summary, win + 5, { count: 3, sum: 6, min: 1, max: 3, last: 2, sumsq: 14 });
  pushPoint(summary, win + 10, { count: 1, sum: 5, min: 5, max: 5, last: 5, sumsq: 25 });
  const back = decodeChunk(encodeChunk(summary, win), win);
  t.same(back, summary);
  t.same(decodeChunk(encodeChunk(emptyPoints(), win), win), emptyPoints());
  t.throws(() => decodeChunk(Buffer.from([5, 0]), win), RangeError, 'a truncated chunk is an error, not garbage');
});

t.test('equal timestamps merge into one summary; the later write is last', async (t) => {
  const a = points([[100, 1], [160, 4]]);
  const b = points([[100, 3], [130, 2]]);
  const m = sortMerge([a, b]);
  t.same(m.t, [100, 130, 160]);
  t.same(m.count, [2, 1, 1]);
  t.same(m.sum, [4, 2, 4]);
  t.same(m.min, [1, 2, 4]);
  t.same(m.max, [3, 2, 4]);
  t.same(m.last, [3, 2, 4]);
  t.same(m.sumsq, [10, 4, 16]);
  const round = decodeChunk(encodeChunk(m, 0), 0);
  t.same(round, m);
});

t.test('WAL records round-trip', async (t) => {
  const samples = [
    { time: 1_795_276_800, count: 1, sum: 2.5, min: 2.5, max: 2.5, last: 2.5, sumsq: 6.25 },
    { time: 1_795_276_801, count: 4, sum: 10, min: -1, max: 7, last: 3, sumsq: 60 },
  ];
  const rec = decodeWal(encodeWal(12, [7, 2 ** 33], samples));
  t.equal(rec.account, 12);
  t.same(samplesOf(rec), samples.map((s, i) => ({ ...s, series: [7, 2 ** 33][i] })));
});

t.test('WAL records of mixed plain and summary samples round-trip; shared times are cheap', async (t) => {
  const samples = Array.from({ length: 21 }, (_, i) => (i % 4 === 3
    ? { time: 1_795_276_800, count: i, sum: i * 2.5, min: -i, max: i * 3, last: i, sumsq: i * i * 9.25 }
    : { time: 1_795_276_800 + (i === 20 ? -5 : 0), count: 1, sum: i * 1.25, min: i * 1.25, max: i * 1.25, last: i * 1.25, sumsq: i * 1.25 * i * 1.25 }));
  const ids = samples.map((_, i) => 1000 + i * (i % 2 ? 1 : 3));
  const buf = encodeWal(3, ids, samples);
  const rec = decodeWal(buf);
  t.equal(rec.account, 3);
  t.same(samplesOf(rec), samples.map((s, i) => ({ ...s, series: ids[i] })));
  const plain = Array.from({ length: 1000 }, (_, i) => ({ time: 1_795_276_800, count: 1, sum: i + 0.25, min: i + 0.25, max: i + 0.25, last: i + 0.25, sumsq: (i + 0.25) ** 2 }));
  const size = encodeWal(1, plain.map((_, i) => i + 1), plain).length;
  t.ok(size < 6 * 1000, `1000 plain samples of consecutive series at one time: ${size} bytes`);
});

t.test('decoding a time range keeps exactly the points inside it', async (t) => {
  const win = 1_795_276_800;
  const p = emptyPoints();
  for (let i = 0; i < 50; i++) {
    const time = win + i * 60 + (i > 30 ? 7 : 0);
    pushPoint(p, time, { count: 1 + (i % 3), sum: i * 1.5, min: i - 1, max: i + 1, last: i, sumsq: i * i * 3 }, time + (i % 4 > 1 ? 50 : i % 4));
  }
  const buf = encodeChunk(p, win);
  t.same(decodeChunk(buf, win), p, 'every column round-trips, the last-sample times included');
  const full = decodeChunk(buf, win);
  for (const [from, to] of [[win, win + 600], [win + 1799, win + 1900], [win + 5000, win + 9000], [0, win], [win + 60, win + 61]]) {
    const cut = decodeChunk(buf, win, from, to);
    const idx = full.t.map((x, i) => (x >= from! && x < to! ? i : -1)).filter((i) => i >= 0);
    t.same(cut, { t: idx.map((i) => full.t[i]), count: idx.map((i) => full.count[i]), sum: idx.map((i) => full.sum[i]), min: idx.map((i) => full.min[i]), max: idx.map((i) => full.max[i]), last: idx.map((i) => full.last[i]), sumsq: idx.map((i) => full.sumsq[i]), lastT: idx.map((i) => full.lastT[i]) }, `[${from! - win}, ${to! - win})`);
  }
});

t.test('a decode asked for some summary columns returns those exactly, and the rest of the range', async (t) => {
  const { COLUMN, ALL_COLUMNS } = await import('../../src/tsdb/points.js');
  const p = emptyPoints();
  for (let i = 0; i < 50; i++) pushPoint(p, 1000 + i * 60, { count: 2 + (i % 3), sum: i * 1.5, min: -i, max: i + 0.25, last: i / 7, sumsq: i * i + 0.5 }, 1000 + i * 60 + (i % 7) * 3);
  const buf = encodeChunk(p, 0);
  const all = decodeChunk(buf, 0, 1300, 2500, ALL_COLUMNS);
  const cases: [string, number][] = [
    ['none (sum)', 0], ['count (mean)', COLUMN.count], ['min', COLUMN.min], ['max', COLUMN.max],
    ['last (derivative)', COLUMN.last], ['count and sumsq (stddev)', COLUMN.count | COLUMN.sumsq],
  ];
  for (const [name, columns] of cases) {
    const got = decodeChunk(buf, 0, 1300, 2500, columns);
    t.ok(same(got.t, all.t) && same(got.sum, all.sum), `${name}: times and sums`);
    for (const [key, bit] of Object.entries(COLUMN) as [keyof typeof COLUMN, number][]) {
      if (columns & bit) t.ok(same(got[key], all[key]), `${name}: ${key} as decoded whole`);
    }
    if (columns & COLUMN.last) t.ok(same(got.lastT, all.lastT), `${name}: the last-sample times with last`);
  }
  t.same(all.lastT, all.t.map((x) => x + (((x - 1000) / 60) % 7) * 3), 'the last-sample times of the range');
  const plain = encodeChunk({ t: [0, 60], count: [1, 1], sum: [3, 4], min: [3, 4], max: [3, 4], last: [3, 4], sumsq: [9, 16], lastT: [0, 60] }, 0);
  const mean = decodeChunk(plain, 0, -Infinity, Infinity, COLUMN.count);
  t.same([mean.count, mean.sum], [[1, 1], [3, 4]], 'plain points: count 1');
});

t.test('sorted parts that overlap merge as a stable sort by time would merge them, to the last bit', async (t) => {
  let seed = 3;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  let wrong = 0;
  for (let round = 0; round < 200; round++) {
    const parts: Points[] = Array.from({ length: 1 + Math.floor(random() * 5) }, () => {
      const p = emptyPoints();
      let time = Math.floor(random() * 20);
      for (let i = Math.floor(random() * 12); i > 0; i--) {
        const v = random() * 100 - 50;
        pushPoint(p, time, { count: 1 + Math.floor(random() * 3), sum: v, min: v - 1, max: v + random(), last: random(), sumsq: v * v + random() });
        time += 1 + Math.floor(random() * 4);
      }
      return p;
    });
    // the reference: every point in (time, part, index) order, equal times merged in that order
    const all = parts.flatMap((p, k) => p.t.map((time, i) => ({ time, k, i })));
    all.sort((a, b) => a.time - b.time || a.k - b.k || a.i - b.i);
    const want = emptyPoints();
    for (const { time, k, i } of all) {
      const p = parts[k]!;
      const n = want.t.length;
      if (n > 0 && want.t[n - 1] === time) {
        want.count[n - 1] += p.count[i]!;
        want.sum[n - 1] += p.sum[i]!;
        want.min[n - 1] = Math.min(want.min[n - 1]!, p.min[i]!);
        want.max[n - 1] = Math.max(want.max[n - 1]!, p.max[i]!);
        want.last[n - 1] = p.last[i]!;
        want.sumsq[n - 1] += p.sumsq[i]!;
      } else pushPoint(want, time, { count: p.count[i]!, sum: p.sum[i]!, min: p.min[i]!, max: p.max[i]!, last: p.last[i]!, sumsq: p.sumsq[i]! });
    }
    const got = sortMerge(parts);
    if (!(['t', 'count', 'sum', 'min', 'max', 'last', 'sumsq'] as const).every((f) => same(got[f], want[f]))) wrong++;
  }
  t.equal(wrong, 0, 'every merge equals the reference');
});

t.test('parts one after another are joined; a column that is the sum in every part stays the sum', async (t) => {
  const win = 0;
  const a = encodeChunk(points([[10, 1], [20, 2]]), win);
  const b = encodeChunk(points([[30, 3]]), win);
  // a mean read: count wanted, the rest not
  const m = sortMerge([decodeChunk(a, win, -Infinity, Infinity, COLUMN.count), decodeChunk(b, win, -Infinity, Infinity, COLUMN.count)]);
  t.same(m.t, [10, 20, 30]);
  t.same(m.count, [1, 1, 1]);
  t.equal(m.min, m.sum, 'not copied: it was the sum in every part');
  t.equal(m.sumsq, m.sum);
  // a part with real columns beside one without: its values are copied
  const summary = emptyPoints();
  pushPoint(summary, 40, { count: 2, sum: 9, min: 4, max: 5, last: 5, sumsq: 41 });
  const all = sortMerge([decodeChunk(a, win), decodeChunk(encodeChunk(summary, win), win)]);
  t.same(all.min, [1, 2, 4]);
  t.same(all.max, [1, 2, 5]);
  t.same(all.sumsq, [1, 4, 41]);
  t.same(all.count, [1, 1, 2]);
});

t.test('chunks decoded one after another into one set of columns equal their merge, for any columns asked for', async (t) => {
  const { decodeChunkInto, pointsFor } = await import('../../src/tsdb/chunk.js');
  const { ALL_COLUMNS } = await import('../../src/tsdb/points.js');
  const summary = emptyPoints();
  for (let i = 0; i < 20; i++) pushPoint(summary, 1200 + i * 60, { count: 2 + (i % 3), sum: i * 1.5, min: -i, max: i + 0.25, last: i / 7, sumsq: i * i + 0.5 });
  // a plain window, a summary window, a plain one again, in time order
  const chunks: [Buffer, number][] = [[encodeChunk(points([[10, 1], [20, 2.5], [30, -3]]), 0), 0], [encodeChunk(summary, 1200), 1200], [encodeChunk(points([[2500, 9], [2560, 0.125]]), 2400), 2400]];
  for (const columns of [0, COLUMN.count, COLUMN.min, COLUMN.max | COLUMN.last, COLUMN.count | COLUMN.sumsq, ALL_COLUMNS]) {
    for (const [from, to] of [[-Infinity, Infinity], [20, 1500], [1300, 2510]] as const) {
      const out = pointsFor(columns);
      for (const [buf, win] of chunks) decodeChunkInto(out, buf, win, from, to, columns);
      const want = sortMerge(chunks.map(([buf, win]) => decodeChunk(buf, win, from, to)));
      const wrong = (['t', 'sum', 'count', 'min', 'max', 'last', 'sumsq'] as const).filter((k) => {
        const bit = k === 't' || k === 'sum' ? -1 : COLUMN[k];
        if (bit > 0 && !(columns & bit)) return out[k] !== out.sum; // not asked for: the sum column itself
        return !same(out[k], want[k]);
      });
      t.same(wrong, [], `columns ${columns}, [${from}, ${to})`);
    }
  }
});

t.test('points append after others when their times never go back; an equal time merges into the one before', async (t) => {
  const { appendInOrder } = await import('../../src/tsdb/points.js');
  const { pointsFor } = await import('../../src/tsdb/chunk.js');
  const out = pointsFor(COLUMN.count);
  t.ok(appendInOrder(out, points([[10, 1], [20, 2]])));
  t.ok(appendInOrder(out, emptyPoints()), 'nothing to append');
  t.notOk(appendInOrder(out, points([[15, 5], [30, 6]])), 'a time before the last one');
  t.notOk(appendInOrder(out, points([[40, 5], [35, 6]])), 'unsorted');
  t.same(out.t, [10, 20], 'nothing appended by a refusal');
  t.ok(appendInOrder(out, points([[25, 3]])));
  t.same([out.t, out.sum, out.count], [[10, 20, 25], [1, 2, 3], [1, 1, 1]]);
  t.equal(out.max, out.sum, 'a column not read stays the sum column');
  // a bucket split: the first point merges into the last, and so does a repeat within
  const split = emptyPoints();
  pushPoint(split, 25, { count: 2, sum: 10, min: 4, max: 6, last: 4, sumsq: 52 });
  pushPoint(split, 30, { count: 1, sum: 7, min: 7, max: 7, last: 7, sumsq: 49 });
  pushPoint(split, 30, { count: 1, sum: 1, min: 1, max: 1, last: 1, sumsq: 1 });
  t.ok(appendInOrder(out, split));
  t.same([out.t, out.sum, out.count], [[10, 20, 25, 30], [1, 2, 13, 8], [1, 1, 3, 2]]);
  t.equal(out.min, out.sum, 'still the sum column: merges leave columns not read alone');
  const all = pointsFor(ALL_COLUMNS);
  t.ok(appendInOrder(all, points([[25, 3]])));
  t.ok(appendInOrder(all, split));
  t.same([all.t, all.count, all.sum, all.min, all.max, all.last, all.sumsq], [[25, 30], [3, 2], [13, 8], [3, 1], [6, 7], [4, 1], [61, 50]]);
});

t.test('parts decoded one after another, a shared bucket merged at each seam, equal their merge', async (t) => {
  const { decodeChunkInto, pointsFor } = await import('../../src/tsdb/chunk.js');
  const { mergeSeam } = await import('../../src/tsdb/points.js');
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  let wrong = 0;
  let refused = 0;
  let seams = 0;
  for (let run = 0; run < 300; run++) {
    // 1-4 parts of sorted, distinct times; each starts after, at, or (rarely) before the last one's last time
    const parts: Points[] = [];
    let last = Math.floor(rand() * 100);
    for (let k = 1 + Math.floor(rand() * 4); k > 0; k--) {
      const p = emptyPoints();
      const r = rand();
      let time = !parts.length ? last : r < 0.4 ? last : r < 0.9 ? last + 1 + Math.floor(rand() * 50) : Math.max(0, last - 1 - Math.floor(rand() * 60));
      for (let i = 1 + Math.floor(rand() * 6); i > 0; i--) {
        const v = Math.round(rand() * 1000) / 10 - 50; // tenths: sums depend on the order of additions
        if (rand() < 0.5) pushPoint(p, time, { count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v });
        else pushPoint(p, time, { count: 3, sum: v, min: v - 2, max: v + 5, last: v + 1, sumsq: v * v + 9 });
        last = time;
        time += 1 + Math.floor(rand() * 20);
      }
      parts.push(p);
    }
    const bufs = parts.map((p) => encodeChunk(p, 0));
    // every other run cut: a bound inside a split bucket, or one emptying a part
    const [from, to] = run % 2 ? [Math.floor(rand() * 80), 60 + Math.floor(rand() * 200)] : [-Infinity, Infinity];
    const want = sortMerge(bufs.map((b) => decodeChunk(b, 0, from, to)));
    for (const columns of [0, COLUMN.count, COLUMN.min | COLUMN.sumsq, ALL_COLUMNS]) {
      const out = pointsFor(columns);
      let ok = true;
      for (const b of bufs) {
        const start = out.t.length;
        decodeChunkInto(out, b, 0, from, to, columns);
        if (start > 0 && out.t[start] === out.t[start - 1]) seams++;
        if (!(ok = mergeSeam(out, start))) break;
      }
      if (!ok) { refused++; continue; }
      const bad = (['t', 'sum', 'count', 'min', 'max', 'last', 'sumsq'] as const).some((k) => {
        const bit = k === 't' || k === 'sum' ? -1 : COLUMN[k];
        if (bit > 0 && !(columns & bit)) return out[k] !== out.sum;
        return !same(out[k], want[k]);
      });
      if (bad) wrong++;
    }
  }
  t.equal(wrong, 0, 'every join that was not refused equals the merge');
  t.ok(seams > 100, `seams merged (${seams})`);
  t.ok(refused > 10, `overlapping parts refused (${refused})`);
});

t.test('head points appended in order after stored ones equal their merge, or are refused whole', async (t) => {
  const { appendInOrder } = await import('../../src/tsdb/points.js');
  const { pointsFor } = await import('../../src/tsdb/chunk.js');
  let seed = 11;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const sortedPart = (start: number, n: number, step: () => number): Points => {
    const p = emptyPoints();
    let time = start;
    for (let i = 0; i < n; i++) {
      const v = Math.round(rand() * 1000) / 10 - 50;
      pushPoint(p, time, rand() < 0.5 ? { count: 1, sum: v, min: v, max: v, last: v, sumsq: v * v } : { count: 2, sum: v, min: v - 1.5, max: v + 0.5, last: v + 0.1, sumsq: v * v + 0.7 });
      time += step();
    }
    return p;
  };
  let wrong = 0;
  let refused = 0;
  let merged = 0;
  for (let run = 0; run < 300; run++) {
    const stored = sortedPart(0, 1 + Math.floor(rand() * 8), () => 1 + Math.floor(rand() * 10));
    const lastStored = stored.t[stored.t.length - 1]!;
    // one or two head halves: each starts at, after or (sometimes) before the time before
    // it, and repeats a time now and then (a bucket split between the halves' roll-ups)
    const halves: Points[] = [];
    let at = lastStored;
    for (let k = 1 + Math.floor(rand() * 2); k > 0; k--) {
      const r = rand();
      const start = r < 0.4 ? at : r < 0.85 ? at + 1 + Math.floor(rand() * 5) : at - 1 - Math.floor(rand() * 5);
      const half = sortedPart(start, 1 + Math.floor(rand() * 5), () => (rand() < 0.2 ? 0 : 1 + Math.floor(rand() * 4)));
      at = half.t[half.t.length - 1]!;
      halves.push(half);
    }
    const want = sortMerge([stored, ...halves]);
    for (const columns of [0, COLUMN.count, COLUMN.max | COLUMN.last, ALL_COLUMNS]) {
      const out = pointsFor(columns);
      if (!appendInOrder(out, stored)) { wrong++; continue; }
      let rest = 0;
      while (rest < halves.length) {
        const before = out.t.length;
        if (!appendInOrder(out, halves[rest]!)) {
          if (out.t.length !== before) wrong++; // a refusal appends nothing
          break;
        }
        rest++;
      }
      if (rest < halves.length) refused++;
      const got = rest === halves.length ? out : sortMerge([out, ...halves.slice(rest)]);
      if (got.t.length < stored.t.length + halves.reduce((n, h) => n + h.t.length, 0)) merged++;
      const bad = (['t', 'sum', 'count', 'min', 'max', 'last', 'sumsq'] as const).some((k) => {
        const bit = k === 't' || k === 'sum' ? -1 : COLUMN[k];
        if (bit > 0 && !(columns & bit)) return false; // not asked for: anything
        return !same(got[k], want[k]);
      });
      if (bad) wrong++;
    }
  }
  t.equal(wrong, 0, 'every read equals the merge');
  t.ok(merged > 100, `equal times merged (${merged})`);
  t.ok(refused > 50, `halves going back refused (${refused})`);
});

/** writeValues' encoding of a column: its mode byte, and its length. */
function encoded(values: number[], sums: boolean, forms = sums ? VALUE_FORMS.sums : 0): { mode: number; bytes: number; back: number[] } {
  const w = new ByteWriter(4);
  writeValues(w, values, values.length, forms);
  const buf = w.finish();
  const back: number[] = [];
  const r = new ByteReader(buf);
  readValues(r, back, values.length);
  if (!r.done) throw new Error('bytes left over');
  return { mode: buf[0]!, bytes: buf.length, back };
}

t.test('sums of decimals added in floating point are stored near their decimal, exactly', async (t) => {
  let seed = 11;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  // a 900 s rollup of a two-decimal gauge: sums and sums of squares of 15 points
  const sums: number[] = [];
  const squares: number[] = [];
  for (let b = 0; b < 96; b++) {
    let s = 0;
    let q = 0;
    for (let i = 0; i < 15; i++) {
      const v = Math.round((50 + random() * 50) * 100) / 100;
      s += v;
      q += v * v;
    }
    sums.push(s);
    squares.push(q);
  }
  for (const [name, column, most] of [['sums', sums, 0.5], ['sums of squares', squares, 0.8]] as const) {
    const xor = encoded(column, false);
    t.equal(xor.mode, 1, `${name}: as plain values, xor`);
    const { mode, bytes, back } = encoded(column, true);
    t.equal(mode, 2, `${name}: as sums, near-decimal`);
    t.ok(same(back, column), `${name}: every bit back`);
    t.ok(bytes < xor.bytes * most, `${name}: ${bytes} bytes against xor's ${xor.bytes}`);
  }
});

t.test('a sums column round-trips every double, whichever form it takes', async (t) => {
  let seed = 5;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const f64 = new Float64Array(1);
  const u32 = new Uint32Array(f64.buffer);
  /** v moved by k units in the last place (across a 32-bit word too) */
  const ulps = (v: number, k: number) => {
    f64[0] = v;
    const lo = u32[0]! + k;
    u32[0] = lo >>> 0;
    u32[1] = u32[1]! + Math.floor(lo / 4294967296);
    return f64[0]!;
  };
  const cases: [string, number[]][] = [
    ['signed zeros', [0, -0, 0.1 + 0.2, -0]],
    ['subnormals', [5e-324, -5e-324, 1e-310, 0]],
    ['non-finite', [0.1 + 0.2, Infinity, NaN, -Infinity]],
    ['extremes', [Number.MAX_VALUE, 0.1 + 0.2, 2 ** 51 + 0.5, -(2 ** 52)]],
    ['a carry across the low word', [ulps(1.5, 0xffffffff), ulps(0.3, -4), ulps(2 ** 32 + 0.7, 4096), ulps(7.25, -4096)]],
    ['the distance bound', [ulps(0.3, 4097), ulps(0.7, -4097), 0.1 + 0.2]],
    ['twelve places', [1.000000000001 + 1e-13, 0.000000000003 * 3]],
  ];
  for (let k = 0; k < 300; k++) {
    const e = Math.floor(random() * 8);
    const column = Array.from({ length: 1 + Math.floor(random() * 40) }, () => {
      const pick = random();
      if (pick < 0.6) return Array.from({ length: 1 + Math.floor(random() * 20) }, () => Math.round((random() - 0.3) * 10 ** (e + 3)) / 10 ** e).reduce((a, b) => a + b);
      if (pick < 0.8) return ulps(Math.round(random() * 1e6) / 10 ** e, Math.floor(random() * 20) - 10);
      return (random() - 0.5) * 10 ** (Math.floor(random() * 40) - 20);
    });
    cases.push([`random ${k}`, column]);
  }
  let wrong = 0;
  const modes = new Set<number>();
  for (const [name, column] of cases) {
    const { mode, back } = encoded(column, true);
    modes.add(mode);
    if (!same(back, column)) {
      wrong++;
      t.fail(`${name}: ${column} came back as ${back}`);
    }
  }
  t.equal(wrong, 0, `all ${cases.length} columns back to the bit`);
  t.same([...modes].sort(), [0, 1, 2], 'every form was taken');
  // distances that cross the low 32 bits of the double, both ways: 2^50 (low word 0)
  // one unit down, and 2^51 - 1 (low word 0xfffffffc) four units up
  const w = new ByteWriter(4);
  w.byte(2);
  w.byte(0);
  w.svarint(2 ** 50);
  w.svarint(-1);
  w.svarint(2 ** 50 - 1);
  w.svarint(4);
  const back: number[] = [];
  readValues(new ByteReader(w.finish()), back, 2);
  t.same(back, [2 ** 50 - 0.125, 2 ** 51], 'a borrow from and a carry into the high word');
});

t.test('packed decimal columns round-trip exactly, any stretch of them, at every width', async (t) => {
  let seed = 17;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const cases: [string, number[]][] = [];
  const walk = (n: number, start: number, step: () => number) => {
    const out = [start];
    for (let i = 1; i < n; i++) out.push(out[i - 1]! + step());
    return out;
  };
  // every width up to the widest (deltas of 2^52 both ways), across the parts of 24 bits:
  // steps spread evenly over their range, which packing stores in fewer bytes than varints
  const widthCases: [string, number[]][] = [];
  for (let width = 0; width <= 52; width++) {
    widthCases.push([`width ${width}`, width <= 43
      ? walk(130, 0, () => Math.floor(random() * 2 ** width))
      : Array.from({ length: 130 }, () => Math.floor((random() - 0.5) * 2 ** (width - 1)))]);
  }
  const widest = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 2 ** 51 : -(2 ** 51)));
  widthCases.push(['width 54', widest]);
  const unpacked = widthCases.filter(([, column]) => {
    const { mode, bytes, back } = encoded(column, false, VALUE_FORMS.packed);
    return mode !== 3 || !same(back, column) || bytes >= encoded(column, false).bytes;
  });
  t.same(unpacked.map(([name]) => name), [], 'every width packed, in fewer bytes than varints, back to the bit');
  cases.push(...widthCases);
  cases.push(['a block of one delta', walk(65, 10, () => 7)]);
  cases.push(['three values', [1, 2, 4]]);
  cases.push(['big mantissas', walk(100, 2 ** 50, () => -Math.floor(random() * 2 ** 30))]);
  for (let k = 0; k < 200; k++) {
    const e = Math.floor(random() * 4);
    const spread = 10 ** Math.floor(random() * 8);
    cases.push([`random ${k}`, walk(3 + Math.floor(random() * 400), Math.round(random() * 1e6), () => Math.round((random() - 0.3) * spread)).map((m) => m / 10 ** e)]);
  }
  let wrong = 0;
  let packed = 0;
  for (const [name, column] of cases) {
    const { mode, back } = encoded(column, false, VALUE_FORMS.packed);
    if (mode === 3) packed++;
    const n = column.length;
    const from = Math.floor(random() * n);
    const to = from + Math.floor(random() * (n - from + 1));
    const w = new ByteWriter(4);
    writeValues(w, column, n, VALUE_FORMS.packed);
    const part: number[] = [];
    const r = new ByteReader(w.finish());
    readValues(r, part, n, from, to);
    if (!same(back, column) || !same(part, column.slice(from, to)) || !r.done) {
      wrong++;
      t.fail(`${name} (mode ${mode}, [${from}, ${to})): ${column.slice(0, 8)} came back as ${back.slice(0, 8)}`);
    }
  }
  t.equal(wrong, 0, `all ${cases.length} columns back to the bit, and every stretch asked for`);
  t.ok(packed > cases.length / 2, `most columns packed (${packed} of ${cases.length})`);
  t.equal(encoded([1, 2 ** 40, 1, 2 ** 40], false, VALUE_FORMS.packed).mode, 0, 'too few values to pack: varints');
});

t.test('packed decimals cost less than a byte a value where varints cost more; varints stay where they are smaller', async (t) => {
  let seed = 3;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  let c = 1e6;
  const counter = Array.from({ length: 360 }, () => (c += Math.floor(random() * 100)));
  let g = 7500;
  const gauge = Array.from({ length: 360 }, () => (g += Math.round((random() - 0.5) * 200)) / 100);
  for (const [name, column, most] of [['a counter growing by 0-99', counter, 0.95], ['a two-decimal gauge moving by up to 1.00', gauge, 1.1]] as const) {
    const varints = encoded(column, false);
    const { mode, bytes, back } = encoded(column, false, VALUE_FORMS.packed);
    t.equal(mode, 3, `${name}: packed`);
    t.ok(same(back, column), `${name}: every value back`);
    t.ok(bytes < column.length * most && bytes < varints.bytes * 0.8, `${name}: ${bytes} bytes packed, ${varints.bytes} as varints`);
  }
  // small steps with one large one in every block: a block's width is its largest step's
  const spiky = Array.from({ length: 360 }, (_, i) => i * 3 + Math.floor(i / 64) * 1e6 + (i % 64 === 5 ? 1e6 : 0));
  t.equal(encoded(spiky, false, VALUE_FORMS.packed).mode, 0, 'spikes in every block: varints');
});

t.test('a chunk packs its decimal columns; a column of the varint form, as chunks were written before, still reads', async (t) => {
  const win = 1_795_276_800;
  let c = 5000;
  const p = points(Array.from({ length: 360 }, (_, i) => [win + 60 * i, (c += (i * 7919) % 100)]));
  const chunk = encodeChunk(p, win);
  // a plain chunk ends with its one value column
  const column = encodedBytes(p.sum, VALUE_FORMS.packed);
  t.equal(column[0], 3, 'the values are packed');
  t.same(chunk.subarray(chunk.length - column.length), column, 'as the chunk holds them');
  t.same(decodeChunk(chunk, win), p);
  const varints = encodedBytes(p.sum);
  t.equal(varints[0], 0, 'varints');
  t.same(decodeChunk(Buffer.concat([chunk.subarray(0, chunk.length - column.length), varints]), win), p, 'read as before');
  const truncated = chunk.subarray(0, chunk.length - 3);
  t.throws(() => decodeChunk(truncated, win), RangeError, 'a truncated packed column is an error');
  const bad = new ByteWriter(4);
  bad.byte(3);
  bad.byte(0);
  bad.svarint(5);
  bad.svarint(0);
  bad.byte(33);
  t.throws(() => readValues(new ByteReader(bad.finish()), [], 10), RangeError, 'a width above 32 bits is an error');
});

t.test('packed float columns round-trip exactly, any stretch of them, edge values included', async (t) => {
  let seed = 29;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const f32 = new Float32Array(1);
  const cases: [string, number[]][] = [
    ['edge values', [0, -0, Number.MIN_VALUE, -Number.MIN_VALUE, 2.2250738585072014e-308, Number.MAX_VALUE, -Number.MAX_VALUE, Math.PI, -1 / 3, 2 ** -1074 * 12345, Infinity, -Infinity, NaN]],
    ['powers of two: no mantissa bits at all', Array.from({ length: 70 }, (_, i) => 2 ** (i - 35))],
    ['one sign and exponent, full mantissas', Array.from({ length: 130 }, () => 1 + random())],
    ['mixed signs', Array.from({ length: 200 }, () => (random() - 0.5) * 1e-3)],
    ['through a float32', Array.from({ length: 150 }, () => ((f32[0] = random() * 1e4), f32[0]!))],
    ['three values', [0.1, 0.2, 0.30000000000000004]],
  ];
  for (let k = 0; k < 200; k++) {
    const bits = 1 + Math.floor(random() * 52);
    const spread = Math.floor(random() * 40);
    cases.push([`random ${k}`, Array.from({ length: 3 + Math.floor(random() * 300) }, () => {
      const v = (1 + Math.floor(random() * 2 ** bits) / 2 ** bits) * 2 ** (Math.floor(random() * spread) - 20);
      return random() < 0.1 ? -v : v;
    })]);
  }
  let wrong = 0;
  let packed = 0;
  for (const [name, column] of cases) {
    const { mode, back } = encoded(column, false, VALUE_FORMS.packed);
    if (mode === 4) packed++;
    const n = column.length;
    const from = Math.floor(random() * n);
    const to = from + Math.floor(random() * (n - from + 1));
    const w = new ByteWriter(4);
    writeValues(w, column, n, VALUE_FORMS.packed | VALUE_FORMS.sums);
    const part: number[] = [];
    const r = new ByteReader(w.finish());
    readValues(r, part, n, from, to);
    if (!same(back, column) || !same(part, column.slice(from, to)) || !r.done) {
      wrong++;
      t.fail(`${name} (mode ${mode}, [${from}, ${to})): ${column.slice(0, 4)} came back as ${back.slice(0, 4)}`);
    }
  }
  t.equal(wrong, 0, `all ${cases.length} columns back to the bit, and every stretch asked for`);
  t.ok(packed > cases.length / 2, `most columns packed (${packed} of ${cases.length})`);
  t.equal(encoded([Math.PI, Math.E], false, VALUE_FORMS.packed).mode, 1, 'too few values to pack: xor');
});

t.test('packed floats cost the bits of their precision where xor costs whole bytes; xor stays where it is smaller', async (t) => {
  let seed = 5;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const f32 = new Float32Array(1);
  const full = Array.from({ length: 360 }, () => random() * 100);
  const single = Array.from({ length: 360 }, () => ((f32[0] = random() * 100), f32[0]!));
  for (const [name, column, most] of [['full-precision floats', full, 7.1], ['floats that went through a float32', single, 3.6]] as const) {
    const xor = encoded(column, false);
    const { mode, bytes, back } = encoded(column, false, VALUE_FORMS.packed);
    t.equal(xor.mode, 1, `${name}: xor without the packed forms`);
    t.equal(mode, 4, `${name}: packed`);
    t.ok(same(back, column), `${name}: every value back`);
    t.ok(bytes < column.length * most && bytes < xor.bytes * 0.9, `${name}: ${bytes} bytes packed, ${xor.bytes} as xor`);
  }
  // a float that mostly repeats: xor's one byte a repeat beats any width
  const steps = Array.from({ length: 360 }, (_, i) => Math.PI * (1 + Math.floor(i / 90)));
  t.equal(encoded(steps, false, VALUE_FORMS.packed).mode, 1, 'repeats: xor');
  // sums of two-decimal gauges: near-decimal stays smaller than either
  const sums = Array.from({ length: 96 }, () => { let s = 0; for (let i = 0; i < 15; i++) s += Math.round((50 + random() * 50) * 100) / 100; return s; });
  t.equal(encoded(sums, true, VALUE_FORMS.packed | VALUE_FORMS.sums).mode, 2, 'near-decimal sums: near-decimal');
});

t.test('a chunk packs its float columns; a corrupt packed float column is an error, not garbage', async (t) => {
  const win = 1_795_276_800;
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const p = points(Array.from({ length: 360 }, (_, i) => [win + 60 * i, random() * 100]));
  const chunk = encodeChunk(p, win);
  const column = encodedBytes(p.sum, VALUE_FORMS.packed);
  t.equal(column[0], 4, 'the values are packed');
  t.same(chunk.subarray(chunk.length - column.length), column, 'as the chunk holds them');
  t.same(decodeChunk(chunk, win), p);
  const xor = encodedBytes(p.sum);
  t.equal(xor[0], 1, 'xor');
  t.same(decodeChunk(Buffer.concat([chunk.subarray(0, chunk.length - column.length), xor]), win), p, 'an xor column, as chunks were written before, reads as before');
  t.throws(() => decodeChunk(chunk.subarray(0, chunk.length - 3), win), RangeError, 'a truncated packed float column is an error');
  const block = (lo: number, headWidth: number, mantissaWidth: number, fill: number) => {
    const w = new ByteWriter(4);
    w.byte(4);
    w.uvarint(lo);
    w.byte(headWidth);
    w.byte(mantissaWidth);
    for (let i = 0; i < Math.ceil(((headWidth + mantissaWidth) * 3) / 8); i++) w.byte(fill);
    return w.finish();
  };
  t.same((() => { const out: number[] = []; readValues(new ByteReader(block(1023, 0, 0, 0)), out, 3); return out; })(), [1, 1, 1], 'a block of one exponent and no mantissa bits');
  t.throws(() => readValues(new ByteReader(block(4096, 0, 0, 0)), [], 3), RangeError, 'a sign and exponent past 12 bits is an error');
  t.throws(() => readValues(new ByteReader(block(0, 13, 0, 0)), [], 3), RangeError, 'a head width past 12 bits is an error');
  t.throws(() => readValues(new ByteReader(block(0, 0, 53, 0)), [], 3), RangeError, 'a mantissa width past 52 bits is an error');
  t.throws(() => readValues(new ByteReader(block(4000, 8, 0, 0xff)), [], 3), RangeError, 'a head that overflows 12 bits is an error');
});

function encodedBytes(values: number[], forms = 0): Buffer {
  const w = new ByteWriter(4);
  writeValues(w, values, values.length, forms);
  return w.finish();
}

t.test('a summary chunk stores its counts as runs; one written before, counts one by one, still reads', async (t) => {
  const win = 1_795_276_800;
  const p = emptyPoints();
  for (let i = 0; i < 96; i++) pushPoint(p, win + i * 900, { count: i === 95 ? 7 : 15, sum: i * 15, min: i - 1, max: i + 1, last: i, sumsq: i * i * 15 });
  const buf = encodeChunk(p, win);
  t.same(decodeChunk(buf, win), p);
  t.same(decodeChunk(buf, win, win + 900 * 90, win + 900 * 96).count, [15, 15, 15, 15, 15, 7], 'a cut through the runs');
  // the earlier layout: flags 1, then a uvarint a count
  const w = new ByteWriter(4);
  w.uvarint(96);
  w.byte(1);
  w.uvarint(0);
  w.uvarint(900);
  w.uvarint(95);
  writeValues(w, p.sum, 96);
  for (const c of p.count) w.uvarint(c);
  for (const col of [p.min, p.max, p.last, p.sumsq]) writeValues(w, col, 96);
  const old = w.finish();
  t.same(decodeChunk(old, win), p, 'the old layout decodes to the same points');
  t.ok(buf.length < old.length - 90, `${buf.length} bytes against ${old.length}`);
  t.throws(() => decodeChunk(Buffer.concat([old.subarray(0, 1), Buffer.from([3]), old.subarray(2)]), win), RangeError, 'counts one by one read as runs: an error, not garbage');
});
