// Composite queries through the HTTP API: ad hoc on GET /v1/measurements (and /:name), the
// legacy GET /v1/metrics?compose= shape, persisted composite metrics, composite chart
// streams checked on save, and accounts kept apart.
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hourBase, post } from '../helpers/measurements.js';

const enc = encodeURIComponent;

/** cpu: host a = 1, 2, 3 and host b = 10, 20, 30 at base, +60, +120 (region r1 / r2); rx: host a = 5 each minute. */
async function seed(s: TestServer, base: number, scale = 1) {
  const measurements = [];
  for (let i = 0; i < 3; i++) {
    measurements.push({ name: 'cpu', value: (i + 1) * scale, time: base + i * 60, tags: { host: 'a', region: 'r1' } });
    measurements.push({ name: 'cpu', value: (i + 1) * 10 * scale, time: base + i * 60, tags: { host: 'b', region: 'r2' } });
    measurements.push({ name: 'rx', value: 5, time: base + i * 60, tags: { host: 'a' } });
  }
  t.equal((await post(s, { measurements })).status, 200);
}

t.test('ad hoc composites on GET /v1/measurements and /v1/measurements/:name', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  await seed(s, base);
  const window = `start_time=${base}&end_time=${base + 179}&resolution=60`;

  const sum = await s.get(`/v1/measurements?compose=${enc('sum(s("cpu", "*"))')}&${window}`);
  t.equal(sum.status, 200, JSON.stringify(sum.body));
  t.equal(sum.body.length, 1, 'a bare array with one series');
  t.same(sum.body[0].measurements, [{ time: base, value: 11 }, { time: base + 60, value: 22 }, { time: base + 120, value: 33 }]);
  t.match(sum.body[0], { metric: { name: 'cpu', type: 'gauge' }, period: 60 });

  const byName = await s.get(`/v1/measurements/cpu?compose=${enc('s("cpu", {"host": "b"})')}&${window}`);
  t.equal(byName.status, 200);
  t.same(byName.body.map((x: { tags: object }) => x.tags), [{ host: 'b', region: 'r2' }]);
  t.same(byName.body[0].measurements.map((m: { value: number }) => m.value), [10, 20, 30]);

  const ratio = await s.get(`/v1/measurements?compose=${enc('divide([sum(s("cpu", {"region": "r1"})), sum(s("cpu", "*"))])')}&${window}`);
  t.same(ratio.body[0].measurements.map((m: { value: number }) => Math.round(m.value * 1000) / 1000), [0.091, 0.091, 0.091]);

  const top = await s.get(`/v1/measurements?compose=${enc('top(s("*", "*"), {count: "1", function: "max"})')}&${window}`);
  t.same(top.body.map((x: { metric: { name: string }; tags: object }) => [x.metric.name, x.tags]), [['cpu', { host: 'b', region: 'r2' }]], 'wildcard metric names read every stored metric');

  const noStart = await s.get(`/v1/measurements?compose=${enc('s("cpu", "*")')}&resolution=60`);
  t.equal(noStart.status, 400);
  t.same(noStart.body, { errors: { params: { start_time: ['is required with compose'] } } });
  const bad = await s.get(`/v1/measurements?compose=${enc('sum(s("cpu", "*")')}&${window}`);
  t.equal(bad.status, 400);
  t.match(bad.body, { errors: { params: { compose: [/column \d+: expected/] } } });
  const none = await s.get(`/v1/measurements?${window}`);
  t.equal(none.status, 400);
  t.match(none.body, { errors: { params: { compose: [/is required/] } } });
});

t.test('an ad hoc composite takes tags_search for its "%" and duration for its window, as a persisted one does', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  await seed(s, base);
  const window = `start_time=${base}&end_time=${base + 179}&resolution=60`;
  const hosts = (body: { tags: { host: string } }[]) => body.map((x) => x.tags.host);
  const all = await s.get(`/v1/measurements?compose=${enc('s("cpu", "%")')}&${window}`);
  t.same(hosts(all.body), ['a', 'b'], 'no tags_search: "%" is every series');
  const one = await s.get(`/v1/measurements?compose=${enc('s("cpu", "%")')}&${window}&tags_search=${enc('host=b')}`);
  t.equal(one.status, 200, JSON.stringify(one.body));
  t.same(hosts(one.body), ['b'], 'tags_search fills "%"');
  const fixed = await s.get(`/v1/measurements?compose=${enc('s("cpu", {"host": "a"})')}&${window}&tags_search=${enc('host=b')}`);
  t.same(hosts(fixed.body), ['a'], 'a definition without "%" keeps its own tags');
  const grouped = await s.get(`/v1/measurements?compose=${enc('s("cpu", "%")')}&${window}&group_by=host`);
  t.equal(grouped.status, 400, 'group_by does not apply to a composite: refused, not ignored');
  t.match(grouped.body, { errors: { params: { group_by: [/does not apply/] } } });
  const lasting = await s.get(`/v1/measurements?compose=${enc('s("cpu", {"host": "a"})')}&start_time=${base}&duration=70&resolution=60`);
  t.equal(lasting.status, 200, JSON.stringify(lasting.body));
  t.same(lasting.body[0].measurements.map((m: { time: number }) => m.time), [base, base + 60], 'duration ends the window start_time + duration on');
  const all3 = await s.get(`/v1/measurements?compose=${enc('s("cpu", "*")')}&${window}&duration=60`);
  t.equal(all3.status, 400, 'start_time, end_time and duration together are refused');
  t.match(all3.body, { errors: { params: { duration: [/cannot be combined/] } } });
});

