// limits.answer_measurements: every kind of query answer (tagged series, grouped, `all`,
// source-based, composite) is refused with a 400 naming the limit once it would hold more
// measurements than that, counted from the points really there, and nothing stored is
// harmed by the refusal.
import t, { type Test } from 'tap';
import { startTestServer, type Reply, type TestServer } from '../helpers/server.js';
import { hourBase, post, query } from '../helpers/measurements.js';

const LIMIT = 1000;
const enc = encodeURIComponent;

/**
 * `dense`: sources/hosts h0-h2, one point a second for 400 s from `base` (1,200 points).
 * `sparse`: the same hosts, one point a minute over two hours (360 points).
 */
async function seed(s: TestServer, base: number) {
  const measurements = [];
  for (let h = 0; h < 3; h++) {
    for (let i = 0; i < 400; i++) measurements.push({ name: 'dense', value: i, time: base + i, tags: { host: `h${h}`, source: `h${h}` } });
    for (let i = 0; i < 120; i++) measurements.push({ name: 'sparse', value: i, time: base + i * 60, tags: { host: `h${h}` } });
  }
  const r = await post(s, { measurements });
  if (r.status !== 200) throw new Error(r.text);
}

function refusedOn(t: Test, r: Reply, param: string, what: string) {
  t.equal(r.status, 400, `${what}: 400`);
  const errors = (r.body as { errors?: { params?: Record<string, string[]> } }).errors;
  t.match(errors?.params?.[param]?.[0], /more than 1000 measurements \(limits\.answer_measurements\)/, `${what}: names the limit on ${param}`);
}

t.test('answers past limits.answer_measurements are a 400; below it they are whole', async (t) => {
  const s = await startTestServer(t, `limits:\n  answer_measurements: ${LIMIT}\n`);
  const base = hourBase();
  await seed(s, base);
  const w = `start_time=${base}&end_time=${base + 399}`;

  refusedOn(t, await query(s, 'dense', `${w}&resolution=1`), 'resolution', 'three series of 400 points');
  refusedOn(t, await query(s, 'dense', `${w}&resolution=1&group_by=host&group_by_function=sum`), 'resolution', 'three groups of 400 points');
  // 300 `all` measurements weigh 1,200
  refusedOn(t, await query(s, 'dense', `start_time=${base}&end_time=${base + 299}&resolution=1&summary_function=all&tags[host]=h0`), 'resolution', 'one series of 300 `all` measurements');

  const halved = await query(s, 'dense', `${w}&resolution=2`);
  t.equal(halved.status, 200, 'at resolution 2 the answer holds 600');
  t.same((halved.body as { series: { measurements: unknown[] }[] }).series.map((x) => x.measurements.length), [200, 200, 200]);
  const all = await query(s, 'dense', `start_time=${base}&end_time=${base + 199}&resolution=1&summary_function=all&tags[host]=h0`);
  t.equal(all.status, 200, '200 `all` measurements weigh 800');
  const one = await query(s, 'dense', `${w}&resolution=1&group_by=*&group_by_function=sum`);
  t.equal(one.status, 200, 'one group of 400 points');

  // 21,600 buckets a series, but only 120 points each are there
  const sparse = await query(s, 'sparse', `start_time=${base}&end_time=${base + 7199}&resolution=1`);
  t.equal(sparse.status, 200, 'a fine resolution over sparse series counts their points, not their buckets');
  t.same((sparse.body as { series: { measurements: unknown[] }[] }).series.map((x) => x.measurements.length), [120, 120, 120]);
});

t.test('source-based reads count the records of every source', async (t) => {
  const s = await startTestServer(t, `limits:\n  answer_measurements: ${LIMIT}\n`);
  const base = hourBase();
  await seed(s, base);
  refusedOn(t, await s.get(`/v1/metrics/dense?start_time=${base}&end_time=${base + 399}&resolution=1`), 'sources', 'three sources of 400 records');
  const counted = await s.get(`/v1/metrics/dense?start_time=${base}&end_time=${base + 399}&resolution=1&count=300`);
  t.equal(counted.status, 200, 'count=300: 900 records');
  const m = (counted.body as { measurements: Record<string, { measure_time: number }[]> }).measurements;
  t.same(Object.keys(m), ['h0', 'h1', 'h2']);
  t.same(m.h0!.map((r) => r.measure_time), Array.from({ length: 300 }, (_, i) => base + i), 'the first 300 after start_time');
  const last = await s.get(`/v1/metrics/dense?end_time=${base + 399}&resolution=1&count=300`);
  t.equal(last.status, 200);
  const lm = (last.body as { measurements: Record<string, { measure_time: number }[]> }).measurements;
  t.same(lm.h2!.map((r) => r.measure_time), Array.from({ length: 300 }, (_, i) => base + 100 + i), 'the last 300 before end_time');
  const one = await s.get(`/v1/metrics/dense?start_time=${base}&end_time=${base + 399}&resolution=1&sources[]=h1`);
  t.equal(one.status, 200, 'one source of 400 records');
});

t.test('composite answers count their points; gaps are not points', async (t) => {
  const s = await startTestServer(t, `limits:\n  answer_measurements: ${LIMIT}\n`);
  const base = hourBase();
  await seed(s, base);
  const compose = (expr: string, res: number, end = base + 399) => s.get(`/v1/measurements?compose=${enc(expr)}&start_time=${base}&end_time=${end}&resolution=${res}`);
  refusedOn(t, await compose('s("dense", "*")', 1), 'compose', 'three series of 400 points');
  t.equal((await compose('s("dense", "*")', 2)).status, 200, 'at resolution 2: 600 points');
  t.equal((await compose('sum(s("dense", "*"))', 1)).status, 200, 'their sum: 400 points');
  const sparse = await compose('s("sparse", "*")', 1, base + 7199);
  t.equal(sparse.status, 200, '3 x 7,200 buckets, 360 of them points');
});
