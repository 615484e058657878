import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { inspect } from '../../src/schema/inspect.js';
import { ApiError } from '../../src/errors.js';

t.test('malformed and hostile bodies get a 4xx envelope and store nothing', async (t) => {
  const s = await startTestServer(t, 'limits:\n  body_bytes: 2048\n');
  const put = (raw: { body: string; type?: string }) => s.request('PUT', '/v1/metrics/body.test', { raw });

  const badJson = await put({ body: '{"type": "gauge"', type: 'application/json' });
  t.equal(badJson.status, 400);
  t.match(badJson.body, { errors: { request: [/^Request body is not valid JSON: .*position 16/] } });

  const proto = await put({ body: '{"__proto__": {"admin": true}}', type: 'application/json' });
  t.equal(proto.status, 400);
  t.match(proto.body, { errors: { request: [/prototype/] } });
  const ctor = await put({ body: '{"attributes": {"constructor": {"x": 1}}}', type: 'application/json' });
  t.equal(ctor.status, 400);

  const huge = await put({ body: JSON.stringify({ description: 'x'.repeat(4000) }), type: 'application/json' });
  t.equal(huge.status, 413);
  t.match(huge.body, { errors: { request: [/larger than/] } });

  const overflow = await put({ body: '{"attributes": {"display_max": 1e400}}', type: 'application/json' });
  t.equal(overflow.status, 400);
  t.match(overflow.body, { errors: { params: { 'attributes.display_max': [/finite/] } } });

  const deep = await put({ body: '{"a":'.repeat(20) + '1' + '}'.repeat(20), type: 'application/json' });
  t.equal(deep.status, 400);
  t.match(deep.body, { errors: { request: [/nested deeper/] } });

  const xml = await put({ body: '<metric/>', type: 'application/xml' });
  t.equal(xml.status, 415);
  t.match(xml.body, { errors: { request: [/Content-Type/] } });

  const wrongTypes = await s.request('PUT', '/v1/metrics/body.test', { json: { period: 'soon', display_name: 5, attributes: { display_stacked: 'maybe' } } });
  t.equal(wrongTypes.status, 400);
  t.same(wrongTypes.body.errors.params, {
    period: ['must be an integer or null'],
    display_name: ['must be a string or null'],
    'attributes.display_stacked': ['must be true or false'],
  });

  const notObject = await s.request('PUT', '/v1/metrics/body.test', { json: [1, 2] });
  t.equal(notObject.status, 400);
  // `null` is not an empty body: it would otherwise read as {} and create a gauge
  for (const body of ['null', '1', '"x"', 'true']) {
    const r = await put({ body, type: 'application/json' });
    t.equal(r.status, 400, body);
    t.same(r.body, { errors: { request: ['The request body must be a JSON object'] } }, body);
  }

  t.equal((await s.get('/v1/metrics/body.test')).status, 404, 'nothing was stored by the rejected requests');
});

t.test('GET and DELETE with an empty body and a JSON content type are fine', async (t) => {
  const s = await startTestServer(t);
  t.equal((await s.request('PUT', '/v1/metrics/empty.body', { json: {} })).status, 201);
  const get = await s.get('/v1/metrics/empty.body', { headers: { 'content-type': 'application/json' } });
  t.equal(get.status, 200);
  const del = await s.request('DELETE', '/v1/metrics/empty.body', { headers: { 'content-type': 'application/json' } });
  t.equal(del.status, 204);
});

