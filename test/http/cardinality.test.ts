// limits.new_series_per_hour: new series past the limit are refused with a 429 naming
// the metric and the limit in every write path; existing series keep accepting; the
// refusals are counted by account; GET /v1/cardinality shows where series come from.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer } from '../helpers/server.js';
import { hourBase, post } from '../helpers/measurements.js';
import { CardinalityGuard } from '../../src/ingest/cardinality.js';

t.test('past the limit: 429 naming metric and limit; known series still write; both APIs', async (t) => {
  const s = await startTestServer(t, 'limits:\n  new_series_per_hour: 5\n');
  const base = hourBase();
  const hosts = (from: number, n: number, name = 'cpu') =>
    Array.from({ length: n }, (_, i) => ({ name, value: i, time: base, tags: { host: `h${from + i}` } }));
  t.equal((await post(s, { measurements: hosts(0, 4) })).status, 200);
  const over = await post(s, { measurements: [...hosts(0, 4), ...hosts(10, 3, 'mem')] });
  t.equal(over.status, 429, 'three new series on top of four: over five');
  t.match(over.body, { errors: { request: [/^metric mem: this request would create 3 new series, and the account created 4 in the last hour; the limit is 5 new series per hour \(limits\.new_series_per_hour\)/] } });
  t.equal((await s.get('/v1/metrics/mem')).status, 404, 'a refused request creates nothing');
  t.equal((await post(s, { measurements: hosts(0, 4).map((m) => ({ ...m, time: base + 60 })) })).status, 200, 'existing series keep accepting data');
  t.equal((await post(s, { measurements: hosts(4, 1) })).status, 200, 'the fifth fits');
  const legacy = await s.request('POST', '/v1/metrics', { json: { gauges: [{ name: 'load', value: 1, source: 'web9', measure_time: base }] } });
  t.equal(legacy.status, 429, 'the source-based API is limited too');
  t.match(legacy.body, { errors: { request: [/^metric load: /] } });

  const metrics = (await s.get('/metrics', { auth: null })).text;
  t.match(metrics, /gaugeway_ingest_rejected_total\{reason="new_series_per_hour",account="admin@localhost"\} 2/);

  const report = await s.get('/v1/cardinality');
  t.equal(report.status, 200);
  t.match(report.body, { limit: { new_series_per_hour: 5 }, series: 5, new_series_last_hour: 5, metrics: [{ name: 'cpu', series: 5 }] });
  t.equal(report.body.recent_series.length, 5);
  t.match(report.body.recent_series[0], { metric: 'cpu', tags: { host: 'h4' } }, 'newest first');

  const other = await s.newAccount('other@example.com');
  t.equal((await s.request('POST', '/v1/measurements', { auth: other, json: { measurements: hosts(0, 5) } })).status, 200, 'the limit is per account');
  t.equal((await s.get('/v1/cardinality', { auth: other })).body.new_series_last_hour, 5);

  // a reload raises the limit at once
  const file = join(s.dataDir, 'config.yaml');
  writeFileSync(file, `data_dir: ${s.dataDir}\nhttp:\n  listen: "127.0.0.1:0"\nlog:\n  level: silent\nlimits:\n  new_series_per_hour: 100\n`);
  t.equal(await s.server.reload(), true);
  t.equal((await s.request('POST', '/v1/metrics', { json: { gauges: [{ name: 'load', value: 1, source: 'web9', measure_time: base }] } })).status, 200);
});

t.test('the hour slides: series created more than an hour ago no longer count', async (t) => {
  let now = 1_800_000_000_000;
  const guard = new CardinalityGuard(() => 3, () => {}, () => now);
  const series = (n: number) => Array.from({ length: n }, (_, i) => ({ metric: 'm', tags: [['k', `v${n}${i}`] as const] }));
  guard.admit(1, series(3));
  t.throws(() => guard.admit(1, series(1)), { status: 429 });
  now += 59 * 60_000;
  t.throws(() => guard.admit(1, series(1)), { status: 429 }, 'still inside the hour');
  now += 2 * 60_000;
  t.doesNotThrow(() => guard.admit(1, series(3)), 'an hour later the earlier ones are forgotten');
  t.equal(guard.createdLastHour(1), 3);
  const off = new CardinalityGuard(() => 0);
  t.doesNotThrow(() => off.admit(1, series(100000)), '0 turns the limit off');
});

t.test('admitUpTo (scrapes): the first new series up to what the hour leaves, counted', async (t) => {
  let refusals = 0;
  const guard = new CardinalityGuard(() => 5, () => { refusals++; });
  const series = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ metric: 'm', tags: [['k', `v${from + i}`] as const] }));
  t.equal(guard.admitUpTo(1, series(0, 3)), 3, 'room for all');
  t.equal(guard.admitUpTo(1, series(3, 4)), 2, 'room for two of four');
  t.equal(guard.createdLastHour(1), 5);
  t.equal(refusals, 1, 'a refusal counted once for the batch');
  t.equal(guard.admitUpTo(1, series(7, 2)), 0, 'no room left');
  t.equal(guard.admitUpTo(1, []), 0);
  t.equal(new CardinalityGuard(() => 0).admitUpTo(1, series(0, 100_000)), 100_000, '0 turns the limit off');
});
