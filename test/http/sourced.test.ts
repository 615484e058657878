import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';

const NOW = Math.floor(Date.now() / 1000);
/** a minute-aligned time half an hour ago: well inside the raw tier */
const BASE = Math.floor((NOW - 1800) / 60) * 60;

async function read(s: TestServer, name: string, query: string) {
  const r = await s.get(`/v1/metrics/${name}?${query}`);
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  return r.body;
}

t.test('POST /v1/metrics: every layout, JSON and form, answers 200 with no body', async (t) => {
  const s = await startTestServer(t);
  const post = (o: { json?: unknown; form?: string }) => s.request('POST', '/v1/metrics', o);

  const byName = await post({ json: { source: 'web1', measure_time: BASE, gauges: { 'cpu.load': { value: 1.5 } }, counters: { 'req.count': { value: 100 } } } });
  t.equal(byName.status, 200);
  t.equal(byName.text, '');
  t.equal((await post({ json: { gauges: { 0: { name: 'cpu.load', value: 2.5, source: 'web2', measure_time: BASE } } } })).status, 200);
  t.equal((await post({ json: { gauges: [{ name: 'cpu.load', value: 3.5, source: 'web3', measure_time: BASE }], counters: [] } })).status, 200);
  t.equal((await post({ form: `gauges[0][name]=cpu.load&gauges[0][value]=4.5&gauges[0][source]=web4&measure_time=${BASE}.75` })).status, 200);
  t.equal((await post({ form: `gauges[cpu.load][value]=5.5&source=web5&measure_time=${BASE}` })).status, 200);

  const body = await read(s, 'cpu.load', `start_time=${BASE}&end_time=${BASE + 59}&resolution=60`);
  t.equal(body.name, 'cpu.load');
  t.equal(body.type, 'gauge');
  t.equal(body.resolution, 60);
  t.same(body.measurements, {
    web1: [{ measure_time: BASE, value: 1.5, count: 1 }],
    web2: [{ measure_time: BASE, value: 2.5, count: 1 }],
    web3: [{ measure_time: BASE, value: 3.5, count: 1 }],
    web4: [{ measure_time: BASE, value: 4.5, count: 1 }],
    web5: [{ measure_time: BASE, value: 5.5, count: 1 }],
  });
  t.same(body.query, {});
  t.equal((await s.get('/v1/metrics/req.count')).body.type, 'counter', 'first seen as a counter: a counter');
});

t.test('sources are the tag `source`: tagged and source-based data meet', async (t) => {
  const s = await startTestServer(t);
  await s.request('POST', '/v1/metrics', { json: { gauges: [{ name: 'mem', value: 10, source: 'db1', measure_time: BASE }, { name: 'mem', value: 7, measure_time: BASE + 1 }] } });
  await s.request('POST', '/v1/measurements', { json: { time: BASE + 2, measurements: [{ name: 'mem', value: 20, tags: { source: 'db2', region: 'eu' } }, { name: 'mem', value: 30, tags: { source: 'db2', region: 'us' } }, { name: 'mem', value: 5, tags: { region: 'us' } }] } });

  const sourced = await read(s, 'mem', `start_time=${BASE}&end_time=${BASE + 10}&resolution=1`);
  t.same(sourced.measurements, {
    db1: [{ measure_time: BASE, value: 10, count: 1 }],
    // two tagged streams with source db2 read as one source
    db2: [{ measure_time: BASE + 2, value: 25, count: 2, sum: 50, min: 20, max: 30, sum_squares: 1300 }],
    unassigned: [{ measure_time: BASE + 1, value: 7, count: 1 }, { measure_time: BASE + 2, value: 5, count: 1 }],
  });
  const tagged = await s.get(`/v1/measurements/mem?start_time=${BASE}&end_time=${BASE + 10}&resolution=1&tags[source]=db1`);
  t.same(tagged.body.series, [{ tags: { source: 'db1' }, measurements: [{ time: BASE, value: 10 }] }]);
});

