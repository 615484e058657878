import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { hourBase, post, query } from '../helpers/measurements.js';

t.test('POST /v1/measurements stores and says what it stored', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  const r = await post(s, { tags: { host: 'a' }, time: base, measurements: [{ name: 'cpu', value: 1 }, { name: 'cpu', value: 2, time: base + 60 }] });
  t.equal(r.status, 200);
  t.same(r.body, { measurements: { summary: { total: 2, accepted: 2, failed: 0, filtered: 0 } } });
  const q = await query(s, 'cpu', `resolution=60&start_time=${base}&end_time=${base + 600}`);
  t.same(q.body.series, [{ tags: { host: 'a' }, measurements: [{ time: base, value: 1 }, { time: base + 60, value: 2 }] }]);
});

t.test('only application/json is accepted (415)', async (t) => {
  const s = await startTestServer(t);
  const form = await s.request('POST', '/v1/measurements', { form: 'measurements[0][name]=x&measurements[0][value]=1' });
  t.equal(form.status, 415);
  t.ok(form.body.errors.request[0].includes('application/json'));
  const text = await s.request('POST', '/v1/measurements', { raw: { body: 'x', type: 'text/plain' } });
  t.equal(text.status, 415);
  t.equal((await s.request('POST', '/v1/measurements', { raw: { body: '{"measurements":[', type: 'application/json' } })).status, 400);
});

t.test('names keep their case, tags are lower-cased; tag values may hold spaces; numbers as tag values become strings', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  t.equal((await post(s, { time: base, measurements: [{ name: 'Disk.Used', value: 5, tags: { Mount: 'Data Disk /Var', Port: 8080 } }] })).status, 200);
  const q = await query(s, 'disk.used', `resolution=60&start_time=${base}&end_time=${base + 60}`);
  t.same(q.body.series[0].tags, { mount: 'data disk /var', port: '8080' });
  t.equal(q.body.name, 'Disk.Used', 'the name as created (the namespace is case-insensitive)');
  const m = await s.get('/v1/metrics/DISK.USED');
  t.equal(m.status, 200, 'the metric was created, case-insensitively');
});

t.test('per-measurement tags replace top-level tags; an empty map counts as not given', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  await post(s, { tags: { host: 'a', region: 'x' }, time: base, measurements: [
    { name: 'm', value: 1, tags: { host: 'b' } },
    { name: 'm', value: 2, tags: {} },
    { name: 'm', value: 3 },
  ] });
  const q = await query(s, 'm', `resolution=60&start_time=${base}&end_time=${base}&summary_function=sum`);
  t.same(q.body.series, [
    { tags: { host: 'a', region: 'x' }, measurements: [{ time: base, value: 5 }] },
    { tags: { host: 'b' }, measurements: [{ time: base, value: 1 }] },
  ]);
});

t.test('every invalid element is named and nothing of the request is stored', async (t) => {
  const s = await startTestServer(t, 'limits:\n  tags_per_measurement: 2');
  const base = hourBase();
  const r = await post(s, { time: base, measurements: [
    { name: 'ok', value: 1, tags: { host: 'a' } },
    { name: 'bad name!', value: 1 },
    { name: 'x', value: 1, tags: { a: '1', b: '2', c: '3' } },
    { name: 'x', value: 1, count: 2, sum: 3 },
    { name: 'x', count: 2 },
    { name: 'x' },
    { name: 'x', value: 1e127 },
    { name: 'x', value: 1, time: 1.5 },
    { name: 'x', value: 1, tags: { 'bad tag': 'v' } },
    { name: 'x', value: 1, tags: { t: 'bad\u0001value' } },
    { name: 'x', value: 1, bogus: true, stddev_m2: 1 }, // fields beyond the spec are ignored
    { name: 'x', value: 1, min: 0 },
    { name: 'x', value: '1' },
    'not an object',
    { name: 'x', count: 0, sum: 1 },
    { name: 'x', value: 1, time: 1 },
  ] });
  t.equal(r.status, 400);
  const p = r.body.errors.params;
  for (const field of ['measurements[1].name', 'measurements[2].tags', 'measurements[3].value', 'measurements[4].sum', 'measurements[5].value',
    'measurements[6].value', 'measurements[7].time', 'measurements[8].tags', 'measurements[9].tags',
    'measurements[11].min', 'measurements[12].value', 'measurements[13]', 'measurements[14].count', 'measurements[15].time']) {
    t.ok(Array.isArray(p[field]) && p[field].length > 0, `${field} is reported`);
  }
  t.notOk(p['measurements[0]'] ?? p['measurements[0].name'], 'the valid element is not blamed');
  t.equal((await s.get('/v1/metrics/ok')).status, 404, 'the valid measurement was not stored either');
  t.same(p['measurements[15].time'], ['too far in past']);
  t.notOk(p['measurements[10]'] ?? p['measurements[10].bogus'], 'an element with extra fields is not blamed');

  for (const body of [{}, { measurements: [] }, { measurements: {} }, []]) {
    const bad = await post(s, body);
    t.equal(bad.status, 400, JSON.stringify(body));
    t.ok(bad.body.errors.params, 'params envelope');
  }
});

