// convertScrape: a scrape's parsed samples -> numbered rows, refusals counted by reason,
// limits failing the whole scrape, and the per-target series cache across scrapes.
import t from 'tap';
import { parseExposition } from '../../src/scrape/parse.js';
import { convertScrape, convertScrapeInSlices, reservedKey, SeriesCache, ScrapeLimitError, type ConvertedScrape } from '../../src/scrape/samples.js';
import { TimeSlice } from '../../src/tsdb/slice.js';
import { samplesOf } from '../../src/tsdb/sample.js';
import { compileRelabelConfigs } from '../../src/scrape/relabel.js';

const target = { labels: [['instance', 'h:1'], ['job', 'j']] as const };
const job = { honorLabels: false, honorTimestamps: true, metricRelabelConfigs: [], externalLabels: [], sampleLimit: 0, labelLimit: 0 };
const limits = { oldest: 1_000, newest: 2_000_000_000, now: 1_700_000_000, tagsPerMeasurement: 4 };
const NOW = 1_700_000_000_000;
const parse = (text: string) => parseExposition(text, 'text');
/** The rows as samples, by the cache's numbering. */
const samples = (c: ConvertedScrape, cache: SeriesCache) => samplesOf(c.rows.columns(cache.numbering.metrics, cache.numbering.tagSets));

t.test('values, tags, types and refusals', async (t) => {
  const cache = new SeriesCache();
  const c = convertScrape(parse([
    '# TYPE reqs counter', 'reqs_total{code="200"} 5', 'reqs_total{code="200"} 6',
    'temp NaN', 'temp{a="1",b="2",c="3"} 1', 'old 1 1000', 'fine 2 1600000000000',
  ].join('\n')), target, job, NOW, limits, cache);
  t.same(samples(c, cache).map((s) => [s.metric, s.tags, s.time, s.sum]), [
    ['reqs_total', [['code', '200'], ['instance', 'h:1'], ['job', 'j']], 1_700_000_000, 5],
    ['fine', [['instance', 'h:1'], ['job', 'j']], 1_600_000_000, 2],
  ]);
  t.same([...c.refused].sort(), [['duplicate', 1], ['not_finite', 1], ['time_out_of_range', 1], ['too_many_tags', 1]]);
  t.same(c.metrics.get('reqs_total'), { type: 'counter', spelling: 'reqs_total' });
  t.equal(c.postRelabel, 6);
});

t.test('sample_limit and label_limit fail the scrape', async (t) => {
  t.throws(() => convertScrape(parse('a 1\nb 2\nc 3'), target, { ...job, sampleLimit: 2 }, NOW, limits), ScrapeLimitError);
  t.throws(() => convertScrape(parse('a{x="1",y="2"} 1'), target, { ...job, labelLimit: 4 }, NOW, limits), /label_limit exceeded \(5 labels on a, limit 4\)/);
  const dropped = compileRelabelConfigs([{ source_labels: ['__name__'], regex: 'b|c', action: 'drop' }], () => {});
  t.equal(convertScrape(parse('a 1\nb 2\nc 3'), target, { ...job, sampleLimit: 1, metricRelabelConfigs: dropped }, NOW, limits).postRelabel, 1, 'counted after metric relabelling');
});

t.test('the series cache: mappings reused, series_added, forgotten after two scrapes away', async (t) => {
  const cache = new SeriesCache();
  const first = convertScrape(parse('a{x="1"} 1\nb 2'), target, job, NOW, limits, cache);
  t.equal(first.added, 2);
  t.equal(cache.size, 2);
  const again = convertScrape(parse('a{x="1"} 3\nc 4'), target, job, NOW + 5000, limits, cache);
  t.equal(again.added, 1, 'only c is new');
  t.equal(again.rows.columns([], []).tag[0], first.rows.columns([], []).tag[0], 'the same mapping reused (and the same series number)');
  t.same(samples(again, cache).map((s) => [s.metric, s.sum]), [['a', 3], ['c', 4]]);
  convertScrape(parse('a{x="1"} 5'), target, job, NOW + 10000, limits, cache);
  t.equal(cache.size, 2, 'b, unseen for two scrapes, forgotten; c kept one more');
  const back = convertScrape(parse('b 6'), target, job, NOW + 15000, limits, cache);
  t.equal(back.added, 1, 'a series back after a gap counts as added');
});

t.test('series dropped or refused are mapped once while exposed, and forgotten when gone', async (t) => {
  const cache = new SeriesCache();
  const dropGone = { ...job, metricRelabelConfigs: compileRelabelConfigs([{ source_labels: ['__name__'], regex: 'gone', action: 'drop' }], () => {}) };
  const text = 'gone 1\nwide{a="1",b="2",c="3"} 1\nnan NaN\nok 1';
  const mapped = () => parse(text).map((s) => cache.get(s.series));
  convertScrape(parse(text), target, dropGone, NOW, limits, cache);
  const first = mapped();
  t.ok(first.every((e) => e !== undefined), 'all four mapped');
  for (let i = 1; i <= 3; i++) convertScrape(parse(text), target, dropGone, NOW + i * 5000, limits, cache);
  t.same(mapped().map((e, i) => e === first[i]), [true, true, true, true], 'the same mappings, not made again each scrape');
  convertScrape(parse('ok 2'), target, dropGone, NOW + 20_000, limits, cache);
  convertScrape(parse('ok 3'), target, dropGone, NOW + 25_000, limits, cache);
  t.equal(cache.size, 1, 'unexposed for two scrapes: forgotten, dropped and refused ones too');
});

