// seriesJson is JSON.stringify of a series answer, written faster: the text must be the same.
import t from 'tap';
import { seriesJson } from '../../../src/http/views/series-json.js';
import type { SeriesResult } from '../../../src/query/series.js';

t.test('plain measurements, several series, tags needing escapes, a next link', async (t) => {
  const r: SeriesResult = {
    name: 'cpu "user"',
    resolution: 60,
    series: [
      { tags: { host: 'a', region: 'eu' }, measurements: [{ time: 60, value: 1.25 }, { time: 120, value: 0.1 + 0.2 }, { time: 180, value: -0 }, { time: 240, value: NaN }] },
      { tags: { 'host\n': 'b\u2028é' }, measurements: [{ time: 60, value: 1e21 }, { time: 120, value: 5e-7 }] },
      { tags: {}, measurements: [] },
    ],
    links: [{ rel: 'next', href: '/v1/measurements/cpu?cursor=abc&x=%22' }],
  };
  t.equal(seriesJson(r), JSON.stringify(r));
});

t.test("summary_function=all: every summary field, in the order the query set them", async (t) => {
  const r: SeriesResult = {
    name: 'm', resolution: 3600,
    series: [{ tags: { host: 'a' }, measurements: [
      { time: 3600, value: 2.5, count: 2, sum: 5, min: 1, max: 4, last: 4, stddev: 1.5 },
      { time: 7200, value: 1 },
    ] }],
    links: [],
  };
  t.equal(seriesJson(r), JSON.stringify(r));
});

t.test('no series', async (t) => {
  const r: SeriesResult = { name: 'm', resolution: 1, series: [], links: [] };
  t.equal(seriesJson(r), JSON.stringify(r));
});
