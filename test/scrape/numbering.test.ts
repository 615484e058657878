// SeriesNumbering: numbers stay put while the list lasts, holes are renumbered away once
// they are most of it, and every holder (a cached series, a health series) follows.
import t from 'tap';
import { SeriesNumbering, type Numbered } from '../../src/scrape/numbering.js';
import { convertScrape, SeriesCache } from '../../src/scrape/samples.js';
import { parseExposition } from '../../src/scrape/parse.js';
import { samplesOf } from '../../src/tsdb/sample.js';

const series = (metric: string, host: string): Numbered => ({ number: -1, metricNo: -1, metric, tags: [['host', host]] });

t.test('numbers, metric numbers, holes and renumbering', async (t) => {
  const n = new SeriesNumbering(2);
  const [a, b, c, d] = [series('m', 'a'), series('m', 'b'), series('k', 'c'), series('k', 'd')];
  for (const h of [a, b, c, d]) n.add(h);
  t.same([a, b, c, d].map((h) => [h.number, h.metricNo]), [[0, 0], [1, 0], [2, 1], [3, 1]]);
  t.same(n.metrics, ['m', 'k']);
  const list = n.tagSets;
  n.release(a);
  t.equal(a.number, -1);
  n.release(a); // twice is once
  n.compact();
  t.equal(n.tagSets, list, 'one hole of four: kept as it is');
  n.release(c);
  n.compact();
  t.not(n.tagSets, list, 'two holes of four: a new list (the old one stays as it was for batches in flight)');
  t.equal(list.length, 4);
  t.same([b, d].map((h) => [h.number, h.metricNo]), [[0, 0], [1, 1]]);
  t.same(n.tagSets, [b.tags, d.tags]);
  t.same(n.metrics, ['m', 'k']);
  t.equal(n.size, 2);
  n.add(a);
  t.equal(a.number, 2, 'a series back gets a new number');
});

t.test('a target whose series churn: its numbering stays bounded, rows keep their series', async (t) => {
  const cache = new SeriesCache();
  const health = series('up', 'h');
  cache.numbering.add(health);
  const target = { labels: [['instance', 'h:1'], ['job', 'j']] as const };
  const job = { honorLabels: false, honorTimestamps: true, metricRelabelConfigs: [], externalLabels: [], sampleLimit: 0, labelLimit: 0 };
  const limits = { oldest: 1_000, newest: 2_000_000_000, now: 1_700_000_000, tagsPerMeasurement: 4 };
  const exposition = (gen: number) => parseExposition(Array.from({ length: 1500 }, (_, i) => `pod_mem{pod="p${gen}-${i}"} ${i}`).join('\n'), 'text');
  let c = convertScrape(exposition(0), target, job, 1_700_000_000_000, limits, cache);
  let most = 0;
  const lists = new Set<unknown>();
  for (let gen = 1; gen <= 12; gen++) {
    c = convertScrape(exposition(gen), target, job, 1_700_000_000_000 + gen * 5000, limits, cache);
    most = Math.max(most, cache.numbering.tagSets.length);
    lists.add(cache.numbering.tagSets);
  }
  // live: this scrape's and the last one's series (the cache keeps both) and the health
  // series; holes are renumbered away before they outnumber them, then one scrape adds
  const live = 2 * 1500 + 1;
  t.ok(most <= 2 * live + 1500, `at most ${most} numbers`);
  t.ok(lists.size > 2, `renumbered: ${lists.size} lists`);
  t.ok(health.number >= 0, 'the health series keeps a number');
  t.same(cache.numbering.tagSets[health.number], [['host', 'h']]);
  const rows = samplesOf(c.rows.columns(cache.numbering.metrics, cache.numbering.tagSets));
  t.equal(rows.length, 1500);
  t.same(rows[7]!.tags, [['instance', 'h:1'], ['job', 'j'], ['pod', 'p12-7']]);
  t.equal(rows[7]!.sum, 7);
});
