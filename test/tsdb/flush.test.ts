// encodeFlush: a coarse part holding several windows of a series. With the soak's short
// test windows (`--window-seconds 1800`) an hour's bucket spans two raw windows, and the
// part must hold that bucket once, merged as reads merged the parts a window it replaces.
import t from 'tap';
import { Columns } from '../../src/tsdb/head.js';
import { encodeFlush, type Flush } from '../../src/tsdb/flush.js';
import { decodeChunk } from '../../src/tsdb/chunk.js';
import { rollUp, sortMerge } from '../../src/tsdb/points.js';
import { valueSample } from '../../src/tsdb/sample.js';
import type { HeadChunk } from '../../src/tsdb/head.js';

t.test('a coarse part of two windows that share a bucket holds it once, merged in time order', async (t) => {
  const HALF = 1800;
  const windows = [0, HALF].map((w) => {
    const columns = new Columns(w);
    // every 300 s, values that make sums inexact in floating point
    for (let k = 0; k < 6; k++) columns.append(w + k * 300, valueSample('m', [], w + k * 300, (w + k) / 7));
    return { chunk: { window: w } as HeadChunk, columns, minuteRaw: false };
  });
  const flush: Flush = { windows, firstPart: 1 };
  const parts: { tier: number; window: number; part: number; buf: Buffer }[] = [];
  encodeFlush(flush, (tier, window, part, buf) => parts.push({ tier, window, part, buf }));
  t.same(parts.map(({ tier, window, part }) => [tier, window, part]), [[3600, 0, 1], [900, 0, 2], [60, 0, 3], [0, 0, 4], [60, HALF, 5], [0, HALF, 6]],
    'one hourly and one 900 s part for both windows, then a 60 s and a raw part each, numbered in that order');
  const stored = decodeChunk(parts[0]!.buf, 0);
  // what a read merging one part a window gave: the later window's partial bucket merged into the earlier's
  const apart = sortMerge(windows.map((w) => rollUp(w.columns.points(), 3600)));
  t.same(stored, apart, 'one bucket, exactly as a read merged the parts a window');
  t.equal(stored.t.length, 1);
  t.equal(stored.count[0], 12);
  t.equal(stored.last[0], (HALF + 5) / 7, "its last is the later window's");
});
