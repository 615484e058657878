import t from 'tap';
import { aggregate, derive, fill, filter, integrate, pair, rank, rate, scale, window } from '../../../src/query/composite/functions.js';
import { align, type Series } from '../../../src/query/composite/series.js';
import { MAX_COMPOSITE_POINTS } from '../../../src/query/composite/limits.js';
import { composeMessage } from './errors.js';

const _ = null; // a gap

interface Make { start?: number; step?: number; period?: number; tags?: Record<string, string>; metric?: string }

function mk(values: (number | null)[], o: Make = {}): Series {
  const step = o.step ?? 60;
  return {
    tags: Object.entries(o.tags ?? {}),
    metric: { name: o.metric ?? 'm', type: 'gauge', attributes: {}, period: null },
    start: o.start ?? 0,
    step,
    period: o.period ?? step,
    values: Float64Array.from(values, (v) => (v === null ? NaN : v)),
  };
}

/** values with gaps as null, for comparing */
const vals = (s: Series) => Array.from(s.values, (v) => (v === v ? v : null));
const one = (set: Series[]) => {
  if (set.length !== 1) throw new Error(`expected one series, got ${set.length}`);
  return set[0]!;
};

t.test('sum, mean, min, max, multiply combine the points present at each time', async (t) => {
  const a = mk([1, 2, _, 4, _]);
  const b = mk([10, _, 30, 40, _]);
  t.same(vals(one(aggregate('sum', [a, b]))), [11, 2, 30, 44, _], 'a gap contributes nothing: partial sums; no point at all stays a gap');
  t.same(vals(one(aggregate('mean', [a, b]))), [5.5, 2, 30, 22, _], 'the mean of the points present');
  t.same(vals(one(aggregate('min', [a, b]))), [1, 2, 30, 4, _]);
  t.same(vals(one(aggregate('max', [a, b]))), [10, 2, 30, 40, _]);
  t.same(vals(one(aggregate('multiply', [a, b]))), [10, 2, 30, 160, _]);
  t.same(vals(a), [1, 2, _, 4, _], 'inputs untouched');
});

t.test('an aggregate of the empty set is the empty set; of one series, that series', async (t) => {
  for (const fn of ['sum', 'mean', 'min', 'max', 'multiply'] as const) {
    t.same(aggregate(fn, []), [], fn);
    const s = one(aggregate(fn, [mk([3, _, -1], { tags: { host: 'a' } })]));
    t.same(vals(s), [3, _, -1], fn);
    t.same(s.tags, [['host', 'a']], fn);
  }
});

t.test('an aggregate carries the tags common to its inputs and their metric, if they share one', async (t) => {
  const a = mk([1], { tags: { region: 'eu', host: 'a', role: 'web' } });
  const b = mk([2], { tags: { host: 'b', region: 'eu', role: 'web' } });
  const c = mk([3], { tags: { region: 'eu', role: 'db' }, metric: 'other' });
  const ab = one(aggregate('sum', [a, b]));
  t.same(ab.tags, [['region', 'eu'], ['role', 'web']]);
  t.same(ab.metric, a.metric);
  const abc = one(aggregate('sum', [a, b, c]));
  t.same(abc.tags, [['region', 'eu']]);
  t.same(abc.metric, { name: 'sum(m,other)', type: 'composite', attributes: {}, period: null });
  const many = one(aggregate('max', ['a', 'b', 'c', 'd', 'e', 'f'].map((metric) => mk([1], { metric }))));
  t.equal(many.metric.name, 'max(a,b,c,d,e,...)');
});

t.test('series on different grids are aligned on time before combining', async (t) => {
  const a = mk([1, 2, 3], { start: 0 });
  const late = mk([10, 20, 30], { start: 120 });
  const s = one(aggregate('sum', [a, late]));
  t.same([s.start, s.step], [0, 60]);
  t.same(vals(s), [1, 2, 13, 20, 30]);

  const coarse = mk([100, 200], { start: 0, step: 120, period: 120 });
  const mixed = one(aggregate('sum', [a, coarse]));
  t.same([mixed.start, mixed.step, mixed.period], [0, 60, 120]);
  t.same(vals(mixed), [101, 2, 203, _], "the grid spans every input: the coarse one ends at 240");

  const odd = one(aggregate('sum', [mk([1, 2], { step: 60 }), mk([5, 6], { step: 90 })]));
  t.equal(odd.step, 30, 'the finest grid both fall on');
  t.same(vals(odd), [6, _, 2, 6, _, _]);
});