t.test('multi-sample gauges and metric properties on creation only', async (t) => {
  const s = await startTestServer(t);
  await s.request('POST', '/v1/metrics', { json: { measure_time: BASE, gauges: { latency: { count: 4, sum: 10, min: 1, max: 4, sum_squares: 30, period: 30, display_name: 'Latency', stddev_m2: 1.2 } } } });
  await s.request('POST', '/v1/metrics', { json: { measure_time: BASE + 1, gauges: { latency: { value: 5, period: 90, display_name: 'Ignored' } } } });
  const m = await s.get('/v1/metrics/latency');
  t.equal(m.body.period, 30);
  t.equal(m.body.display_name, 'Latency');
  const body = await read(s, 'latency', `start_time=${BASE}&end_time=${BASE + 5}&resolution=1`);
  t.same(body.measurements.unassigned, [
    { measure_time: BASE, value: 2.5, count: 4, sum: 10, min: 1, max: 4, sum_squares: 30 },
    { measure_time: BASE + 1, value: 5, count: 1 },
  ]);
});

t.test('counters: stored as submitted, summarized as deltas with resets, never mixed with gauges', async (t) => {
  const s = await startTestServer(t);
  const values = [100, 130, 150, 20, 50]; // a reset between 150 and 20
  for (let i = 0; i < values.length; i++) {
    t.equal((await s.request('POST', '/v1/metrics', { json: { source: 'app', counters: [{ name: 'hits', value: values[i], measure_time: BASE + 60 * i }] } })).status, 200);
  }
  const plain = await read(s, 'hits', `start_time=${BASE}&end_time=${BASE + 299}&resolution=60`);
  t.same(plain.measurements.app.map((r: { value: number }) => r.value), values, 'plain reads give the submitted values');

  const summarized = await read(s, 'hits', `start_time=${BASE + 60}&end_time=${BASE + 299}&resolution=60&summarize_time=true`);
  // deltas from BASE+60 on: 30, 20, 20 (reset: counted from 0), 30
  t.same(summarized.measurements.app, [{ measure_time: BASE + 60, value: 25, count: 4, sum: 100, min: 20, max: 30, sum_squares: 2600, rollups: 4 }]);

  const derivative = await s.get(`/v1/measurements/hits?start_time=${BASE + 60}&end_time=${BASE + 299}&resolution=60&summary_function=derivative`);
  t.same(derivative.body.series[0].measurements.map((m: { value: number }) => m.value), [30, 20, 20, 30], 'derivative of a counter treats a decrease as a reset');

  const gaugeToCounter = await s.request('POST', '/v1/metrics', { json: { gauges: [{ name: 'hits', value: 1 }] } });
  t.equal(gaugeToCounter.status, 400);
  t.same(gaugeToCounter.body, { errors: { params: { 'gauges[0].name': ['hits is a counter; it cannot take gauge measurements'] } } });
  await s.request('POST', '/v1/metrics', { json: { gauges: [{ name: 'temp', value: 1 }] } });
  const counterToGauge = await s.request('POST', '/v1/metrics', { json: { counters: { temp: { value: 1 } } } });
  t.equal(counterToGauge.status, 400);
  t.same(counterToGauge.body.errors.params, { 'counters[temp].name': ['temp is a gauge; it cannot take counter measurements'] });
  const both = await s.request('POST', '/v1/metrics', { json: { gauges: [{ name: 'fresh', value: 1 }], counters: [{ name: 'fresh', value: 1 }] } });
  t.equal(both.status, 400);
  t.equal((await s.get('/v1/metrics/fresh')).status, 404, 'a refused request creates nothing');
});

t.test('the tagged API takes gauges only: a measurement to a counter is a 400 and stores nothing', async (t) => {
  const s = await startTestServer(t);
  t.equal((await s.request('POST', '/v1/metrics', { json: { source: 'app', counters: [{ name: 'Jobs.Done', value: 10, measure_time: BASE }] } })).status, 200);
  const message = 'jobs.done is a counter; POST /v1/measurements takes gauges only (send counters to POST /v1/metrics)';
  // a plain value (the scanner's fast path) and a multi-sample one (the full parser), in any spelling
  const bodies = [
    { time: BASE + 60, measurements: [{ name: 'ok.gauge', value: 1, tags: { source: 'app' } }, { name: 'jobs.done', value: 1, tags: { source: 'app' } }] },
    { time: BASE + 60, measurements: [{ name: 'ok.gauge', value: 1, tags: { source: 'app' } }, { name: 'JOBS.DONE', count: 2, sum: 4, tags: { source: 'app' } }] },
  ];
  for (const json of bodies) {
    const r = await s.request('POST', '/v1/measurements', { json });
    t.equal(r.status, 400, JSON.stringify(json));
    t.same(r.body, { errors: { params: { 'measurements[1].name': [message] } } });
  }
  const counter = await read(s, 'jobs.done', `start_time=${BASE}&end_time=${BASE + 119}&resolution=60`);
  t.same(counter.measurements, { app: [{ measure_time: BASE, value: 10, count: 1 }] }, 'the counter kept only its own value');
  t.equal((await s.get('/v1/metrics/ok.gauge')).status, 404, 'a refused request creates nothing');
});

