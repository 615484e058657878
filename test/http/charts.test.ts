import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';

async function space(s: TestServer, name: string, auth?: { user: string; password: string }): Promise<number> {
  const r = await s.request('POST', '/v1/spaces', { json: { name }, ...(auth ? { auth } : {}) });
  if (r.status !== 201) throw new Error(`space ${name}: ${r.status} ${r.text}`);
  return r.body.id as number;
}

/** Posts a chart and returns the reply; `body` is JSON unless a string (form). */
function chart(s: TestServer, spaceId: number, body: unknown) {
  return s.request('POST', `/v1/spaces/${spaceId}/charts`, typeof body === 'string' ? { form: body } : { json: body });
}

const THRESHOLDS = [{ operator: '>', value: 90, type: 'red' }, { operator: '<', value: 10, type: 'yellow' }];

t.test('create: 201, Location within the space, the chart with stream ids and every field', async (t) => {
  const s = await startTestServer(t);
  const id = await space(s, 'ops');
  const other = await space(s, 'details');
  const r = await chart(s, id, {
    name: 'CPU',
    type: 'stacked',
    min: 0, max: 100, label: 'percent', related_space: other,
    thresholds: THRESHOLDS,
    streams: [
      {
        metric: 'CPU.user', tags: [{ name: 'Host', values: ['Web*', 'db1'], grouped: true, dynamic: false }],
        group_function: 'breakout', summary_function: 'max', color: '#AA00ff', name: 'user', units_short: '%',
        units_long: 'percent', min: 0, max: 100, transform_function: 'x*100', period: 60,
      },
      { composite: 's("cpu.system", "*")' },
    ],
  });
  t.equal(r.status, 201, r.text);
  const cid = r.body.id as number;
  t.equal(r.headers.location, `/v1/spaces/${id}/charts/${cid}`);
  const [metricStream, compositeStream] = r.body.streams;
  t.type(metricStream.id, 'number');
  t.same(metricStream, {
    id: metricStream.id, metric: 'cpu.user', tags: [{ name: 'host', values: ['web*', 'db1'], grouped: true, dynamic: false }],
    group_function: 'breakout', summary_function: 'max', color: '#AA00ff', name: 'user', units_short: '%',
    units_long: 'percent', min: 0, max: 100, transform_function: 'x*100', period: 60, type: 'gauge',
  });
  t.same(compositeStream, { id: compositeStream.id, composite: 's("cpu.system", "*")', type: 'composite' }, 'a composite stream carries only id, composite and type');
  t.not(metricStream.id, compositeStream.id);
  t.same(r.body, {
    id: cid, name: 'CPU', type: 'stacked', streams: r.body.streams, min: 0, max: 100, label: 'percent',
    related_space: other, thresholds: THRESHOLDS,
  });

  const got = await s.get(`/v1/spaces/${id}/charts/${cid}`);
  t.equal(got.status, 200);
  t.same(got.body, r.body);
  const list = await s.get(`/v1/spaces/${id}/charts`);
  t.equal(list.status, 200);
  t.same(list.body, [r.body]);
  t.same((await s.get(`/v1/spaces/${other}/charts`)).body, [], 'a space without charts lists an empty array');
});

t.test('defaults: line, no bounds, no thresholds, no streams', async (t) => {
  const s = await startTestServer(t);
  const id = await space(s, 'ops');
  const r = await chart(s, id, { name: 'empty', id: 4242 });
  t.equal(r.status, 201);
  t.not(r.body.id, 4242, 'the id is the server\'s');
  t.same(r.body, { id: r.body.id, name: 'empty', type: 'line', streams: [], min: null, max: null, label: null, related_space: null, thresholds: null });
});

