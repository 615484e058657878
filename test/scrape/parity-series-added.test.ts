// scrape_series_added compared with Prometheus 2.42, which counts a sample's series as
// added when it is not in the target's scrape cache, i.e. not exposed in the previous
// scrape, whether or not that scrape's sample of it was stored. Gaugeway counted by
// storage, so a series whose sample was refused once (NaN, a repeated timestamp) counted
// as added again when it was next stored.
import t from 'tap';
import { parseExposition } from '../../src/scrape/parse.js';
import { convertScrape, SeriesCache } from '../../src/scrape/samples.js';

const target = { labels: [['instance', 'h:1'], ['job', 'j']] as const };
const job = { honorLabels: false, honorTimestamps: true, metricRelabelConfigs: [], externalLabels: [], sampleLimit: 0, labelLimit: 0 };
const limits = { oldest: 1_000, newest: 2_000_000_000, now: 1_700_000_000, tagsPerMeasurement: 10 };
const NOW = 1_700_000_000_000;

t.test('a series exposed in the previous scrape is not added, stored then or not', async (t) => {
  const cache = new SeriesCache();
  const added = (text: string, at: number) => convertScrape(parseExposition(text, 'text'), target, job, at, limits, cache).added;
  t.equal(added('q{quantile="0.5"} NaN\nc 1', NOW), 1, 'c is new; the NaN sample is not stored (Prometheus stores it and counts 2)');
  t.equal(added('q{quantile="0.5"} 3\nc 2', NOW + 15_000), 0, 'q was exposed last time: not new');
  t.equal(added(`c 3 ${NOW}`, NOW + 30_000), 0);
  t.equal(added(`c 3 ${NOW}\nq{quantile="0.5"} 4`, NOW + 45_000), 1, 'q was away for a scrape: new again');
  t.equal(added(`c 4 ${NOW + 60_000}\nq{quantile="0.5"} 5`, NOW + 60_000), 0, 'c, refused as a duplicate last time, is not new when stored again');
});