t.test('fields beyond the spec are ignored, as real agents send them', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  const r = await post(s, { time: base, extra: 1, measurements: [{ name: 'agent.timer', count: 2, sum: 3, min: 1, max: 2, stddev_m2: 0.7, host: 'h' }] });
  t.equal(r.status, 200);
  const q = await query(s, 'agent.timer', `resolution=60&start_time=${base}&end_time=${base}&summary_function=count`);
  t.same(q.body.series[0].measurements, [{ time: base, value: 2 }]);
});

t.test('float exponent limits: above 10^126 rejected, below 10^-130 stored as zero', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  t.equal((await post(s, { time: base, measurements: [{ name: 'f', value: 9.9e126 }] })).status, 200);
  t.equal((await post(s, { time: base + 60, measurements: [{ name: 'f', value: 1e-131 }] })).status, 200);
  t.equal((await post(s, { time: base + 60, measurements: [{ name: 'f', value: -1e200 }] })).status, 400);
  const q = await query(s, 'f', `resolution=60&start_time=${base}&end_time=${base + 60}`);
  t.same(q.body.series[0].measurements, [{ time: base, value: 9.9e126 }, { time: base + 60, value: 0 }]);
});

t.test('multi-sample measurements keep count, sum, min, max, last and stddev', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  t.equal((await post(s, { time: base, measurements: [{ name: 'lat', count: 4, sum: 20, min: 2, max: 9, last: 3, stddev: 2 }] })).status, 200);
  const q = await query(s, 'lat', `resolution=60&start_time=${base}&end_time=${base}&summary_function=all`);
  t.same(q.body.series[0].measurements, [{ time: base, value: 5, count: 4, sum: 20, min: 2, max: 9, last: 3, stddev: 2 }]);
});

t.test('metric properties apply only when the measurement creates the metric', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  await post(s, { time: base, period: 30, measurements: [{ name: 'p', value: 1, attributes: { display_units_short: 'ms', summarize_function: 'sum' } }] });
  await post(s, { time: base, period: 90, measurements: [{ name: 'p', value: 1, attributes: { display_units_short: 's' } }] });
  const m = await s.get('/v1/metrics/p');
  t.equal(m.body.period, 30);
  t.equal(m.body.attributes.display_units_short, 'ms');
  const bad = await post(s, { time: base, measurements: [{ name: 'q', value: 1, attributes: { color: 'red' } }] });
  t.equal(bad.status, 400);
  t.ok(Object.keys(bad.body.errors.params).some((k) => k.startsWith('measurements[0].attributes')));
});

t.test('service-side aggregation combines a period into one summary point', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  const bad = await post(s, { time: base, measurements: [{ name: 'agg', value: 1, period: 5, attributes: { aggregate: true } }] });
  t.equal(bad.status, 400);
  t.ok(bad.body.errors.params['measurements[0].period']);
  await post(s, { time: base + 5, measurements: [{ name: 'agg', value: 1, period: 30, attributes: { aggregate: true } }] });
  await post(s, { time: base + 20, measurements: [{ name: 'agg', value: 5 }] });
  await post(s, { time: base + 35, measurements: [{ name: 'agg', value: 7 }] });
  const q = await query(s, 'agg', `resolution=1&start_time=${base}&end_time=${base + 59}&summary_function=all`);
  t.same(q.body.series[0].measurements.map((m: { time: number; count: number; sum: number; last: number }) => [m.time, m.count, m.sum, m.last]), [[base, 2, 6, 5], [base + 30, 1, 7, 7]]);
});

t.test('recorders may submit, viewers may not', async (t) => {
  const s = await startTestServer(t);
  const recorder = await s.newAccount('rec@example.com', 'recorder');
  const viewer = await s.newAccount('view@example.com', 'viewer');
  const body = { measurements: [{ name: 'r', value: 1 }] };
  t.equal((await s.request('POST', '/v1/measurements', { json: body, auth: recorder })).status, 200);
  t.equal((await s.request('POST', '/v1/measurements', { json: body, auth: viewer })).status, 403);
  t.equal((await s.request('POST', '/v1/measurements', { json: body, auth: null })).status, 401);
});