t.test('form bodies nest Rails-style and parse to the same object as JSON', async (t) => {
  const s = await startTestServer(t);
  const form = 'type=gauge&display_name=Load&period=60&attributes[color]=%23a1b2c3&attributes[display_stacked]=true&attributes[display_max]=10.5';
  t.equal((await s.request('PUT', '/v1/metrics/form.metric', { form })).status, 201);
  t.equal((await s.request('PUT', '/v1/metrics/json.metric', { json: { type: 'gauge', display_name: 'Load', period: 60, attributes: { color: '#a1b2c3', display_stacked: true, display_max: 10.5 } } })).status, 201);
  const a = (await s.get('/v1/metrics/form.metric')).body;
  const b = (await s.get('/v1/metrics/json.metric')).body;
  delete a.name; delete b.name;
  t.same(a, b);
  t.same(a.attributes.display_max, 10.5);

  const names = await s.request('DELETE', '/v1/metrics', { form: 'names[]=form.metric&names[]=json.metric' });
  t.equal(names.status, 204);
  t.equal((await s.get('/v1/metrics')).body.query.total, 0);

  const badForm = await s.request('PUT', '/v1/metrics/form.metric', { form: 'period=abc' });
  t.equal(badForm.status, 400);
  t.same(badForm.body.errors.params, { period: ['must be an integer or null'] });
  const protoForm = await s.request('PUT', '/v1/metrics/form.proto', { form: '__proto__[x]=1&constructor[prototype][y]=2' });
  t.equal(protoForm.status, 400, 'prototype keys in a form body are refused like in JSON');
  t.same(protoForm.body, { errors: { request: ['Request body may not contain the key "__proto__"'] } });
  t.equal((await s.get('/v1/metrics/form.proto')).status, 404, 'nothing was created');
  const ctorForm = await s.request('PUT', '/v1/metrics/form.ctor', { form: 'type=gauge&constructor%5Bprototype%5D%5By%5D=2' });
  t.equal(ctorForm.status, 400, 'percent-encoded brackets too');
  t.same(ctorForm.body, { errors: { request: ['Request body may not contain the key "constructor"'] } });
  t.equal(({} as Record<string, unknown>).x, undefined);
});

t.test('inspect() rejects what the parser lets through', async (t) => {
  t.throws(() => inspect({ a: [{ b: NaN }] }, 10), ApiError);
  t.throws(() => inspect({ a: { prototype: 1 } }, 10), ApiError);
  t.doesNotThrow(() => inspect({ a: [1, 'x', null, true, { b: -0 }] }, 10));
  t.throws(() => inspect([[[[1]]]], 2), ApiError);
});

t.test('a body that is not the compressed data its Content-Encoding says is a 400', async (t) => {
  const s = await startTestServer(t);
  for (const encoding of ['gzip', 'br', 'deflate']) {
    for (const [method, path, type, body] of [
      ['PUT', '/v1/metrics/enc.test', 'application/json', '{"type":"gauge"}'],
      ['POST', '/v1/measurements', 'application/json', '{"measurements":[]}'],
      ['PUT', '/v1/metrics/enc.test', 'application/x-www-form-urlencoded', 'type=gauge'],
    ] as const) {
      const r = await s.request(method, path, { raw: { body, type }, headers: { 'content-encoding': encoding } });
      t.equal(r.status, 400, `${encoding} ${method} ${path} ${type}`);
      t.same(r.body, { errors: { request: [`Request body is not valid ${encoding} data`] } });
    }
  }
  t.equal((await s.get('/v1/metrics/enc.test')).status, 404, 'nothing was created');
});

t.test('body fields named like built-in object members get ordinary answers', async (t) => {
  const s = await startTestServer(t);
  for (const name of ['hasOwnProperty', 'toString', 'valueOf', 'isPrototypeOf']) {
    const space = await s.request('POST', '/v1/spaces', { json: { name: `members ${name}`, [name]: 1 } });
    t.equal(space.status, 400, `space body with ${name}`);
    t.same(space.body, { errors: { params: { [name]: ['is not a known field'] } } });
    const annotation = await s.request('POST', '/v1/annotations/members', { json: { title: 't', [name]: [1] } });
    t.equal(annotation.status, 400, `annotation body with ${name}`);
    t.same(annotation.body, { errors: { params: { [name]: ['is not a known field'] } } });
  }
});

t.test('after a 413 the connection is closed cleanly and the next request is answered', async (t) => {
  const s = await startTestServer(t, 'limits:\n  body_bytes: 2048\n');
  const { gzipSync } = await import('node:zlib');
  const bomb = gzipSync(Buffer.alloc(1024 * 1024, 0x20)); // small on the wire, 1 MB inflated
  t.ok(bomb.length < 2048, 'the compressed body itself is within the limit');
  for (let i = 0; i < 3; i++) {
    const big = await s.request('PUT', '/v1/metrics/bomb', { raw: { body: bomb, type: 'application/json' }, headers: { 'content-encoding': 'gzip' } });
    t.equal(big.status, 413);
    t.equal(big.headers.connection, 'close', 'the unread rest of the body is not left on a kept-alive connection');
    const next = await s.get('/v1/metrics');
    t.equal(next.status, 200, 'the next request of the same client is answered');
  }
  const declared = await s.request('PUT', '/v1/metrics/bomb', { raw: { body: Buffer.alloc(8192, 0x20), type: 'application/json' } });
  t.equal(declared.status, 413);
  t.equal(declared.headers.connection, 'close');
  t.equal((await s.get('/v1/metrics')).status, 200);
});