t.test('a form body with Rails nesting makes the same chart, typed', async (t) => {
  const s = await startTestServer(t);
  const id = await space(s, 'ops');
  const form = [
    'name=Load', 'type=bignumber', 'min=0', 'use_log_yaxis=true',
    'streams[0][metric]=load', 'streams[0][tags][0][name]=host', 'streams[0][tags][0][values][]=web*',
    'streams[0][tags][0][grouped]=true', 'streams[0][period]=60', 'streams[0][transform_function]=x%2F60',
    'thresholds[0][operator]=%3E', 'thresholds[0][value]=2.5', 'thresholds[0][type]=red',
  ].join('&');
  const r = await chart(s, id, form);
  t.equal(r.status, 201, r.text);
  t.equal(r.body.type, 'bignumber');
  t.equal(r.body.min, 0);
  t.same(r.body.thresholds, [{ operator: '>', value: 2.5, type: 'red' }]);
  t.same(r.body.streams[0].tags, [{ name: 'host', values: ['web*'], grouped: true }]);
  const cleared = await s.request('PUT', `/v1/spaces/${id}/charts/${r.body.id}`, { form: `streams[0][id]=${r.body.streams[0].id}&streams[0][metric]=load&streams[0][transform_function]=` });
  t.equal(cleared.body.streams[0].transform_function, null, 'an emptied transform_function means none');
  t.equal(r.body.streams[0].period, 60);
  t.equal(r.body.streams[0].transform_function, 'x/60');
  t.equal(r.body.use_log_yaxis, 'true', 'a form carries no types: an unknown field stays a string');
});

t.test('update: PUT or POST on the chart; fields left out stay; streams are replaced', async (t) => {
  const s = await startTestServer(t);
  const id = await space(s, 'ops');
  const created = await chart(s, id, { name: 'net', label: 'bytes', use_last_value: true, streams: [{ metric: 'rx' }, { metric: 'tx' }] });
  const cid = created.body.id as number;
  const [rx, tx] = created.body.streams;

  const renamed = await s.request('PUT', `/v1/spaces/${id}/charts/${cid}`, { form: 'name=network' });
  t.equal(renamed.status, 200);
  t.equal(renamed.body.name, 'network');
  t.equal(renamed.body.label, 'bytes');
  t.equal(renamed.body.use_last_value, true);
  t.same(renamed.body.streams, created.body.streams, 'no streams sent: streams kept');

  // A GET body sent back keeps stream ids; a new stream gets a new id; a dropped one is gone.
  const replaced = await s.request('PUT', `/v1/spaces/${id}/charts/${cid}`, { json: { streams: [{ ...tx, color: '#000000' }, { metric: 'drops' }] } });
  t.equal(replaced.status, 200);
  t.equal(replaced.body.streams.length, 2);
  t.equal(replaced.body.streams[0].id, tx.id, 'an echoed id keeps its stream');
  t.equal(replaced.body.streams[0].color, '#000000');
  t.notOk([rx.id, tx.id].includes(replaced.body.streams[1].id), 'a new stream gets a new id');

  const twice = await s.request('PUT', `/v1/spaces/${id}/charts/${cid}`, { json: { streams: [{ id: tx.id, metric: 'a' }, { id: tx.id, metric: 'b' }] } });
  t.not(twice.body.streams[0].id, twice.body.streams[1].id, 'one id cannot be claimed twice');
  const foreign = await s.request('PUT', `/v1/spaces/${id}/charts/${cid}`, { json: { streams: [{ id: 1e9, metric: 'a' }] } });
  t.not(foreign.body.streams[0].id, 1e9, 'an id that is not one of the chart\'s streams is not taken');

  const viaPost = await s.request('POST', `/v1/spaces/${id}/charts/${cid}`, { json: { streams: [{ composite: 'sum(s("rx", "*"))' }] } });
  t.equal(viaPost.status, 200);
  t.same(viaPost.body.streams, [{ id: viaPost.body.streams[0].id, composite: 'sum(s("rx", "*"))', type: 'composite' }]);
  t.same((await s.get(`/v1/spaces/${id}/charts/${cid}`)).body, viaPost.body, 'the update is stored');

  const cleared = await s.request('PUT', `/v1/spaces/${id}/charts/${cid}`, { json: { streams: [], label: null } });
  t.same(cleared.body.streams, []);
  t.equal(cleared.body.label, null);

  const del = await s.request('DELETE', `/v1/spaces/${id}/charts/${cid}`);
  t.equal(del.status, 204);
  t.equal((await s.get(`/v1/spaces/${id}/charts/${cid}`)).status, 404);
  t.equal((await s.request('DELETE', `/v1/spaces/${id}/charts/${cid}`)).status, 404);
  t.same((await s.get(`/v1/spaces/${id}`)).body.charts, []);
});