t.test('aligning grids that would need too many points is a 400', async (t) => {
  const fine = mk([1], { start: 0, step: 7 });
  const far = mk([1], { start: MAX_COMPOSITE_POINTS * 2, step: 3 });
  t.match(composeMessage(() => align([fine, far])), /aligned points: expected at most 10000000/);
});

t.test('divide and subtract work on exactly two series, where both have a point', async (t) => {
  const a = mk([10, 20, _, 40, 50], { tags: { host: 'a', dc: 'x' } });
  const b = mk([2, _, 3, 0, 5], { tags: { host: 'b', dc: 'x' }, metric: 'n' });
  const d = one(pair('divide', [a, b]));
  t.same(vals(d), [5, _, _, _, 10], 'division by zero is a gap, not Infinity');
  t.same(d.tags, [['dc', 'x']]);
  t.equal(d.metric.name, 'divide(m,n)');
  t.same(vals(one(pair('subtract', [a, b]))), [8, _, _, 40, 45]);
  t.same(vals(one(pair('subtract', [b, a]))), [-8, _, _, -40, -45], 'order matters');
  for (const set of [[], [a], [a, b, a]]) {
    t.same(pair('divide', set), [], `${set.length} series: empty set`);
    t.same(pair('subtract', set), [], `${set.length} series: empty set`);
  }
  const shifted = mk([1, 1], { start: 60 });
  t.same(vals(one(pair('subtract', [mk([5, 5]), shifted]))), [_, 4, _], 'mismatched times meet only where both have a point');
});

t.test('derive: change since the previous point present; a fall is a counter reset', async (t) => {
  const counter = mk([_, 10, 15, _, 25, 3, 8, _]);
  t.same(vals(one(derive([counter], true))), [_, _, 5, _, 10, 3, 5, _], 'reset: the new value counted up from 0');
  t.same(vals(one(derive([counter], false))), [_, _, 5, _, 10, -22, 5, _], 'without reset detection: plain difference');
  t.same(vals(one(derive([mk([7])], true))), [_], 'a single point has no predecessor');
  t.same(derive([], true), []);
  t.same(vals(one(derive([mk([5, 5, 4])], true))), [_, 0, 4], 'equal is no reset');
});

t.test('integrate: running total of the points present; gaps stay gaps', async (t) => {
  t.same(vals(one(integrate([mk([1, _, 2, 3, _])]))), [1, _, 3, 6, _]);
  t.same(integrate([]), []);
});

t.test('rate divides by the period and multiplies by the duration', async (t) => {
  t.same(vals(one(rate([mk([120, _, 60])], 1))), [2, _, 1]);
  t.same(vals(one(rate([mk([120], { step: 60, period: 300 })], 60))), [24], 'the period, not the step');
  t.same(vals(one(rate([mk([30], { step: 3600, period: 3600 })], 3600))), [30]);
});

t.test('scale multiplies every value', async (t) => {
  t.same(vals(one(scale([mk([2048, _, 1024])], 1 / 1024))), [2, _, 1]);
  t.same(scale([], 2), []);
});