t.test('series() reads every summary function of stored summaries', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  // two summaries a minute for one series: the minute's bucket merges them
  const measurements = [0, 60].flatMap((dt, i) => [
    { name: 'lat', count: 4, sum: 10 + i, min: 1, max: 6 + i, time: base + dt, tags: { host: 'a' } },
    { name: 'lat', count: 2, sum: 3, min: 0.5 + i, max: 2, time: base + dt + 30, tags: { host: 'a' } },
  ]);
  t.equal((await post(s, { measurements })).status, 200);
  const window = `start_time=${base}&end_time=${base + 119}&resolution=60`;
  const read = async (fn: string) => {
    const r = await s.get(`/v1/measurements?compose=${enc(`s("lat", "*", {function: "${fn}"})`)}&${window}`);
    t.equal(r.status, 200, JSON.stringify(r.body));
    return r.body[0].measurements.map((m: { value: number }) => m.value);
  };
  t.same(await read('mean'), [13 / 6, 14 / 6], 'mean: sum over count');
  t.same(await read('sum'), [13, 14]);
  t.same(await read('min'), [0.5, 1]);
  t.same(await read('max'), [6, 7]);
  t.same(await read('count'), [6, 6]);
});

t.test('the legacy GET /v1/metrics?compose= shape', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  t.equal((await s.request('POST', '/v1/metrics', { json: { gauges: [
    { name: 'load', value: 1, source: 'web1', measure_time: base },
    { name: 'load', value: 3, source: 'web2', measure_time: base },
  ] } })).status, 200);
  t.equal((await s.request('PUT', '/v1/sources/web1', { json: { display_name: 'Web one' } })).status, 204);
  const compose = 's("load", "web1")';
  const r = await s.get(`/v1/metrics?compose=${enc(compose)}&start_time=${base}&end_time=${base + 59}&resolution=60`);
  t.equal(r.status, 200, JSON.stringify(r.body));
  t.equal(r.body.compose, compose);
  t.equal(r.body.resolution, 60);
  t.equal(r.body.measurements.length, 1);
  t.match(r.body.measurements[0], {
    metric: { name: 'load', type: 'gauge' }, period: 60,
    query: { metric: 'load', source: 'web1' }, source: { name: 'web1', display_name: 'Web one' },
    series: [{ measure_time: base, value: 1 }],
  });
  t.ok(Array.isArray((await s.get('/v1/metrics')).body.metrics), 'without compose the list is unchanged');
});