t.test('chart rules, each a 400 under its field', async (t) => {
  const s = await startTestServer(t);
  const id = await space(s, 'ops');
  const cases: [unknown, Record<string, string[]>][] = [
    [{}, { name: ['is required'] }],
    [{ name: '' }, { name: ['must NOT have fewer than 1 characters'] }],
    [{ name: ' ' }, { name: ['must not be blank'] }],
    [{ name: 'c', type: 'pie' }, { type: ['must be one of: line, stacked, bignumber'] }],
    [{ name: 'c', type: 'bignumber' }, { thresholds: ['are required when type is bignumber'] }],
    [{ name: 'c', type: 'bignumber', thresholds: [] }, { thresholds: ['are required when type is bignumber'] }],
    [{ name: 'c', type: 'bignumber', thresholds: null }, { thresholds: ['are required when type is bignumber'] }],
    [{ name: 'c', thresholds: [{ operator: '>=', value: 1, type: 'red' }] }, { 'thresholds[0].operator': ['must be one of: >, <, ='] }],
    [{ name: 'c', thresholds: [{ operator: '>', value: 1, type: 'green' }] }, { 'thresholds[0].type': ['must be one of: red, yellow'] }],
    [{ name: 'c', thresholds: [{ operator: '>', type: 'red' }] }, { 'thresholds[0].value': ['is required'] }],
    [{ name: 'c', thresholds: [{ operator: '>', value: '1', type: 'red' }] }, { 'thresholds[0].value': ['must be a number'] }],
    [{ name: 'c', thresholds: [{ operator: '>', value: 1, type: 'red', colour: 'x' }] }, { 'thresholds[0].colour': ['is not a known field'] }],
    [{ name: 'c', min: 10, max: 1 }, { min: ['must not be greater than max'] }],
    [{ name: 'c', min: 'low' }, { min: ['must be a number or null'] }],
    [{ name: 'c', label: 'l'.repeat(256) }, { label: ['must NOT have more than 255 characters'] }],
    [{ name: 'c', label: 'per\nsecond' }, { label: ['must not contain control characters'] }],
    [{ name: 'c', streams: {} }, { streams: ['must be an array'] }],
    [{ name: 'c', streams: Array.from({ length: 101 }, () => ({ metric: 'a' })) }, { streams: ['must NOT have more than 100 items'] }],
  ];
  for (const [body, params] of cases) {
    const r = await chart(s, id, body);
    t.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
    t.same(r.body, { errors: { params } }, JSON.stringify(body).slice(0, 80));
  }
  t.equal((await chart(s, id, { name: 'ok', type: 'bignumber', thresholds: THRESHOLDS })).status, 201);
  t.same((await s.get(`/v1/spaces/${id}`)).body.charts.length, 1, 'nothing of the rejected charts was stored');
});

t.test('a bignumber chart keeps needing thresholds through updates', async (t) => {
  const s = await startTestServer(t);
  const id = await space(s, 'ops');
  const big = await chart(s, id, { name: 'big', type: 'bignumber', thresholds: THRESHOLDS });
  const line = await chart(s, id, { name: 'line' });
  const dropped = await s.request('PUT', `/v1/spaces/${id}/charts/${big.body.id}`, { json: { thresholds: null } });
  t.equal(dropped.status, 400);
  t.same(dropped.body.errors.params, { thresholds: ['are required when type is bignumber'] });
  const toBig = await s.request('PUT', `/v1/spaces/${id}/charts/${line.body.id}`, { json: { type: 'bignumber' } });
  t.equal(toBig.status, 400);
  t.equal((await s.request('PUT', `/v1/spaces/${id}/charts/${line.body.id}`, { json: { type: 'bignumber', thresholds: THRESHOLDS.slice(0, 1) } })).status, 200);
  t.equal((await s.get(`/v1/spaces/${id}/charts/${big.body.id}`)).body.thresholds.length, 2, 'a refused update changes nothing');
});