t.test('window: fn of the last size points present; the first size-1 are left out', async (t) => {
  const s = mk([1, 5, _, 3, 2, 8, _, 4]);
  t.same(vals(one(window([s], 3, 'mean'))), [_, _, _, 3, 10 / 3, 13 / 3, _, 14 / 3]);
  t.same(vals(one(window([s], 3, 'sum'))), [_, _, _, 9, 10, 13, _, 14]);
  t.same(vals(one(window([s], 3, 'min'))), [_, _, _, 1, 2, 2, _, 2]);
  t.same(vals(one(window([s], 3, 'max'))), [_, _, _, 5, 5, 8, _, 8]);
  t.same(vals(one(window([s], 3, 'median'))), [_, _, _, 3, 3, 3, _, 4]);
  t.same(vals(one(window([s], 2, 'median'))), [_, 3, _, 4, 2.5, 5, _, 6], 'even size: mean of the middle two');
  t.same(vals(one(window([s], 1, 'mean'))), vals(s), 'size 1 is the series itself');
  t.same(vals(one(window([mk([1, 2])], 3, 'mean'))), [_, _], 'fewer points than the size: nothing');
  t.same(window([], 3, 'mean'), []);
});

t.test('fill: every missing period gets the value, or the last value seen', async (t) => {
  const s = mk([_, 1, _, _, 4, _]);
  t.same(vals(one(fill([s], 0))), [0, 1, 0, 0, 4, 0]);
  t.same(vals(one(fill([s], -1.5))), [-1.5, 1, -1.5, -1.5, 4, -1.5]);
  t.same(vals(one(fill([s], 'last'))), [_, 1, 1, 1, 4, 4], 'nothing seen yet in the window: still a gap');
  t.same(vals(s), [_, 1, _, _, 4, _], 'input untouched');
  t.same(fill([], 0), []);
});

t.test('fill at a period coarser than the step fills once per empty period', async (t) => {
  // step 60, period 180: periods [0,180) [180,360) [360,540)
  const s = mk([_, 2, _, _, _, _, _, _, 9], { step: 60, period: 180 });
  t.same(vals(one(fill([s], 0))), [_, 2, _, 0, _, _, _, _, 9]);
  t.same(vals(one(fill([s], 'last'))), [_, 2, _, 2, _, _, _, _, 9]);
});

t.test('top and bottom rank series by a reduction over the window', async (t) => {
  const a = mk([1, 9], { tags: { n: 'a' } }); // mean 5, max 9, sum 10, min 1
  const b = mk([6, 6], { tags: { n: 'b' } }); // mean 6, max 6, sum 12, min 6
  const c = mk([2, _], { tags: { n: 'c' } }); // mean 2, max 2, sum 2,  min 2
  const empty = mk([_, _], { tags: { n: 'e' } });
  const names = (set: Series[]) => set.map((s) => s.tags[0]![1]);
  t.same(names(rank([a, b, c, empty], 'top', 2, 'mean')), ['b', 'a']);
  t.same(names(rank([a, b, c, empty], 'top', 1, 'max')), ['a']);
  t.same(names(rank([a, b, c, empty], 'bottom', 2, 'sum')), ['c', 'a']);
  t.same(names(rank([a, b, c, empty], 'bottom', 10, 'min')), ['a', 'c', 'b'], 'a series without points is not ranked');
  t.same(names(rank([c, mk([2], { tags: { n: 'd' } }), a], 'top', 3, 'min')), ['c', 'd', 'a'], 'ties keep set order');
  t.same(rank([], 'top', 3, 'mean'), []);
});

t.test('filter keeps series whose reduction lies within every bound', async (t) => {
  const set = [mk([1, 3], { tags: { n: 'a' } }), mk([5, 5], { tags: { n: 'b' } }), mk([10, _], { tags: { n: 'c' } }), mk([_], { tags: { n: 'e' } })];
  const names = (s: Series[]) => s.map((x) => x.tags[0]![1]);
  const none = { gt: null, gte: null, lt: null, lte: null };
  t.same(names(filter(set, { ...none, gt: 2 }, 'mean')), ['b', 'c']);
  t.same(names(filter(set, { ...none, gte: 2, lt: 10 }, 'mean')), ['a', 'b']);
  t.same(names(filter(set, { ...none, lte: 5 }, 'max')), ['a', 'b']);
  t.same(names(filter(set, { ...none, gt: 9 }, 'sum')), ['b', 'c']);
  t.same(names(filter(set, { ...none, lt: 100 }, 'min')), ['a', 'b', 'c'], 'a series without points never passes');
});