t.test('properties a new metric cannot take refuse the request under the element, before any metric is created', async (t) => {
  const s = await startTestServer(t);
  const cases: [string, unknown, Record<string, string[]>][] = [
    ['/v1/metrics', { gauges: { 'first.a': 1, 'agg.b': { value: 1, period: 5, attributes: { aggregate: true } } } },
      { 'gauges[agg.b].period': ['must be from 10 to 600 seconds when service-side aggregation is on'] }],
    ['/v1/metrics', { gauges: [{ name: 'first.a', value: 1 }], counters: [{ name: 'cnt.b', value: 1, attributes: { summarize_function: 'sum' } }] },
      { 'counters[0].attributes': ['summarize_function and aggregate apply to gauges only'] }],
    ['/v1/measurements', { measurements: [{ name: 'first.a', value: 1, tags: { h: 'a' } }, { name: 'tr.b', value: 1, tags: { h: 'a' }, attributes: { display_transform: 'rm -rf' } }] },
      { 'measurements[1].attributes': ['display_transform may contain only digits, whitespace, parentheses, x, p, +, -, *, / and decimal points'] }],
  ];
  for (const [path, json, params] of cases) {
    const r = await s.request('POST', path, { json });
    t.equal(r.status, 400, JSON.stringify(json));
    t.same(r.body, { errors: { params } });
    t.equal((await s.get('/v1/metrics/first.a')).status, 404, 'the metric before it was not created');
  }
  // properties are applied only on creation: for a metric that exists they are not checked either
  t.equal((await s.request('POST', '/v1/metrics', { json: { gauges: { 'agg.b': 1 } } })).status, 200);
  t.equal((await s.request('POST', '/v1/metrics', { json: { gauges: { 'agg.b': { value: 1, period: 5, attributes: { aggregate: true } } } } })).status, 200);
});

t.test('an empty source means none, at the top level as on an element', async (t) => {
  const s = await startTestServer(t);
  t.equal((await s.request('POST', '/v1/metrics', { form: `source=&measure_time=${BASE}&gauges[es][value]=1` })).status, 200);
  t.equal((await s.request('POST', '/v1/metrics', { json: { source: '', measure_time: BASE + 1, gauges: [{ name: 'es', value: 2, source: '' }] } })).status, 200);
  const body = await read(s, 'es', `start_time=${BASE}&end_time=${BASE + 5}&resolution=1`);
  t.same(body.measurements, { unassigned: [{ measure_time: BASE, value: 1, count: 1 }, { measure_time: BASE + 1, value: 2, count: 1 }] });
});

t.test('a multi-sample gauge with only min or only max keeps min <= max', async (t) => {
  const s = await startTestServer(t);
  // mean 2, min 5: the stored max is at least the min, not the mean
  t.equal((await s.request('POST', '/v1/metrics', { json: { source: 'h', gauges: [{ name: 'lop', count: 2, sum: 4, min: 5, measure_time: BASE }] } })).status, 200);
  t.equal((await s.request('POST', '/v1/metrics', { json: { source: 'h', gauges: [{ name: 'lop', count: 2, sum: 4, max: 1, measure_time: BASE + 60 }] } })).status, 200);
  const body = await read(s, 'lop', `start_time=${BASE}&end_time=${BASE + 119}&resolution=60`);
  t.match(body.measurements.h, [{ min: 5, max: 5 }, { min: 1, max: 1 }]);
});