t.test('stream rules, each a 400 under the stream\'s field', async (t) => {
  const s = await startTestServer(t);
  const id = await space(s, 'ops');
  const cases: [unknown, Record<string, string[]>][] = [
    [{}, { 'streams[0].metric': ['is required unless the stream is a composite'] }],
    [{ metric: 'cpu load' }, { 'streams[0].metric': ['must match pattern "^[A-Za-z0-9.:_-]{1,255}$"'] }],
    [{ composite: 's("a","*")', metric: 'a' }, { 'streams[0].metric': ['cannot be combined with composite'] }],
    [{ composite: 's("a","*")', tags: [{ name: 'h', values: ['*'] }] }, { 'streams[0].tags': ['cannot be combined with composite'] }],
    [{ composite: 's("a","*")', group_function: 'sum' }, { 'streams[0].group_function': ['cannot be combined with composite'] }],
    [{ composite: '' }, { 'streams[0].composite': ['must NOT have fewer than 1 characters'] }],
    [{ metric: 'a', group_function: 'median' }, { 'streams[0].group_function': ['must be one of: average, sum, min, max, breakout'] }],
    [{ metric: 'a', summary_function: 'breakout' }, { 'streams[0].summary_function': ['must be one of: max, min, average, sum, count'] }],
    [{ composite: 's("a","*")', downsample_function: 'median' }, { 'streams[0].downsample_function': ['must be one of: max, min, average, sum, count'] }],
    [{ metric: 'a', downsample_function: 'sum' }, { 'streams[0].downsample_function': ['applies only to composite streams and composite metrics'] }],
    [{ metric: 'a', color: 'red' }, { 'streams[0].color': ['must match pattern "^#[0-9A-Fa-f]{6}$"'] }],
    [{ metric: 'a', color: '#abc' }, { 'streams[0].color': ['must match pattern "^#[0-9A-Fa-f]{6}$"'] }],
    [{ metric: 'a', transform_function: 'x*x' }, { 'streams[0].transform_function': ['must be linear in x (x may not be multiplied by x)'] }],
    [{ metric: 'a', transform_function: 'x^2' }, { 'streams[0].transform_function': ['may contain only digits, whitespace, parentheses, x, p, +, -, *, / and decimal points'] }],
    [{ metric: 'a', transform_function: '1/x' }, { 'streams[0].transform_function': ['must be linear in x (x may not appear in a divisor)'] }],
    [{ metric: 'a', min: 5, max: 1 }, { 'streams[0].min': ['must not be greater than max'] }],
    [{ metric: 'a', period: 0 }, { 'streams[0].period': ['must be >= 1'] }],
    [{ metric: 'a', tags: [{ values: ['x'] }] }, { 'streams[0].tags[0].name': ['is required'] }],
    [{ metric: 'a', tags: [{ name: 'bad name' }] }, { 'streams[0].tags[0].name': ['must match pattern "^[-.:_A-Za-z0-9]{1,64}$"'] }],
    [{ metric: 'a', tags: [{ name: 'h', values: ['a;b'] }] }, { 'streams[0].tags[0].values[0]': ['must match pattern "^[-.:_?\\\\/A-Za-z0-9 *]{1,255}$"'] }],
    [{ metric: 'a', tags: [{ name: 'h', grouped: 'yes' }] }, { 'streams[0].tags[0].grouped': ['must be true or false'] }],
    [{ metric: 'a', tags: [{ name: 'h', other: 1 }] }, { 'streams[0].tags[0].other': ['is not a known field'] }],
    // a field the stream keeps for its client, under its own name when the name is no field name
    [{ metric: 'a', 'bad name': 1 }, { 'streams[0].bad name': ['as a field name, must match pattern "^[A-Za-z_][A-Za-z0-9_]{0,63}$"'] }],
    // text shown in legends, tooltips and axes follows the rule of chart names
    [{ metric: 'a', name: 'a\u0000b' }, { 'streams[0].name': ['must not contain control characters'] }],
    [{ metric: 'a', units_short: '\u0007' }, { 'streams[0].units_short': ['must not contain control characters'] }],
    [{ composite: 's("a","*")', units_long: 'bytes\r\nX-Injected: 1' }, { 'streams[0].units_long': ['must not contain control characters'] }],
  ];
  for (const [stream, params] of cases) {
    const r = await chart(s, id, { name: 'c', streams: [stream] });
    t.equal(r.status, 400, JSON.stringify(stream));
    t.same(r.body, { errors: { params } }, JSON.stringify(stream));
  }
  const two = await chart(s, id, { name: 'c', streams: [{ metric: 'ok' }, { metric: 'a', transform_function: 'xx' }] });
  t.same(Object.keys(two.body.errors.params), ['streams[1].transform_function'], 'the stream is named by its index');
});

t.test('downsample_function is accepted on composite streams and on persisted composite metrics', async (t) => {
  const s = await startTestServer(t);
  const id = await space(s, 'ops');
  t.equal((await s.request('PUT', '/v1/metrics/total', { json: { type: 'composite', composite: 'sum(s("a","*"))' } })).status, 201);
  const r = await chart(s, id, { name: 'c', streams: [{ composite: 's("a","*")', downsample_function: 'sum' }, { metric: 'Total', downsample_function: 'max' }] });
  t.equal(r.status, 201, r.text);
  t.same(r.body.streams[0], { id: r.body.streams[0].id, composite: 's("a","*")', downsample_function: 'sum', type: 'composite' });
  t.equal(r.body.streams[1].type, 'composite', 'a stream of a persisted composite metric says so');
});