t.test('persisted composite metrics are checked on save and evaluated on query', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  await seed(s, base);
  const window = `start_time=${base}&end_time=${base + 179}&resolution=60`;
  const created = await s.request('PUT', '/v1/metrics/cpu.total', { json: { type: 'composite', composite: 'sum(s("cpu", "*"))' } });
  t.equal(created.status, 201);
  const r = await s.get(`/v1/measurements/cpu.total?${window}`);
  t.equal(r.status, 200);
  t.same(r.body, { name: 'cpu.total', resolution: 60, series: [{ tags: {}, measurements: [{ time: base, value: 11 }, { time: base + 60, value: 22 }, { time: base + 120, value: 33 }] }], links: [] }, 'never an empty success');

  const dynamic = await s.request('PUT', '/v1/metrics/cpu.picked', { json: { type: 'composite', composite: 's("cpu", "%")' } });
  t.equal(dynamic.status, 201);
  const picked = await s.get(`/v1/measurements/cpu.picked?${window}&tags_search=${enc('host=a')}`);
  t.same(picked.body.series.map((x: { tags: object }) => x.tags), [{ host: 'a', region: 'r1' }], 'tags_search stands for "%"');
  const tagged = await s.get(`/v1/measurements/cpu.total?${window}&tags[host]=a`);
  t.equal(tagged.status, 400);
  t.match(tagged.body, { errors: { params: { tags: [/does not apply to a composite metric/] } } });

  const bad = await s.request('PUT', '/v1/metrics/cpu.bad', { json: { type: 'composite', composite: 'sum(s("cpu"' } });
  t.equal(bad.status, 400);
  t.match(bad.body, { errors: { params: { composite: [/column \d+: expected/] } } });
  t.equal((await s.get('/v1/metrics/cpu.bad')).status, 404, 'a bad definition is not saved');
  const nested = await s.request('PUT', '/v1/metrics/cpu.nested', { json: { type: 'composite', composite: 'scale(s("cpu.total", "*"), {factor: "2"})' } });
  t.equal(nested.status, 400);
  t.match(nested.body, { errors: { params: { composite: [/cannot reference another composite/] } } });
  const update = await s.request('PUT', '/v1/metrics/cpu.total', { json: { composite: 'sum(s("cpu"' } });
  t.equal(update.status, 400, 'an update is checked too');

  const legacy = await s.get(`/v1/metrics/cpu.total?${window}`);
  t.equal(legacy.status, 400);
  t.match(legacy.body, { errors: { request: [/is a composite metric: query it with GET \/v1\/measurements\/cpu\.total/] } });
  const gauges = await s.get(`/v1/gauges/cpu.total?${window}`);
  t.equal(gauges.status, 400, 'nor through the deprecated alias (it answered an empty success)');
  t.match(gauges.body, { errors: { request: [/is a composite metric/] } });
});

t.test('a composite reads no composite: not itself, not one created later, not one created at the same time', async (t) => {
  const s = await startTestServer(t);
  const put = (name: string, composite: string) => s.request('PUT', `/v1/metrics/${name}`, { json: { type: 'composite', composite } });
  const self = await put('loop', 'sum(s("LOOP", "*"))');
  t.equal(self.status, 400, 'a composite reading itself');
  t.match(self.body, { errors: { params: { composite: [/reads loop, itself/] } } });
  t.equal((await s.get('/v1/metrics/loop')).status, 404);
  t.equal((await put('early', 'sum(s("later", "*"))')).status, 201, 'a composite may name a metric to come');
  const later = await put('later', 'sum(s("cpu", "*"))');
  t.equal(later.status, 400, 'which then cannot be a composite');
  t.match(later.body, { errors: { params: { composite: [/early reads later: a composite cannot be read by another composite/] } } });
  t.equal((await s.request('PUT', '/v1/metrics/later', { json: { type: 'gauge' } })).status, 201, 'a gauge of that name can');
  const pair = await Promise.all([put('ping', 'sum(s("pong", "*"))'), put('pong', 'sum(s("ping", "*"))')]);
  t.same(pair.map((r) => r.status).sort(), [201, 400], 'two created at once, each reading the other: one is refused');
});

t.test('composite chart streams are parsed on save', async (t) => {
  const s = await startTestServer(t);
  const space = (await s.request('POST', '/v1/spaces', { json: { name: 'c' } })).body.id;
  const bad = await s.request('POST', `/v1/spaces/${space}/charts`, { json: { name: 'x', streams: [{ composite: 'sum(s("cpu", "*")' }] } });
  t.equal(bad.status, 400);
  t.match(bad.body, { errors: { params: { 'streams[0].composite': [/column \d+: expected/] } } });
  const good = await s.request('POST', `/v1/spaces/${space}/charts`, { json: { name: 'x', streams: [{ composite: 'sum(s("cpu", "*"))' }] } });
  t.equal(good.status, 201);
});

t.test('a composite reads only the caller\'s own series', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  await seed(s, base);
  const other = await s.newAccount('other@example.com');
  t.equal((await s.request('POST', '/v1/measurements', { auth: other, json: { measurements: [{ name: 'cpu', value: 1000, time: base, tags: { host: 'z' } }] } })).status, 200);
  const window = `start_time=${base}&end_time=${base + 59}&resolution=60`;
  const mine = await s.get(`/v1/measurements?compose=${enc('s("cpu", "*")')}&${window}`);
  t.same(mine.body.map((x: { tags: { host: string } }) => x.tags.host).sort(), ['a', 'b']);
  const theirs = await s.get(`/v1/measurements?compose=${enc('sum(s("*", "*"))')}&${window}`, { auth: other });
  t.same(theirs.body.map((x: { measurements: { value: number }[] }) => x.measurements[0]!.value), [1000]);
  t.equal((await s.request('PUT', '/v1/metrics/mine.total', { json: { type: 'composite', composite: 'sum(s("cpu", "*"))' } })).status, 201);
  t.equal((await s.get(`/v1/measurements/mine.total?${window}`, { auth: other })).status, 404, 'another account\'s composite metric does not exist for them');
});