t.test('read parameters: sources, source_tag, summarize_sources, breakout_sources, count', async (t) => {
  const s = await startTestServer(t);
  const gauges = [];
  for (let i = 0; i < 3; i++) {
    for (const [src, v] of [['web-a', 1], ['web-b', 3], ['db-a', 10]] as const) gauges.push({ name: 'load', value: v + i, source: src, measure_time: BASE + 60 * i });
  }
  await s.request('POST', '/v1/metrics', { json: { gauges } });
  await s.request('POST', '/v1/measurements', { json: { time: BASE, measurements: [{ name: 'load', value: 99, tags: { source: 'web-c', rack: 'r1' } }] } });
  const q = `start_time=${BASE}&end_time=${BASE + 179}&resolution=60`;

  t.same(Object.keys((await read(s, 'load', `${q}&sources[]=web*`)).measurements), ['web-a', 'web-b', 'web-c']);
  t.same(Object.keys((await read(s, 'load', `${q}&sources[]=web-a&sources[]=db-a`)).measurements), ['db-a', 'web-a']);
  t.same(Object.keys((await read(s, 'load', `${q}&sources[0]=web-a&sources[1]=db-a`)).measurements), ['db-a', 'web-a'], 'sources[0]=, as Node\'s qs and jQuery write arrays');
  t.same(Object.keys((await read(s, 'load', `sources[0]=web-a`)).measurements), ['web-a'], 'alone, it asks for measurements too');
  t.same(Object.keys((await read(s, 'load', `${q}&source=db*`)).measurements), ['db-a'], 'the deprecated source parameter');
  t.same(Object.keys((await read(s, 'load', `${q}&source_tag=rack:r1`)).measurements), ['web-c']);

  const all = await read(s, 'load', `${q}&sources[]=web-a&sources[]=web-b&summarize_sources=true`);
  t.same(Object.keys(all.measurements), ['web-a', 'web-b', 'all']);
  t.same(all.measurements.all, [
    { measure_time: BASE, value: 2, count: 2, sum: 4, min: 1, max: 3, sum_squares: 10, summarized: 2 },
    { measure_time: BASE + 60, value: 3, count: 2, sum: 6, min: 2, max: 4, sum_squares: 20, summarized: 2 },
    { measure_time: BASE + 120, value: 4, count: 2, sum: 8, min: 3, max: 5, sum_squares: 34, summarized: 2 },
  ]);
  const onlyAll = await read(s, 'load', `${q}&sources[]=web-a&sources[]=web-b&breakout_sources=false&summarize_time=true`);
  t.same(onlyAll.measurements, { all: [{ measure_time: BASE, value: 3, count: 6, sum: 18, min: 1, max: 5, sum_squares: 64, rollups: 3, summarized: 2 }] });

  t.same((await read(s, 'load', `start_time=${BASE}&count=2&resolution=60&sources[]=web-a`)).measurements['web-a'].map((r: { value: number }) => r.value), [1, 2], 'count after start_time');
  t.same((await read(s, 'load', `end_time=${BASE + 179}&count=2&resolution=60&sources[]=web-a`)).measurements['web-a'].map((r: { value: number }) => r.value), [2, 3], 'count before end_time');
});

t.test('resolution 1 over the last hour gives individual points; long reads page with next_time', async (t) => {
  const s = await startTestServer(t);
  const start = NOW - 1500;
  const gauges = Array.from({ length: 1200 }, (_, i) => ({ name: 'tick', value: i, measure_time: start + i }));
  t.equal((await s.request('POST', '/v1/metrics', { json: { source: 'x', gauges } })).status, 200);
  const first = await read(s, 'tick', `start_time=${start}&resolution=1`);
  t.equal(first.measurements.x.length, 1000);
  t.same(first.measurements.x[999], { measure_time: start + 999, value: 999, count: 1 });
  t.same(first.query, { next_time: start + 1000 });
  const second = await read(s, 'tick', `start_time=${first.query.next_time}&resolution=1`);
  t.equal(second.measurements.x.length, 200);
  t.same(second.query, {});
  const rolled = await read(s, 'tick', `start_time=${start - (start % 60)}&end_time=${start + 1199}&resolution=60`);
  t.ok(rolled.measurements.x.length <= 22 && rolled.measurements.x.length >= 20, 'rolled up per minute');
});

t.test('GET /v1/gauges/:name is the older alias', async (t) => {
  const s = await startTestServer(t);
  await s.request('PUT', '/v1/metrics/old.gauge', { json: { description: 'legacy' } });
  await s.request('POST', '/v1/metrics', { json: { gauges: [{ name: 'old.gauge', value: 4, source: 'h1', measure_time: BASE }] } });
  const r = await s.get(`/v1/gauges/old.gauge?start_time=${BASE}&end_time=${BASE + 10}&resolution=1&source=h1`);
  t.equal(r.status, 200);
  t.same(r.body, { name: 'old.gauge', description: 'legacy', resolution: 1, measurements: { h1: [{ measure_time: BASE, value: 4, count: 1 }] } });
  t.equal(r.headers.deprecation, 'true');
  t.equal((await s.get('/v1/gauges/nope?start_time=1')).status, 404);
});