t.test('tag sets remembered from earlier requests never leak into a different one', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  const send = (tags: Record<string, unknown>) => post(s, { time: base, measurements: [{ name: 'pos', value: 1, tags }] });
  t.equal((await send({ host: 'a', dc: 'x' })).status, 200);
  t.equal((await send({ host: 'a', dc: 'y' })).status, 200);
  t.equal((await send({ host: 'a' })).status, 200);
  t.equal((await send({ host: 'a', dc: 'x', rack: 'r1' })).status, 200);
  t.equal((await send({ host: 'a', dc: 'bad\u0001' })).status, 400, 'an invalid value at a remembered position is still checked');
  t.equal((await send({ host: 'a', dc: 7 })).status, 200);
  const q = await query(s, 'pos', `resolution=60&start_time=${base}&end_time=${base}`);
  t.same(q.body.series.map((x: { tags: Record<string, string> }) => x.tags), [
    { dc: '7', host: 'a' }, { dc: 'x', host: 'a' }, { dc: 'x', host: 'a', rack: 'r1' }, { dc: 'y', host: 'a' }, { host: 'a' },
  ]);
});

t.test('large bodies (scanned on a parse thread by default) store what the request thread stores', async (t) => {
  const base = hourBase();
  const measurements = Array.from({ length: 3000 }, (_, i) => ({ name: i % 2 ? 'big.a' : 'Big.B', tags: { host: `h${i % 150}` }, value: i / 4, time: base + 60 * Math.floor(i / 150) }));
  const stored = [];
  for (const yaml of ['', 'http:\n  listen: "127.0.0.1:0"\n  parse_threads: 0']) {
    const s = await startTestServer(t, yaml);
    const r = await post(s, { measurements });
    t.same(r.body, { measurements: { summary: { total: 3000, accepted: 3000, failed: 0, filtered: 0 } } });
    // a large body the scanner declines (a summary measurement) takes the ordinary path
    const declined = await post(s, { measurements: [...measurements.slice(0, 1500).map((m) => ({ ...m, name: 'other' })), { name: 'other', count: 2, sum: 3, time: base }] });
    t.equal(declined.status, 200);
    const bad = await post(s, { measurements: [...measurements.slice(0, 1500), { name: 'big.a', value: 'x' }] });
    t.equal(bad.status, 400);
    t.same(Object.keys(bad.body.errors.params), ['measurements[1500].value'], 'its error named as always');
    const q = [];
    for (const name of ['big.a', 'big.b', 'other']) q.push((await query(s, name, `resolution=60&start_time=${base}&end_time=${base + 3600}&summary_function=sum`)).body);
    t.equal(q[0].name, 'big.a');
    t.equal(q[1].name, 'Big.B', 'a new metric keeps its first spelling');
    t.equal(q[0].series.length + q[1].series.length, 150);
    t.equal(q[0].series.concat(q[1].series).reduce((n: number, x: { measurements: unknown[] }) => n + x.measurements.length, 0), 3000);
    stored.push(q);
  }
  t.same(stored[0], stored[1], 'the same with and without a parse thread');
});

t.test('two services in one process keep their own series for the same tag maps', async (t) => {
  // the scanner's tag numbering is the process's; what each number resolves to is each engine's
  const base = hourBase();
  const body = { time: base, measurements: [{ name: 'shared', tags: { host: 'a' }, value: 1 }, { name: 'other', tags: { host: 'b' }, value: 2 }] };
  const first = await startTestServer(t);
  t.equal((await post(first, body)).status, 200);
  const second = await startTestServer(t);
  t.equal((await post(second, { time: base, measurements: [{ name: 'other', tags: { host: 'a' }, value: 5 }] })).status, 200);
  t.equal((await post(second, body)).status, 200);
  const q = (s: typeof first, name: string) => query(s, name, `resolution=60&start_time=${base}&end_time=${base}`);
  t.same((await q(second, 'shared')).body.series, [{ tags: { host: 'a' }, measurements: [{ time: base, value: 1 }] }]);
  t.same((await q(second, 'other')).body.series, [
    { tags: { host: 'a' }, measurements: [{ time: base, value: 5 }] },
    { tags: { host: 'b' }, measurements: [{ time: base, value: 2 }] },
  ]);
  t.same((await q(first, 'other')).body.series, [{ tags: { host: 'b' }, measurements: [{ time: base, value: 2 }] }]);
});