t.test('unknown methods get a JSON 405', async (t) => {
  const s = await startTestServer(t);
  for (const path of ['/v1/metrics', '/v1/metrics/x', '/v1/nothing']) {
    const r = await s.request('TRACE', path);
    t.equal(r.status, 405, `TRACE ${path}`);
    t.equal(r.headers['content-type'], 'application/json; charset=utf-8');
    t.same(r.body, { errors: { request: [`Method TRACE is not allowed on ${path}`] } });
  }
});

t.test('a body is read in the charset it declares, or refused: never stored changed', async (t) => {
  const s = await startTestServer(t);
  const latin1 = (text: string) => Buffer.from(text, 'latin1');
  const json = await s.request('PUT', '/v1/metrics/charset.json', { raw: { body: latin1('{"description":"café"}'), type: 'application/json; charset=ISO-8859-1' } });
  t.equal(json.status, 201);
  t.equal((await s.get('/v1/metrics/charset.json')).body.description, 'café');
  // Apache HttpClient's form encoder declares Latin-1 and percent-escapes its bytes
  const form = await s.request('PUT', '/v1/metrics/charset.form', { raw: { body: 'description=caf%E9+cr%E8me', type: 'application/x-www-form-urlencoded; charset=ISO-8859-1' } });
  t.equal(form.status, 201);
  t.equal((await s.get('/v1/metrics/charset.form')).body.description, 'café crème');
  // (tags and names are ASCII: a Latin-1 submission is read, and refused only for what it says)
  const tagged = await s.request('POST', '/v1/measurements', { raw: { body: latin1('{"tags":{"city":"munich"},"measurements":[{"name":"charset.tagged","value":1}]}'), type: 'application/json; charset=latin1' } });
  t.equal(tagged.status, 200, tagged.text);

  for (const charset of ['utf-16', 'shift_jis', 'no-such-charset']) {
    const r = await s.request('PUT', '/v1/metrics/charset.other', { raw: { body: '{"description":"x"}', type: `application/json; charset=${charset}` } });
    t.equal(r.status, 415, charset);
    t.same(r.body, { errors: { request: [`Unsupported charset ${charset}: send UTF-8`] } }, charset);
  }
  t.equal((await s.get('/v1/metrics/charset.other')).status, 404, 'nothing was created');
  const utf8 = await s.request('PUT', '/v1/metrics/charset.utf8', { raw: { body: '{"description":"café"}', type: 'application/json; charset=UTF-8' } });
  t.equal(utf8.status, 201);
  t.equal((await s.get('/v1/metrics/charset.utf8')).body.description, 'café');
});

t.test('zero bytes with a JSON Content-Type are no body, as without one', async (t) => {
  const s = await startTestServer(t);
  const empty = { raw: { body: '', type: 'application/json' } };
  t.equal((await s.request('PUT', '/v1/metrics/empty.json', empty)).status, 201, 'PUT creates with defaults');
  const sid = (await s.request('POST', '/v1/services', { json: { title: 'hook', type: 'webhook', settings: { url: 'https://hooks.example.com/x' } } })).body.id;
  const aid = (await s.request('POST', '/v1/alerts', { json: { name: 'empty.body', conditions: [{ type: 'above', metric_name: 'cpu', threshold: 1 }], services: [sid] } })).body.id;
  t.equal((await s.request('POST', `/v1/alerts/${aid}/clear`, empty)).status, 204);
  const submit = await s.request('POST', '/v1/measurements', empty);
  t.equal(submit.status, 400);
  t.ok(submit.body.errors.params.measurements, 'a submission without measurements says so');
  t.equal((await s.request('DELETE', '/v1/metrics/empty.json', empty)).status, 204);
  t.equal((await s.get('/v1/metrics/empty.json')).status, 404);
});

t.test('a form list is a list up to the longest a schema takes (10,000 batch names)', async (t) => {
  const s = await startTestServer(t);
  for (const name of ['form.a', 'form.b']) t.equal((await s.request('PUT', `/v1/metrics/${name}`, { json: {} })).status, 201);
  const names = ['form.a', ...Array.from({ length: 1500 }, (_, i) => `absent.${i}`), 'form.b'];
  const r = await s.request('DELETE', '/v1/metrics', { form: names.map((n) => `names[]=${n}`).join('&') });
  t.equal(r.status, 204, r.text);
  t.equal((await s.get('/v1/metrics')).body.query.total, 0, 'both listed metrics are gone');
});
