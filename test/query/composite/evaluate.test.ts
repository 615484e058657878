import t from 'tap';
import { parseComposite } from '../../../src/query/composite/parse.js';
import { evaluateComposite, type CompositeQuery } from '../../../src/query/composite/evaluate.js';
import { compositeView } from '../../../src/query/composite/response.js';
import type { Series } from '../../../src/query/composite/series.js';
import type { MetricInfo } from '../../../src/query/composite/source.js';
import { MemorySource, type MemorySeries } from './memory-source.js';
import { composeMessageAsync } from './errors.js';

const T = 86400 * 10; // window start, a day boundary
const Q: CompositeQuery = { from: T, to: T + 600, resolution: 60 };
const _ = null;

/** one sample per minute from T, `values[i]` at T + 60 i (null: none) */
function minutes(values: (number | null)[], from = T): [number, number][] {
  return values.flatMap((v, i) => (v === null ? [] : [[from + 60 * i, v] as [number, number]]));
}

const DATA: MemorySeries[] = [
  { metric: 'cpu', tags: { host: 'a', region: 'eu' }, samples: minutes([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) },
  { metric: 'cpu', tags: { host: 'b', region: 'eu' }, samples: minutes([10, 20, _, 40, 50, 60, 70, 80, 90, 100]) },
  { metric: 'cpu', tags: { host: 'c', region: 'us' }, samples: minutes([5, 5, 5, 5, 5, 5, 5, 5, 5, 5]) },
  { metric: 'cpu', tags: { host: 'd' }, samples: minutes([7, 7, 7, 7, 7, 7, 7, 7, 7, 7]) },
  { metric: 'stale', tags: { host: 'z' }, samples: [[T - 3600, 1]] },
];

const vals = (s: Series) => Array.from(s.values, (v) => (v === v ? v : null));
const tagsOf = (s: Series) => Object.fromEntries(s.tags);

async function run(src: string, data: MemorySeries[] = DATA, q: CompositeQuery = Q, metrics: Partial<MetricInfo>[] = []) {
  const source = new MemorySource(data, metrics);
  const out = await evaluateComposite(parseComposite(src), source, q);
  return { out, source };
}

t.test('series() selects by metric and tag globs and reads one value per bucket', async (t) => {
  const { out } = await run('s("cpu", {"region": "e*"})');
  t.same(out.map(tagsOf), [{ host: 'a', region: 'eu' }, { host: 'b', region: 'eu' }]);
  t.same(out.map((s) => [s.start, s.step, s.period]), [[T, 60, 60], [T, 60, 60]]);
  t.same(vals(out[1]!), [10, 20, _, 40, 50, 60, 70, 80, 90, 100]);
  t.same(out[0]!.metric, { name: 'cpu', type: 'gauge', attributes: {}, period: null });
  t.equal((await run('s("c*", "*")')).out.length, 4, 'a metric glob');
  t.equal((await run('s("cpu", {"region": "*"})')).out.length, 3, 'a pattern requires the tag');
});

t.test('the series function option picks the summary statistic of each bucket', async (t) => {
  const data: MemorySeries[] = [{ metric: 'lat', samples: [[T, 1], [T + 10, 5], [T + 20, 3], [T + 60, 4]] }];
  const first = async (fn: string) => vals((await run(`s("lat", "*", {function: "${fn}"})`, data)).out[0]!).slice(0, 2);
  t.same(await first('mean'), [3, 4]);
  t.same(await first('sum'), [9, 4]);
  t.same(await first('min'), [1, 4]);
  t.same(await first('max'), [5, 4]);
  t.same(await first('count'), [3, 1]);
});

t.test('the period option re-buckets: the source is read at that step, times floored to it', async (t) => {
  const { out, source } = await run('s("cpu", {"host": "a"}, {period: "300"})');
  t.same(source.reads.map((r) => [r.start, r.step, r.length]), [[T, 300, 2]]);
  t.same(vals(out[0]!), [3, 8]);
  t.same([out[0]!.step, out[0]!.period], [300, 300]);
  const below = await run('s("cpu", {"host": "a"}, {period: "30"})');
  t.same([below.source.reads[0]!.step, below.out[0]!.period], [60, 60], 'a period below the resolution changes nothing');
});

t.test('each series is read once per query, however often the expression names it', async (t) => {
  const twice = await run('divide([sum(s("cpu", "*")), sum(s("cpu", "*"))])');
  t.equal(twice.source.selects.length, 1);
  t.equal(twice.source.reads.length, 1);
  t.same(vals(twice.out[0]!), [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);

  const reordered = await run('[s("cpu", {"region": "eu", "host": "a"}), s("cpu", {"host": "a", "region": "eu"})]');
  t.equal(reordered.source.reads.length, 1, 'the same filter in another order');

  const fns = await run('[s("cpu", "*"), s("cpu", "*", {function: "max"})]');
  t.equal(fns.source.selects.length, 1, 'one select for the same metric and tags');
  t.equal(fns.source.reads.length, 2, 'one read per summary function');

  const derived = await run('[derive(s("cpu", "*")), s("cpu", "*")]');
  t.same(derived.source.reads.map((r) => [r.start, r.length]), [[T - 60, 11]], 'one read covering derive\'s look-back');
});

t.test('a series without a point in the window is not selected; nothing selected is the empty set', async (t) => {
  t.same((await run('s("stale", "*")')).out, []);
  t.same((await run('sum(s("stale", "*"))')).out, []);
  const none = await run('sum(s("nothing", "*"))');
  t.same(none.out, []);
  t.equal(none.source.reads.length, 0, 'nothing to read');
});

t.test('"%" stands for the caller\'s dynamic tags, and for every series without them', async (t) => {
  t.equal((await run('s("cpu", "%")')).out.length, 4);
  const { out } = await run('s("cpu", "%")', DATA, { ...Q, dynamicTags: [['region', 'us']] });
  t.same(out.map(tagsOf), [{ host: 'c', region: 'us' }]);
});

t.test('the examples of the issue: a ratio and a top-N', async (t) => {
  const ratio = await run('divide([sum(s("cpu",{"region":"eu"})), sum(s("cpu","*"))])');
  t.equal(ratio.out.length, 1);
  // bucket 2: host b has no point; eu = 3, all = 3 + 5 + 7
  t.same(vals(ratio.out[0]!).map((v) => Math.round(v! * 1000) / 1000), [0.478, 0.647, 0.2, 0.786, 0.821, 0.846, 0.865, 0.88, 0.892, 0.902]);
  t.same(tagsOf(ratio.out[0]!), {}, 'no tag is common to all inputs');
  t.equal(ratio.out[0]!.metric.name, 'cpu');

  const top = await run('top(s("cpu","*"),{count:"2",function:"max"})');
  t.same(top.out.map((s) => tagsOf(s).host), ['b', 'a']);
});

t.test('group_by runs the expression once per group of tag values', async (t) => {
  const { out, source } = await run('group_by("region", sum(s("cpu", "*")))');
  t.same(out.map(tagsOf), [{ region: 'eu' }, { host: 'c', region: 'us' }], 'groups in order of their values; host d lacks the tag and is in none');
  t.same(vals(out[0]!), [11, 22, 3, 44, 55, 66, 77, 88, 99, 110]);
  t.same(vals(out[1]!), [5, 5, 5, 5, 5, 5, 5, 5, 5, 5]);
  t.equal(source.reads.length, 1, 'groups are cut from one read');

  const share = await run('group_by("region", divide([sum(s("cpu", "*")), sum(s("cpu", "*", {group: "false"}))]))');
  t.same(share.out.map(tagsOf), [{ region: 'eu' }, { region: 'us' }], 'each result is labelled with its group, though the opted-out series has every region');
  t.same(vals(share.out[1]!).slice(0, 2), [5 / 23, 5 / 34], 'us against every series');
  t.equal(share.source.reads.length, 1);

  const nested = await run('group_by("region", group_by("host", s("cpu", "*")))');
  t.same(nested.out.map((s) => tagsOf(s).host), ['a', 'b', 'c']);

  t.same((await run('group_by("rack", sum(s("cpu", "*")))')).out, [], 'no series has the tag: no group');
  const two = await run('group_by("region,host", s("cpu", "*"))');
  t.same(two.out.map((s) => tagsOf(s).host), ['a', 'b', 'c']);
});

t.test('timeshift reads earlier windows and moves their points into the query window', async (t) => {
  const data: MemorySeries[] = [
    { metric: 'req', samples: [...minutes([1, 2, 3]), ...minutes([10, 20, 30], T - 86400), ...minutes([100], T + 86400)] },
  ];
  const q = { ...Q, to: T + 180 };
  const { out, source } = await run('timeshift("0,1,+1d", s("req", "*"))', data, q);
  t.same(out.map((s) => s.start), [T, T, T], 'all in the query window');
  t.same(out.map(vals), [[1, 2, 3], [10, 20, 30], [100, _, _]], 'in the order of the offsets');
  t.same(source.reads.map((r) => r.start), [T, T - 86400, T + 86400]);
  t.equal(source.selects.length, 1);

  const rounded = await run('timeshift("100s", s("req", "*"))', [{ metric: 'req', samples: minutes([1, 2, 3, 4, 5]) }], { ...q, from: T + 120, to: T + 300 });
  t.same(vals(rounded.out[0]!), [1, 2, 3], 'offsets are rounded to whole buckets (100 s -> 120 s)');

  const compare = await run('subtract([s("req", "*"), timeshift("1d", s("req", "*"))])', data, q);
  t.same(vals(compare.out[0]!), [-9, -18, -27], 'today against yesterday, point by point');
});

t.test('derive looks one step back so the first point of the window has a predecessor', async (t) => {
  const data: MemorySeries[] = [{ metric: 'hits', samples: minutes([100, 110, 130, 5, 15], T - 60) }];
  const { out } = await run('derive(s("hits", "*"))', data, { ...Q, to: T + 240 });
  t.equal(out[0]!.start, T);
  t.same(vals(out[0]!), [10, 20, 5, 10], 'the reset counts the new value');
  const plain = await run('derive(s("hits", "*"), {detect_reset: "false"})', data, { ...Q, to: T + 240 });
  t.same(vals(plain.out[0]!), [10, 20, -125, 10]);
  const coarse = await run('derive(s("hits", "*", {period: 120, function: "sum"}))', data, { ...Q, to: T + 240 });
  // 120 s buckets from T - 120: 100 | 110 + 130 = 240 | 5 + 15 = 20, a fall: a reset
  t.same([coarse.out[0]!.start, vals(coarse.out[0]!)], [T, [140, 20]], 'the look-back is the coarsest step');
});

t.test('rate and fill use the metric period when the series gives none', async (t) => {
  const data: MemorySeries[] = [{ metric: 'jobs', samples: minutes([300, _, _, _, _, 600]) }];
  const metrics = [{ name: 'jobs', period: 300 }];
  const q = { ...Q, to: T + 600 };
  const rated = await run('rate(s("jobs", "*"), {duration: "60"})', data, q, metrics);
  t.same(vals(rated.out[0]!).slice(0, 6), [60, _, _, _, _, 120], 'x / 300 * 60');
  t.same(rated.out[0]!.metric.period, 300);
  const filled = await run('zero_fill(s("jobs", "*"))', data, q, metrics);
  t.same(vals(filled.out[0]!), [300, _, _, _, _, 600, _, _, _, _], 'every 300 s period has a point already');
  const minute = await run('zero_fill(s("jobs", "*"))', data, q);
  t.same(vals(minute.out[0]!), [300, 0, 0, 0, 0, 600, 0, 0, 0, 0], 'no period: the resolution is the period');
  const asked = await run('fill(s("jobs", "*", {period: 120}), {value: "last"})', data, q, metrics);
  t.same(vals(asked.out[0]!), [300, 300, 600, 600, 600], 'series period: step and period');
});

t.test('a query that would read too many points is a 400 before anything is read', async (t) => {
  const source = new MemorySource(DATA);
  const message = await composeMessageAsync(() => evaluateComposite(parseComposite('s("cpu", "*")'), source, { from: 0, to: 3_000_000, resolution: 1 }));
  t.equal(message, 'reads 12000000 points: expected at most 10000000; use a coarser resolution, a shorter time range or narrower tag filters');
  t.equal(source.reads.length, 0);
});

t.test('one read used many times counts once per use: the answer would hold every use', async (t) => {
  const source = new MemorySource(DATA);
  const q = { from: 0, to: 1_000_000, resolution: 1 };
  // 4 series x 1,000,000 buckets read once (under the bound), evaluated four times (over it)
  const message = await composeMessageAsync(() => evaluateComposite(parseComposite('zero_fill([s("cpu","*"), s("cpu","*"), s("cpu","*"), s("cpu","*")])'), source, q));
  t.equal(message, 'evaluates 16000000 points: expected at most 10000000; use a coarser resolution, a shorter time range or fewer series() calls');
  t.equal(source.reads.length, 0);
  await t.resolves(evaluateComposite(parseComposite('[s("cpu","*"), s("cpu","*")]'), source, { ...q, to: 100 }));
});

t.test('a group_by counts each group\'s run: a {group: "false"} series in every group of many is a 400', async (t) => {
  // 400 hosts x 100 minutes is 40,000 values read; "each host's share of the total" runs
  // the 400-series total once per host: 16,000,000 values, which once took seconds of CPU
  const data: MemorySeries[] = Array.from({ length: 400 }, (_unused, h) => ({
    metric: 'cpu', tags: { host: `h${h}` }, samples: minutes(Array.from({ length: 100 }, (_v, i) => i + 1)),
  }));
  const q = { from: T, to: T + 6000, resolution: 60 };
  const share = 'group_by("host", divide([s("cpu", "*"), sum(s("cpu", "*", {group: "false"}))]))';
  const message = await composeMessageAsync(() => evaluateComposite(parseComposite(share), new MemorySource(data), q));
  t.match(message, /^evaluates more than 10000000 points, counting each group_by group's run of its series/);
  const few = await evaluateComposite(parseComposite(share), new MemorySource(data.slice(0, 40)), q);
  t.equal(few.length, 40, '40 groups of 40 series: well within the bound');
});

t.test('a source that breaks its contract is a programming error, not a 400', async (t) => {
  const source = new MemorySource(DATA);
  source.read = async () => [new Float64Array(1)];
  await t.rejects(evaluateComposite(parseComposite('s("cpu", "*")'), source, Q), { message: /expected 4 arrays of 10 values/ });
  await t.rejects(evaluateComposite(parseComposite('s("cpu", "*")'), source, { ...Q, resolution: 0 }), RangeError);
});

t.test('the response lists each series with points, its metric and period', async (t) => {
  const data: MemorySeries[] = [
    { metric: 'disk', tags: { host: 'a' }, samples: minutes([1, _, 3]) },
    { metric: 'disk', tags: { host: 'b' }, samples: minutes([_, 8]) },
  ];
  const metrics = [{ name: 'disk', type: 'gauge', attributes: { display_units_short: 'ops' }, period: 60 }];
  const { out } = await run('[s("disk", "*"), derive(s("disk", {"host": "b"}))]', data, { ...Q, to: T + 180 }, metrics);
  t.same(compositeView(out), [
    {
      tags: { host: 'a' },
      measurements: [{ time: T, value: 1 }, { time: T + 120, value: 3 }],
      metric: { name: 'disk', type: 'gauge', attributes: { display_units_short: 'ops' }, period: 60 },
      period: 60,
    },
    {
      tags: { host: 'b' },
      measurements: [{ time: T + 60, value: 8 }],
      metric: { name: 'disk', type: 'gauge', attributes: { display_units_short: 'ops' }, period: 60 },
      period: 60,
    },
  ], 'the derive of a single point has none and is left out');
});
