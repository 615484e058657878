// The per-target pools of tag pairs and strings: one frozen pair per name and value for
// all of a target's series, rebuilt from the pairs in use once series churn leaves too
// many behind; and the series cache handing its series those shared pairs.
import t from 'tap';
import { PairPool, StringPool } from '../../src/scrape/shared-strings.js';
import { convertScrape, SeriesCache } from '../../src/scrape/samples.js';
import { parseExposition, SeriesMemo } from '../../src/scrape/parse.js';

const target = { labels: [['instance', 'h:1'], ['job', 'j']] as const };
const job = { honorLabels: false, honorTimestamps: true, metricRelabelConfigs: [], externalLabels: [], sampleLimit: 0, labelLimit: 0 };
const limits = { oldest: 1_000, newest: 2_000_000_000, now: 1_700_000_000, tagsPerMeasurement: 8 };
const NOW = 1_700_000_000_000;

t.test('a pair pool hands out one frozen pair per name and value', async (t) => {
  const pool = new PairPool();
  const text = 'host=a,host=b';
  const a = pool.get(text.slice(0, 4), text.slice(5, 6));
  t.same(a, ['host', 'a']);
  t.ok(Object.isFrozen(a));
  t.equal(pool.get('host', 'a'), a, 'the same array for the same name and value');
  const b = pool.get('host', 'b');
  t.not(b, a);
  t.equal(b[0], 'host');
  t.equal(pool.size, 2);
  pool.clear();
  t.equal(pool.size, 0);
  t.not(pool.get('host', 'a'), a, 'cleared: a new pair');
});

t.test('a pool is rebuilt from what is in use after growth or shrinkage, not at every sweep', async (t) => {
  const pool = new PairPool();
  const pairs = Array.from({ length: 2000 }, (_, i) => pool.get('n', String(i)));
  let asked = 0;
  let inUse = pairs;
  const live = () => { asked++; return inUse; };
  pool.trim(2000, live);
  t.equal(asked, 0, 'the first sweep: everything was just added, nothing to rebuild');
  for (let i = 0; i < 2000 + 1024; i++) pool.get('m', String(i));
  pool.trim(2000, live);
  t.equal(asked, 0, 'up to twice what it held and the slack: not rebuilt');
  pool.get('m', 'one more');
  inUse = pairs.slice(0, 1500);
  pool.trim(1500, live);
  t.equal(asked, 1, 'one past it: rebuilt');
  t.equal(pool.size, 1500, 'only the pairs in use kept');
  t.equal(pool.get('n', '3'), pairs[3], 'a pair in use keeps its identity');
  t.not(pool.get('n', '1700'), pairs[1700], 'one not in use was let go');
  inUse = pairs.slice(0, 10);
  pool.trim(751, live);
  t.equal(asked, 1, 'a target at just over half its series: not yet');
  pool.trim(749, live);
  t.equal(asked, 2, 'under half the series it had at the last rebuild: rebuilt, its peak not kept');
  t.equal(pool.size, 10);
  pool.trim(5, live);
  t.equal(asked, 2, 'a pool within the slack is left alone');

  const strings = new StringPool();
  const body = 'label_one label_two';
  t.equal(strings.get(body.slice(0, 9)), 'label_one');
  strings.get('label_one');
  t.equal(strings.size, 1, 'one entry for one text');
  strings.trim(1, () => ['label_one']);
  for (let i = 0; i <= 1026; i++) strings.get(`s${i}`);
  strings.trim(1, () => ['label_one']);
  t.equal(strings.size, 1, 'rebuilt from what is in use');
  strings.clear();
  t.equal(strings.size, 0);
});

t.test("a target's series share the pairs they have in common", async (t) => {
  const cache = new SeriesCache();
  const memo = new SeriesMemo();
  const text = 'up_total{path="/a",code="200"} 1\nup_total{path="/b",code="200"} 2\nother{path="/a"} 3\n';
  convertScrape(parseExposition(text, 'text', { memo }), target, job, NOW, limits, cache);
  const [a, b, other] = cache.numbering.tagSets.slice(0, 3).map((tags) => new Map(tags.map((p) => [p[0], p])));
  t.same([...a!.values()], [['code', '200'], ['instance', 'h:1'], ['job', 'j'], ['path', '/a']]);
  for (const name of ['job', 'instance', 'code']) t.equal(b!.get(name), a!.get(name), `${name}: one pair for both series`);
  t.equal(other!.get('path'), a!.get('path'), 'and across metrics');
  t.not(b!.get('path'), a!.get('path'));
  t.ok(cache.numbering.tagSets.every((tags) => Object.isFrozen(tags) && tags.every((p) => Object.isFrozen(p))), 'frozen, so the engine keeps them as they are');
  // a job change maps afresh, with a fresh pool
  cache.clear();
  const parsed = parseExposition(text, 'text', { memo });
  convertScrape(parsed, target, job, NOW + 5000, limits, cache);
  const again = new Map(cache.get(parsed[0]!.series)!.tags.map((p) => [p[0], p]));
  t.same(again.get('job'), ['job', 'j']);
  t.not(again.get('job'), a!.get('job'));
});
