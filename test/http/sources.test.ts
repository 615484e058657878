// The legacy sources API: the distinct sources of the account's series, display names.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { hourBase } from '../helpers/measurements.js';

t.test('GET /v1/sources lists the sources of the series; PUT sets a display name', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  t.equal((await s.request('POST', '/v1/metrics', { json: { gauges: [
    { name: 'load', value: 1, source: 'Web1', measure_time: base },
    { name: 'load', value: 2, source: 'web2', measure_time: base },
    { name: 'disk', value: 3, source: 'db1', measure_time: base },
  ] } })).status, 200);
  // a tagged measurement with a source tag is a source too
  t.equal((await s.request('POST', '/v1/measurements', { json: { measurements: [{ name: 'cpu', value: 1, time: base, tags: { source: 'cache1', host: 'x' } }] } })).status, 200);

  const all = await s.get('/v1/sources');
  t.equal(all.status, 200);
  t.same(all.body.query, { found: 4, length: 100, offset: 0, total: 4 });
  t.same(all.body.sources, [
    { name: 'cache1', display_name: null }, { name: 'db1', display_name: null },
    { name: 'web1', display_name: null }, { name: 'web2', display_name: null },
  ]);
  t.same((await s.get('/v1/sources?name=WEB')).body.sources.map((x: { name: string }) => x.name), ['web1', 'web2'], 'name filter, any case');
  const page = await s.get('/v1/sources?offset=1&length=2&sort=desc');
  t.same(page.body.sources.map((x: { name: string }) => x.name), ['web1', 'db1']);
  t.same(page.body.query, { found: 4, length: 2, offset: 1, total: 4 });

  t.same((await s.get('/v1/sources/Web1')).body, { name: 'web1', display_name: null });
  t.equal((await s.request('PUT', '/v1/sources/web1', { json: { display_name: 'Front end 1' } })).status, 204);
  t.same((await s.get('/v1/sources/web1')).body, { name: 'web1', display_name: 'Front end 1' });
  t.same((await s.get('/v1/sources?name=front')).body.sources, [{ name: 'web1', display_name: 'Front end 1' }], 'the filter searches display names');
  t.equal((await s.request('PUT', '/v1/sources/new-box', { form: 'display_name=New%20box' })).status, 204, 'PUT creates');
  t.same((await s.get('/v1/sources/new-box')).body, { name: 'new-box', display_name: 'New box' });
  t.equal((await s.get('/v1/sources')).body.query.total, 5);

  t.equal((await s.get('/v1/sources/nothing')).status, 404);
  const bad = await s.request('PUT', '/v1/sources/web1', { json: { display_name: 'x'.repeat(256) } });
  t.equal(bad.status, 400);
  t.equal((await s.request('PUT', '/v1/sources/web1', { json: { displayname: 'x' } })).status, 400, 'an unknown key is a 400');
  t.equal((await s.request('PUT', '/v1/sources/bad%20name', { json: { display_name: 'x' } })).status, 400);

  const other = await s.newAccount('other@example.com');
  t.same((await s.get('/v1/sources', { auth: other })).body.sources, [], 'another account sees none of them');
  t.equal((await s.get('/v1/sources/web1', { auth: other })).status, 404);
  const viewer = await s.newAccount('viewer@example.com', 'viewer');
  t.equal((await s.request('PUT', '/v1/sources/v', { auth: viewer, json: { display_name: 'v' } })).status, 403);
});

t.test('a display name is text people read: no control characters; null or empty clears it', async (t) => {
  const s = await startTestServer(t);
  for (const display_name of ['a\u0000b', 'line\nbreak', '\u001b[31mred']) {
    const r = await s.request('PUT', '/v1/sources/web1', { json: { display_name } });
    t.equal(r.status, 400, JSON.stringify(display_name));
    t.same(r.body, { errors: { params: { display_name: ['must not contain control characters'] } } });
  }
  t.equal((await s.get('/v1/sources/web1')).status, 404, 'nothing was created');
  t.equal((await s.request('PUT', '/v1/sources/web1', { json: { display_name: '   ' } })).status, 400, 'blank is refused');
  t.equal((await s.request('PUT', '/v1/sources/web1', { json: { display_name: 'Web 1' } })).status, 204);
  t.equal((await s.request('PUT', '/v1/sources/web1', { form: 'display_name=' })).status, 204, 'an empty form field clears it');
  t.equal((await s.request('PUT', '/v1/sources/web1', { json: { display_name: null } })).status, 204);
  t.same((await s.get('/v1/sources/web1')).body, { name: 'web1', display_name: null });
});

t.test('PUT /v1/sources/all is refused: all is reserved for the summary across sources', async (t) => {
  const s = await startTestServer(t);
  for (const name of ['all', 'ALL']) {
    const r = await s.request('PUT', `/v1/sources/${name}`, { json: { display_name: 'Everything' } });
    t.equal(r.status, 400, name);
    t.same(r.body, { errors: { params: { name: ['all is reserved'] } } });
  }
  t.same((await s.get('/v1/sources')).body.sources, [], 'no source record was made');
  t.equal((await s.get('/v1/sources/all')).status, 404);
});