t.test('a changed tags-per-measurement limit maps the series again', async (t) => {
  const cache = new SeriesCache();
  const text = 'wide{a="1",b="2",c="3"} 1';
  t.same([...convertScrape(parse(text), target, job, NOW, limits, cache).refused], [['too_many_tags', 1]]);
  const c = convertScrape(parse(text), target, job, NOW + 5000, { ...limits, tagsPerMeasurement: 5 }, cache);
  t.same(samples(c, cache).map((s) => s.tags.length), [5], 'stored under the raised limit');
  t.same([...convertScrape(parse(text), target, job, NOW + 10_000, limits, cache).refused], [['too_many_tags', 1]], 'refused again once lowered');
});

t.test('a scrape failed by a limit still sweeps: what it mapped does not pile up', async (t) => {
  const cache = new SeriesCache();
  for (let scrape = 0; scrape < 5; scrape++) {
    const text = Array.from({ length: 10 }, (_, i) => `s${scrape}_${i} 1`).join('\n');
    t.throws(() => convertScrape(parse(text), target, { ...job, sampleLimit: 5 }, NOW + scrape * 1000, limits, cache), ScrapeLimitError);
  }
  t.equal(cache.size, 12, 'the last two scrapes\' mappings at most (five stored and the sixth that failed it, each), not all thirty');
});

t.test('magnitudes follow the push API: 1e127 and more refused as too_large, below 1e-130 stored as 0', async (t) => {
  const cache = new SeriesCache();
  const c = convertScrape(parse('big 1e308\nneg -1e127\nok 1e126\ntiny 1e-200'), target, job, NOW, limits, cache);
  t.same(samples(c, cache).map((s) => [s.metric, s.sum]), [['ok', 1e126], ['tiny', 0]]);
  t.same([...c.refused], [['too_large', 2]]);
});

t.test('an exposed sample naming one of the loop\'s own series is a duplicate, not merged into it', async (t) => {
  const cache = new SeriesCache();
  cache.reserved.add(reservedKey('up', [['instance', 'h:1'], ['job', 'j']]));
  const c = convertScrape(parse('up 5\nup{other="x"} 1'), target, job, NOW, limits, cache);
  t.same(samples(c, cache).map((s) => [s.metric, s.tags]), [['up', [['instance', 'h:1'], ['job', 'j'], ['other', 'x']]]], 'another up series is the target\'s to expose');
  t.same([...c.refused], [['duplicate', 1]]);
});

t.test('two exposed series that are one series (labels reordered, or made equal by relabelling) store one value, the other a duplicate', async (t) => {
  const cache = new SeriesCache();
  const c = convertScrape(parse('a{x="1",y="2"} 5\na{y="2",x="1"} 7\nb 1'), target, job, NOW, limits, cache);
  t.same(samples(c, cache).map((s) => [s.metric, s.sum]), [['a', 5], ['b', 1]], 'not 5 + 7 summed into one point');
  t.same([...c.refused], [['duplicate', 1]]);
  const dropZone = compileRelabelConfigs([{ regex: 'zone', action: 'labeldrop' }], () => {});
  const r = convertScrape(parse('c{zone="a"} 1\nc{zone="b"} 2'), target, { ...job, metricRelabelConfigs: dropZone }, NOW, limits);
  t.same([r.rows.length, [...r.refused]], [1, [['duplicate', 1]]]);
});

t.test('of two duplicates, the first in each scrape stores; a series written another way stores at once', async (t) => {
  const cache = new SeriesCache();
  const stored = (text: string) => samples(convertScrape(parse(text), target, job, NOW, limits, cache), cache).map((s) => s.sum);
  t.same(stored('a{x="1",y="2"} 5\na{y="2",x="1"} 7'), [5]);
  t.same(stored('a{x="1",y="2"} 6\na{y="2",x="1"} 8'), [6], 'the same order: the same one');
  t.same(stored('a{y="2",x="1"} 9\na{x="1",y="2"} 10'), [9], 'the other order: the first of this scrape');
  t.same(stored('a{y="2",x="1"} 11'), [11], 'the text changed (labels in another order): no scrape lost');
  const le = new SeriesCache();
  const om = (text: string) => samples(convertScrape(parse(text), target, job, NOW, limits, le), le).map((s) => s.sum);
  t.same(om('# TYPE h histogram\nh_bucket{le="1"} 3\nh_bucket{le="+Inf"} 4\nh_sum 2\nh_count 4'), [3, 4, 2, 4]);
  t.same(om('# TYPE h histogram\nh_bucket{le="1.0"} 5\nh_bucket{le="+Inf"} 6\nh_sum 3\nh_count 6'), [5, 6, 3, 6], 'le="1" written as le="1.0": the same series, stored');
});

t.test('convertScrapeInSlices converts what convertScrape does, giving the event loop back between slices', async (t) => {
  const text = Array.from({ length: 10_000 }, (_, i) => `m{i="${i}"} ${i}${i % 1000 === 7 ? '\nm{i="7"} 1' : ''}`).join('\n');
  const wholeCache = new SeriesCache();
  const whole = convertScrape(parse(text), target, job, NOW, limits, wholeCache, 2);
  const cache = new SeriesCache();
  let turns = 0;
  const ticker = setInterval(() => turns++, 0);
  const sliced = await convertScrapeInSlices(parse(text), target, job, NOW, limits, cache, 2, new TimeSlice(0));
  clearInterval(ticker);
  t.ok(turns > 0, `the event loop turned (${turns} timer callbacks) while it converted`);
  t.same(samples(sliced, cache).map((s) => [s.tags, s.sum]), samples(whole, wholeCache).map((s) => [s.tags, s.sum]), 'the same rows');
  t.same([...sliced.refused], [...whole.refused]);
  t.same([...sliced.refused], [['duplicate', 10]]);
  t.equal(sliced.rows.capacity, whole.rows.capacity);
  t.equal(cache.size, 10_000);
});