t.test('unknown harmless fields are kept and echoed, within bounds', async (t) => {
  const s = await startTestServer(t);
  const id = await space(s, 'ops');
  const r = await chart(s, id, { name: 'c', use_log_yaxis: true, use_last_value: false, streams: [{ metric: 'a', source: 'legacy', position: 2 }] });
  t.equal(r.status, 201);
  t.equal(r.body.use_log_yaxis, true);
  t.equal(r.body.use_last_value, false);
  t.equal(r.body.streams[0].source, 'legacy');
  t.equal(r.body.streams[0].position, 2);
  const again = await s.request('PUT', `/v1/spaces/${id}/charts/${r.body.id}`, { json: { use_log_yaxis: false } });
  t.equal(again.body.use_log_yaxis, false);
  t.equal(again.body.use_last_value, false, 'extras not sent stay');
  // each update is bounded by the schema, the merge by the chart: 2 + 30 + 8 = 40, then 41
  const put = (json: Record<string, unknown>) => s.request('PUT', `/v1/spaces/${id}/charts/${r.body.id}`, { json });
  const fields = (from: number, n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x${from + i}`, i]));
  t.equal((await put(fields(0, 30))).status, 200);
  t.equal((await put(fields(30, 8))).status, 200);
  const over = await put(fields(38, 1));
  t.equal(over.status, 400);
  t.same(over.body.errors.params, { fields: ["a chart keeps at most 40 fields beyond the API's own; this update would make 41"] });
  t.equal((await put({ x0: 'changed' })).status, 200, 'changing a kept field is fine');

  const objectExtra = await chart(s, id, { name: 'c', blob: { a: 1 } });
  t.equal(objectExtra.status, 400);
  t.same(objectExtra.body.errors.params, { blob: ['must be a boolean, a number, a string or null'] });
  const longExtra = await chart(s, id, { name: 'c', note: 'n'.repeat(256) });
  t.same(longExtra.body.errors.params, { note: ['must NOT have more than 255 characters'] });
  const oddName = await chart(s, id, { name: 'c', 'we!rd': 1 });
  t.equal(oddName.status, 400);
  const many = Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`f${i}`, i]));
  const tooMany = await chart(s, id, { name: 'c', ...many });
  t.same(tooMany.body.errors.params, { body: ['must NOT have more than 40 properties'] });
  const streamExtra = await chart(s, id, { name: 'c', streams: [{ metric: 'a', blob: [1] }] });
  t.same(streamExtra.body.errors.params, { 'streams[0].blob': ['must be a boolean, a number, a string or null'] });
  t.equal((await chart(s, id, { name: 'c', streams: [{ metric: 'a', type: 'whatever' }] })).body.streams[0].type, 'gauge', 'a stream type is computed, not taken');
});

t.test('related_space: any integer is stored and answered as given, revealing nothing about anyone else\'s', async (t) => {
  const s = await startTestServer(t);
  const other = await s.newAccount('other@example.com');
  const id = await space(s, 'ops');
  const mine = await space(s, 'details');
  const theirs = await space(s, 'theirs', other);

  const foreign = await chart(s, id, { name: 'c', related_space: theirs });
  const missing = await chart(s, id, { name: 'c2', related_space: 999999 });
  t.equal(foreign.status, 201);
  t.equal(missing.status, 201);
  t.equal(foreign.body.related_space, theirs, 'stored as given');
  t.equal(missing.body.related_space, 999999, 'a space of nobody is answered as given too');
  t.equal((await s.get(`/v1/spaces/${id}/charts/${missing.body.id}`)).body.related_space, 999999);
  for (const n of [0, -5, id]) t.equal((await chart(s, id, { name: `n${n}`, related_space: n })).status, 201, `related_space ${n}`);
  t.same((await chart(s, id, { name: 'c', related_space: 'ops' })).body.errors.params, { related_space: ['must be an integer or null'] });
  t.same((await chart(s, id, { name: 'c', related_space: 1.5 })).body.errors.params, { related_space: ['must be an integer or null'] });

  const ok = await chart(s, id, 'name=c&related_space=' + mine);
  t.equal(ok.status, 201);
  t.equal(ok.body.related_space, mine);
  const unset = await s.request('PUT', `/v1/spaces/${id}/charts/${ok.body.id}`, { json: { related_space: null } });
  t.equal(unset.body.related_space, null);
  await s.request('PUT', `/v1/spaces/${id}/charts/${ok.body.id}`, { json: { related_space: mine } });
  t.equal((await s.request('DELETE', `/v1/spaces/${mine}`)).status, 204);
  t.equal((await s.get(`/v1/spaces/${id}/charts/${ok.body.id}`)).body.related_space, null, 'deleting the space clears references to it');
});

t.test('a chart is reached only through its own space and account', async (t) => {
  const s = await startTestServer(t);
  const other = await s.newAccount('other@example.com');
  const a = await space(s, 'a');
  const b = await space(s, 'b');
  const c = await chart(s, a, { name: 'c' });
  const wrongSpace = await s.get(`/v1/spaces/${b}/charts/${c.body.id}`);
  t.equal(wrongSpace.status, 404);
  t.same(wrongSpace.body, { errors: { request: ['Chart not found'] } });
  t.equal((await s.request('PUT', `/v1/spaces/${b}/charts/${c.body.id}`, { json: { name: 'x' } })).status, 404);
  t.equal((await s.request('DELETE', `/v1/spaces/${b}/charts/${c.body.id}`)).status, 404);

  const theirs = await space(s, 'theirs', other);
  const viaOwnSpace = await s.get(`/v1/spaces/${theirs}/charts/${c.body.id}`, { auth: other });
  t.equal(viaOwnSpace.status, 404);
  t.equal((await s.get(`/v1/spaces/${a}/charts/${c.body.id}`)).status, 200);
});

t.test('bodies that are not a chart object are 400s with the envelope', async (t) => {
  const s = await startTestServer(t);
  const id = await space(s, 'ops');
  const broken = await s.request('POST', `/v1/spaces/${id}/charts`, { raw: { body: '{"name":', type: 'application/json' } });
  t.equal(broken.status, 400);
  t.ok(broken.body.errors.request);
  const array = await s.request('POST', `/v1/spaces/${id}/charts`, { json: [{ name: 'c' }] });
  t.equal(array.status, 400);
  t.same(array.body, { errors: { params: { body: ['must be an object'] } } });
  const text = await s.request('POST', `/v1/spaces/${id}/charts`, { raw: { body: 'name=c', type: 'text/plain' } });
  t.equal(text.status, 415);
});

t.test('the charts of one space hold at most 8 MiB: the chart past it is a 400, the space stays readable', async (t) => {
  const s = await startTestServer(t);
  const id = await space(s, 'wide');
  // ~2 MB a chart, each field within the schema: two streams of 50 tags x 100 long values
  const tags = Array.from({ length: 50 }, (_, i) => ({ name: `t${i}`, values: Array.from({ length: 100 }, (_, j) => `v${j}-${'x'.repeat(190)}`) }));
  const big = (name: string) => ({ name, streams: [{ metric: 'cpu', tags }, { metric: 'mem', tags }] });
  const ids: number[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await chart(s, id, big(`big${i}`));
    t.equal(r.status, 201, `chart ${i} fits`);
    ids.push(r.body.id);
  }
  const over = await chart(s, id, big('one too many'));
  t.equal(over.status, 400);
  t.match(over.body, { errors: { request: [/^the charts of a space hold at most 8 MiB; this chart would bring space \d+ to 9\.\d MiB$/] } });
  const growing = await s.request('PUT', `/v1/spaces/${id}/charts/${ids[0]}`, { json: { streams: [{ metric: 'cpu', tags }, { metric: 'mem', tags }, { metric: 'disk', tags }] } });
  t.equal(growing.status, 400, 'an update that grows a chart past it too');
  const small = await chart(s, id, { name: 'small', streams: [{ metric: 'cpu' }] });
  t.equal(small.status, 201, 'what still fits is taken');
  t.same((await s.get(`/v1/spaces/${id}`)).body.charts, [...ids, small.body.id].map((c) => ({ id: c })));
  const listed = await s.get(`/v1/spaces/${id}/charts`);
  t.same(listed.body.map((c: { name: string }) => c.name), ['big0', 'big1', 'big2', 'big3', 'small']);
  t.equal((await s.request('DELETE', `/v1/spaces/${id}`)).status, 204);
  t.equal((await s.get(`/v1/spaces/${id}/charts/${ids[0]}`)).status, 404);
});