t.test('bad input: 4xx with the envelope, nothing stored', async (t) => {
  const s = await startTestServer(t);
  const post = (json: unknown) => s.request('POST', '/v1/metrics', { json });
  const cases: [unknown, Record<string, unknown>][] = [
    [{ gauges: [{ name: 'a', value: 1, source: 'all' }] }, { 'gauges[0].source': ['all is reserved'] }],
    [{ source: 'bad source', gauges: [{ name: 'a', value: 1 }] }, { source: [/letters/] }],
    [{ gauges: [{ name: 'a', value: 1, measure_time: 1000 }] }, { 'gauges[0].measure_time': ['too far in past'] }],
    [{ gauges: [{ name: 'a', value: 1, measure_time: NOW + 86400 }] }, { 'gauges[0].measure_time': ['too far in future'] }],
    [{ gauges: [{ name: 'a', value: 1e200 }] }, { 'gauges[0].value': [/exponent/] }],
    [{ gauges: { a: { value: 'x' } } }, { 'gauges[a].value': ['must be a number'] }],
    [{ gauges: [] }, { measurements: [/at least one/] }],
    // the store's varints hold counts below 2^63; the tagged API stops at 2^40 too
    [{ gauges: { a: { count: 1e19, sum: 1 } } }, { 'gauges[a].count': ['must be at most 2^40'] }],
    [{ gauges: [{ name: 'a', count: 2 ** 40 + 1, sum: 1 }] }, { 'gauges[0].count': [/2\^40/] }],
  ];
  for (const [json, params] of cases) {
    const r = await post(json);
    t.equal(r.status, 400, JSON.stringify(json));
    t.match(r.body, { errors: { params } }, JSON.stringify(json));
  }
  t.equal((await s.request('POST', '/v1/metrics', { form: 'gauges[0][name]=a&gauges[0][value]=abc' })).status, 400);
  t.equal((await s.request('POST', '/v1/metrics', { raw: { body: 'gauges', type: 'text/plain' } })).status, 415);
  t.equal((await s.get('/v1/metrics')).body.query.total, 0, 'nothing was created');

  await post({ gauges: [{ name: 'a', value: 1 }] });
  for (const [q, field] of [['count=0', 'count'], ['count=x', 'count'], ['start_time=10&end_time=5', 'start_time'], ['summarize_time=maybe', 'summarize_time'], ['sources[]=%3Cx%3E', 'sources'], ['source_tag=%3D', 'source_tag'], ['resolution=0', 'resolution']] as const) {
    const r = await s.get(`/v1/metrics/a?${q}`);
    t.equal(r.status, 400, q);
    t.ok(r.body.errors.params[field], q);
  }
  const unavailable = await s.get(`/v1/metrics/a?start_time=${NOW - 5 * 86400}&resolution=1`);
  t.equal(unavailable.status, 400);
  t.match(unavailable.body, { errors: { request: [/resolution is unavailable/] } });
  const viewer = await s.newAccount('viewer@example.com', 'viewer');
  t.equal((await s.request('POST', '/v1/metrics', { json: { gauges: [{ name: 'a', value: 1 }] }, auth: viewer })).status, 403);
  const recorder = await s.newAccount('recorder@example.com', 'recorder');
  t.equal((await s.request('POST', '/v1/metrics', { json: { gauges: [{ name: 'a', value: 1 }] }, auth: recorder })).status, 200);
});

t.test('a read over more series x buckets than a query may read is a 400 before reading', async (t) => {
  const s = await startTestServer(t);
  // 150 sources x 172,000 one-second buckets: 25.8 M, past the 20 M that a tagged query may read too
  const gauges = Array.from({ length: 150 }, (_, i) => ({ name: 'wide', value: i, source: `s${i}`, measure_time: BASE }));
  t.equal((await s.request('POST', '/v1/metrics', { json: { gauges } })).status, 200);
  const r = await s.get(`/v1/metrics/wide?start_time=${NOW - 172_000}&resolution=1`);
  t.equal(r.status, 400);
  t.match(r.body, { errors: { params: { resolution: [/would read up to 258\d{5} points \(limit 20000000\)/] } } });
  const fewer = await read(s, 'wide', `start_time=${NOW - 172_000}&resolution=1&sources[]=s1*`);
  t.equal(Object.keys(fewer.measurements).length, 61, 'fewer sources: s1, s10-s19 and s100-s149');
  t.equal(Object.keys((await read(s, 'wide', `start_time=${NOW - 172_000}&resolution=60`)).measurements).length, 150, 'a coarser resolution');
});
