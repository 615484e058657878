import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { MAX_EVENTS_SCANNED } from '../../src/domain/annotations.js';

type Auth = { user: string; password: string };

async function post(s: TestServer, name: string, json: Record<string, unknown>, auth?: Auth) {
  const r = await s.request('POST', `/v1/annotations/${name}`, { json, ...(auth ? { auth } : {}) });
  if (r.status !== 201) throw new Error(`event on ${name}: ${r.status} ${r.text}`);
  return r.body as { id: number; [k: string]: unknown };
}

t.test('posting to a new name creates the stream; the event has its defaults', async (t) => {
  const s = await startTestServer(t);
  const before = Math.floor(Date.now() / 1000);
  const r = await s.request('POST', '/v1/annotations/App-Deploys', { json: { title: 'Deployed v56' } });
  t.equal(r.status, 201);
  t.equal(r.headers.location, `/v1/annotations/app-deploys/${r.body.id}`);
  t.same(r.body, { id: r.body.id, title: 'Deployed v56', description: null, source: null, start_time: r.body.start_time, end_time: null, links: [] });
  t.ok(r.body.start_time >= before && r.body.start_time <= before + 5, 'start_time defaults to now');
  t.same((await s.get('/v1/annotations')).body.annotations, [{ name: 'app-deploys', display_name: null }]);
  t.same((await s.get(`/v1/annotations/APP-deploys/${r.body.id}`)).body, r.body, 'stream names ignore case');
});

t.test('a form body with links[i][...] and every field', async (t) => {
  const s = await startTestServer(t);
  const form = [
    'title=Deployed%20v29', 'source=foo3.bar.com', 'description=Joe%20deployed', 'start_time=1234567890', 'end_time=1234567950',
    'links[0][label]=Metrics%20Gem', 'links[0][href]=https%3A%2F%2Fgithub.com%2Flibrato', 'links[0][rel]=github',
    'links[1][href]=http%3A%2F%2Fci.example.com%2F34', 'links[1][rel]=ci',
  ].join('&');
  const r = await s.request('POST', '/v1/annotations/api-deploys', { form });
  t.equal(r.status, 201, r.text);
  t.same(r.body, {
    id: r.body.id, title: 'Deployed v29', description: 'Joe deployed', source: 'foo3.bar.com', start_time: 1234567890, end_time: 1234567950,
    links: [{ rel: 'github', label: 'Metrics Gem', href: 'https://github.com/librato' }, { rel: 'ci', label: null, href: 'http://ci.example.com/34' }],
  });
  const empty = await s.request('POST', '/v1/annotations/api-deploys', { form: 'title=x&source=&end_time=' });
  t.equal(empty.status, 201);
  t.equal(empty.body.source, null, 'an empty form source means none');
  t.equal(empty.body.end_time, null);
});

t.test('event rules, each a 400 under its field', async (t) => {
  const s = await startTestServer(t);
  const cases: [unknown, Record<string, string[]>][] = [
    [{}, { title: ['is required'] }],
    [{ title: '' }, { title: ['must NOT have fewer than 1 characters'] }],
    [{ title: '  ' }, { title: ['must not be blank'] }],
    [{ title: 't'.repeat(256) }, { title: ['must NOT have more than 255 characters'] }],
    [{ title: 'x', start_time: 'yesterday' }, { start_time: ['must be an integer'] }],
    [{ title: 'x', start_time: -1 }, { start_time: ['must be >= 0'] }],
    [{ title: 'x', start_time: 1.5 }, { start_time: ['must be an integer'] }],
    [{ title: 'x', start_time: 100, end_time: 99 }, { end_time: ['must not be before start_time'] }],
    [{ title: 'x', source: 'has space' }, { source: ['must match pattern "^[A-Za-z0-9.:_-]{0,255}$"'] }],
    [{ title: 'x', description: 'd'.repeat(4097) }, { description: ['must NOT have more than 4096 characters'] }],
    [{ title: 'x', id: 5, created_at: 1 }, { created_at: ['is not a known field'] }],
    [{ title: 'x', links: { rel: 'a' } }, { links: ['must be an array'] }],
    [{ title: 'x', links: [{ href: 'https://a.example' }] }, { 'links[0].rel': ['is required'] }],
    [{ title: 'x', links: [{ rel: 'a' }] }, { 'links[0].href': ['is required'] }],
    [{ title: 'x', links: [{ rel: 'a', href: 'javascript:alert(1)' }] }, { 'links[0].href': ['must match pattern "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$"'] }],
    [{ title: 'x', links: [{ rel: 'a b', href: 'https://a.example' }] }, { 'links[0].rel': ['must match pattern "^[A-Za-z0-9._:-]{1,64}$"'] }],
    [{ title: 'x', links: [{ rel: 'a', href: 'https://a.example' }, { rel: 'a', href: 'https://b.example' }] }, { links: ['each link needs its own rel within the event'] }],
  ];
  for (const [json, params] of cases) {
    const r = await s.request('POST', '/v1/annotations/deploys', { json });
    t.equal(r.status, 400, JSON.stringify(json).slice(0, 80));
    t.same(r.body, { errors: { params } }, JSON.stringify(json).slice(0, 80));
  }
  const badName = await s.request('POST', '/v1/annotations/bad%20name', { json: { title: 'x' } });
  t.equal(badName.status, 400);
  t.same(badName.body, { errors: { params: { name: ['must be 1-255 characters of letters, digits, . : - _'] } } });
  const formTime = await s.request('POST', '/v1/annotations/deploys', { form: 'title=x&start_time=abc' });
  t.same(formTime.body, { errors: { params: { start_time: ['must be an integer'] } } });
  t.same((await s.get('/v1/annotations')).body.annotations, [], 'no refused event created a stream');
});

t.test('GET a stream: events in start-time order, grouped by source, in the spec\'s shape', async (t) => {
  const s = await startTestServer(t);
  const e1 = await post(s, 'deploys', { title: 'b', source: 'web1', start_time: 200 });
  const e2 = await post(s, 'deploys', { title: 'a', start_time: 100 });
  const e3 = await post(s, 'deploys', { title: 'c', source: 'db1', start_time: 300, end_time: 350 });
  const e4 = await post(s, 'deploys', { title: 'd', source: 'web1', start_time: 150 });
  const e5 = await post(s, 'deploys', { title: 'e', start_time: 400 });
  const r = await s.get('/v1/annotations/deploys');
  t.equal(r.status, 200);
  t.same(r.body, { name: 'deploys', display_name: null, events: [{ unassigned: [e2, e5], web1: [e4, e1], db1: [e3] }] });
  t.same(Object.keys(r.body.events[0]), ['unassigned', 'web1', 'db1'], 'sources appear as their first events do');

  const windowed = await s.get('/v1/annotations/deploys?start_time=150&end_time=300');
  t.same(windowed.body.events, [{ web1: [e4, e1], db1: [e3] }], 'start_time and end_time bound the start times, inclusive');
  t.same((await s.get('/v1/annotations/deploys?start_time=301')).body.events, [{ unassigned: [e5] }],
    'the span 300-350 began before the window: not in it though it ends inside (Librato\'s rule, docs/resources.md)');
  t.same((await s.get('/v1/annotations/deploys?end_time=99')).body.events, [], 'no events: an empty list');

  t.same((await s.get('/v1/annotations/deploys?sources[]=web*')).body.events, [{ web1: [e4, e1] }], 'sources[] takes wildcards');
  t.same((await s.get('/v1/annotations/deploys?sources[]=db1&sources[]=unassigned')).body.events, [{ unassigned: [e2, e5], db1: [e3] }]);
  t.same((await s.get('/v1/annotations/deploys?sources=DB*')).body.events, [{ db1: [e3] }], 'plain `sources` and any case');
  // Node's qs and jQuery number the elements of an array; a spelling read as nothing would drop the filter and answer every event
  t.same((await s.get('/v1/annotations/deploys?sources%5B0%5D=db1&sources%5B1%5D=web*')).body.events, [{ web1: [e4, e1], db1: [e3] }], 'sources[0], sources[1]');
  t.same((await s.get('/v1/annotations/deploys?count=2')).body.events, [{ db1: [e3], unassigned: [e5] }], 'count keeps the latest, still oldest first');
  t.same((await s.get('/v1/annotations/deploys?count=1&sources[]=web1')).body.events, [{ web1: [e1] }], 'count counts matching events');

  for (const [query, params] of [
    ['start_time=yesterday', { start_time: ['must be an integer from 0 to 253402300799'] }],
    ['end_time=-5', { end_time: ['must be an integer from 0 to 253402300799'] }],
    ['start_time=10&end_time=5', { end_time: ['must not be before start_time'] }],
    ['count=0', { count: ['must be an integer from 1 to 1000'] }],
    ['count=1001', { count: ['must be an integer from 1 to 1000'] }],
    ['sources[]=', { sources: ['must be 1 to 255 characters each'] }],
    ['count=5&count=10', { count: ['must be given once'] }],
    ['start_time=1&start_time=2', { start_time: ['must be given once'] }],
  ] as const) {
    const bad = await s.get(`/v1/annotations/deploys?${query}`);
    t.equal(bad.status, 400, query);
    t.same(bad.body, { errors: { params } }, query);
  }
  t.equal((await s.get('/v1/annotations/nope')).status, 404);
  t.same((await s.get('/v1/annotations/nope')).body, { errors: { request: ['Annotation stream not found'] } });
  t.equal((await s.get('/v1/annotations/bad%20name')).status, 404, 'a name that cannot exist is simply not found');
});

t.test('a source named like an Object property is just a source', async (t) => {
  const s = await startTestServer(t);
  const e = await post(s, 'odd', { title: 'x', source: '__proto__' });
  const r = await s.get('/v1/annotations/odd');
  t.match(r.text, /"events":\[\{"__proto__":\[\{"id"/);
  const group = Object.getOwnPropertyDescriptor(r.body.events[0], '__proto__');
  t.same(group?.value, [e], 'an own key holding the events, not a prototype');
});

t.test('one event, its links: get, add (201, 422 on a taken rel), delete', async (t) => {
  const s = await startTestServer(t);
  const e = await post(s, 'deploys', { title: 'v1', links: [{ rel: 'github', href: 'https://github.com/x' }] });
  const got = await s.get(`/v1/annotations/deploys/${e.id}`);
  t.equal(got.status, 200);
  t.same(got.body, e);

  const added = await s.request('POST', `/v1/annotations/deploys/${e.id}/links`, { form: 'rel=ci&label=Build%2034&href=https%3A%2F%2Fci.example.com%2F34' });
  t.equal(added.status, 201);
  t.equal(added.headers.location, `/v1/annotations/deploys/${e.id}/links/ci`);
  t.same(added.body, { rel: 'ci', label: 'Build 34', href: 'https://ci.example.com/34' });
  t.same((await s.get(`/v1/annotations/deploys/${e.id}/links/ci`)).body, added.body, 'the Location can be read');
  t.same((await s.get(`/v1/annotations/deploys/${e.id}`)).body.links.map((l: { rel: string }) => l.rel), ['github', 'ci']);

  const dup = await s.request('POST', `/v1/annotations/deploys/${e.id}/links`, { json: { rel: 'github', href: 'https://other.example' } });
  t.equal(dup.status, 422);
  t.same(dup.body, { errors: { params: { rel: ['is already used by a link of this event'] } } });
  const invalid = await s.request('POST', `/v1/annotations/deploys/${e.id}/links`, { json: { rel: 'x' } });
  t.equal(invalid.status, 400);
  t.same(invalid.body, { errors: { params: { href: ['is required'] } } });

  t.equal((await s.request('DELETE', `/v1/annotations/deploys/${e.id}/links/github`)).status, 204);
  t.same((await s.get(`/v1/annotations/deploys/${e.id}`)).body.links, [added.body]);
  const again = await s.request('DELETE', `/v1/annotations/deploys/${e.id}/links/github`);
  t.equal(again.status, 404);
  t.same(again.body, { errors: { request: ['Link not found'] } });
  t.equal((await s.get(`/v1/annotations/deploys/${e.id}/links/github`)).status, 404);

  t.equal((await s.get('/v1/annotations/deploys/999999')).status, 404);
  t.equal((await s.get('/v1/annotations/deploys/abc')).status, 404);
  await post(s, 'other', { title: 'x' });
  t.equal((await s.get(`/v1/annotations/other/${e.id}`)).status, 404, 'an event is found only in its own stream');
  t.equal((await s.request('POST', '/v1/annotations/deploys/999999/links', { json: { rel: 'a', href: 'https://a.example' } })).status, 404);
});

t.test('updates: stream display_name, event fields (links replaced, start_time moves it)', async (t) => {
  const s = await startTestServer(t);
  const e = await post(s, 'deploys', { title: 'v1', start_time: 100, links: [{ rel: 'a', href: 'https://a.example' }] });
  const later = await post(s, 'deploys', { title: 'v2', start_time: 200 });

  const named = await s.request('PUT', '/v1/annotations/deploys', { form: 'display_name=Deploys%20to%20API' });
  t.equal(named.status, 204);
  t.equal((await s.get('/v1/annotations/deploys')).body.display_name, 'Deploys to API');
  t.same((await s.get('/v1/annotations')).body.annotations, [{ name: 'deploys', display_name: 'Deploys to API' }]);
  t.equal((await s.request('PUT', '/v1/annotations/deploys', { json: { name: 'deploys' } })).status, 204, 'nothing to change is fine');
  t.equal((await s.get('/v1/annotations/deploys')).body.display_name, 'Deploys to API');
  t.same((await s.request('PUT', '/v1/annotations/deploys', { json: { display_name: 'a\nb' } })).body.errors.params, { display_name: ['must not contain control characters'] });
  t.same((await s.request('PUT', '/v1/annotations/deploys', { json: { display_name: 5 } })).body.errors.params, { display_name: ['must be a string or null'] });
  t.equal((await s.request('PUT', '/v1/annotations/missing', { json: { display_name: 'x' } })).status, 404, 'PUT does not create a stream');

  const updated = await s.request('PUT', `/v1/annotations/deploys/${e.id}`, {
    json: { title: 'v1 final', description: 'done', end_time: 150, links: [{ rel: 'b', href: 'https://b.example', label: 'B' }] },
  });
  t.equal(updated.status, 204);
  t.same((await s.get(`/v1/annotations/deploys/${e.id}`)).body, {
    id: e.id, title: 'v1 final', description: 'done', source: null, start_time: 100, end_time: 150,
    links: [{ rel: 'b', label: 'B', href: 'https://b.example' }],
  });

  t.equal((await s.request('PUT', `/v1/annotations/deploys/${e.id}`, { form: 'start_time=300&end_time=' })).status, 204);
  t.same((await s.get('/v1/annotations/deploys')).body.events[0].unassigned.map((x: { id: number }) => x.id), [later.id, e.id], 'a new start_time reorders the event');
  t.same((await s.get('/v1/annotations/deploys?end_time=100')).body.events, [], 'and it is no longer found at its old time');

  for (const [json, params] of [
    [{ end_time: 299 }, { end_time: ['must not be before start_time'] }],
    [{ title: null }, { title: ['must be a string'] }],
    [{ title: ' ' }, { title: ['must not be blank'] }],
    [{ links: [{ rel: 'a', href: 'ftp://x' }] }, { 'links[0].href': ['must match pattern "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$"'] }],
    [{ colour: 'red' }, { colour: ['is not a known field'] }],
  ] as const) {
    const r = await s.request('PUT', `/v1/annotations/deploys/${e.id}`, { json });
    t.equal(r.status, 400, JSON.stringify(json));
    t.same(r.body, { errors: { params } }, JSON.stringify(json));
  }
  t.equal((await s.request('PUT', '/v1/annotations/deploys/999999', { json: { title: 'x' } })).status, 404);
});

t.test('deleting an event, then the stream with all its events', async (t) => {
  const s = await startTestServer(t);
  const a = await post(s, 'deploys', { title: 'a', start_time: 100 });
  const b = await post(s, 'deploys', { title: 'b', start_time: 200 });
  const keep = await post(s, 'deploys-other', { title: 'c', start_time: 100 });
  t.equal((await s.request('DELETE', `/v1/annotations/deploys/${a.id}`)).status, 204);
  t.equal((await s.get(`/v1/annotations/deploys/${a.id}`)).status, 404);
  t.same((await s.get('/v1/annotations/deploys')).body.events, [{ unassigned: [b] }]);
  t.equal((await s.request('DELETE', `/v1/annotations/deploys/${a.id}`)).status, 404);

  t.equal((await s.request('DELETE', '/v1/annotations/deploys')).status, 204);
  t.equal((await s.get('/v1/annotations/deploys')).status, 404);
  t.equal((await s.get(`/v1/annotations/deploys/${b.id}`)).status, 404);
  t.equal((await s.request('DELETE', '/v1/annotations/deploys')).status, 404);
  t.same((await s.get('/v1/annotations/deploys-other')).body.events, [{ unassigned: [keep] }], 'a stream whose name starts alike is untouched');

  await post(s, 'deploys', { title: 'fresh', start_time: 500 });
  const fresh = await s.get('/v1/annotations/deploys');
  t.same(fresh.body.events[0].unassigned.map((x: { title: string }) => x.title), ['fresh'], 'a re-created stream starts empty');
  t.equal((await s.get(`/v1/annotations/deploys/${b.id}`)).status, 404);
});

t.test('a stream of more events than one delete batch goes whole', async (t) => {
  const s = await startTestServer(t);
  const ids: number[] = [];
  for (let i = 0; i < 2100; i++) ids.push((await post(s, 'many', { title: `e${i}`, start_time: 1000 + i })).id);
  t.equal((await s.request('DELETE', '/v1/annotations/many')).status, 204);
  t.equal((await s.get(`/v1/annotations/many/${ids[2099]}`)).status, 404);
  await post(s, 'many', { title: 'fresh', start_time: 5 });
  const fresh = await s.get('/v1/annotations/many');
  t.same(fresh.body.events[0].unassigned.map((x: { title: string }) => x.title), ['fresh'], 'nothing of the old stream is left');
  for (const id of [ids[0], ids[999], ids[1000], ids[2099]]) t.equal((await s.get(`/v1/annotations/many/${id}`)).status, 404);
});

t.test('an answer of events is bounded in bytes: a window of huge events is a 400 under count', async (t) => {
  const s = await startTestServer(t);
  // ~110 kB an event, all within the schema's bounds: 80 of them pass 8 MiB
  const links = Array.from({ length: 50 }, (_, i) => ({ rel: `r${i}`, href: `https://runbooks.example.com/${'a'.repeat(2000)}` }));
  for (let i = 0; i < 80; i++) await post(s, 'huge', { title: `e${i}`, start_time: 1000 + i, description: 'd'.repeat(4096), links });
  const all = await s.get('/v1/annotations/huge');
  t.equal(all.status, 400);
  t.match(all.body, { errors: { params: { count: [/^the latest \d+ events of this window hold more than 8 MiB; ask for fewer \(count\) or a shorter window/] } } });
  const some = await s.get('/v1/annotations/huge?count=20');
  t.equal(some.status, 200);
  t.same(some.body.events[0].unassigned.map((e: { title: string }) => e.title), Array.from({ length: 20 }, (_, i) => `e${60 + i}`), 'the latest 20, oldest first');
  t.equal((await s.get('/v1/annotations/huge?end_time=1019')).status, 200, 'or a shorter window');
});

t.test('a sources filter reads at most 100,000 events of a window looking for matches', async (t) => {
  const s = await startTestServer(t);
  await post(s, 'busy', { title: 'first', start_time: 10, source: 'rare' });
  const account = s.server.rt.accounts.findAccount(s.admin.user)!.id;
  // 100,001 more events straight into the store (through the API this would take minutes)
  const events = s.server.rt.store.json('annotation_events');
  const pad = (n: number) => String(n).padStart(12, '0');
  const ops = Array.from({ length: MAX_EVENTS_SCANNED + 1 }, (_, i) => {
    const id = 1_000_000 + i;
    const event = { id, title: 'e', description: null, source: 'common', start_time: 100 + i, end_time: null, links: [], created_at: 0, updated_at: 0 };
    return { type: 'put' as const, key: `${account}!busy!${pad(100 + i)}!${pad(id)}`, value: event };
  });
  await events.batch(ops);
  const far = await s.get('/v1/annotations/busy?sources[]=rare');
  t.equal(far.status, 400);
  t.same(far.body, { errors: { params: { sources: [`matched 0 of the latest ${MAX_EVENTS_SCANNED} events of this window; narrow the window (start_time, end_time)`] } } });
  const narrowed = await s.get('/v1/annotations/busy?sources[]=rare&end_time=50');
  t.same(narrowed.body.events[0].rare.map((e: { title: string }) => e.title), ['first'], 'a narrower window finds it');
  t.equal((await s.get('/v1/annotations/busy?count=5')).body.events[0].common.length, 5, 'without a filter the count bound applies as before');
});

t.test('listing streams: name filter, pagination, orderby and sort', async (t) => {
  const s = await startTestServer(t);
  for (const n of ['web-deploys', 'api-deploys', 'backups', 'db-deploys']) await post(s, n, { title: 'x' });
  const all = await s.get('/v1/annotations');
  t.same(all.body.query, { found: 4, length: 100, offset: 0, total: 4 });
  t.same(all.body.annotations.map((a: { name: string }) => a.name), ['api-deploys', 'backups', 'db-deploys', 'web-deploys']);
  const page = await s.get('/v1/annotations?name=DEPLOYS&offset=1&length=1&orderby=name&sort=desc');
  t.same(page.body, { query: { found: 3, length: 1, offset: 1, total: 4 }, annotations: [{ name: 'db-deploys', display_name: null }] });
  const bad = await s.get('/v1/annotations?orderby=display_name');
  t.equal(bad.status, 400);
  t.same(bad.body, { errors: { params: { orderby: ['must be one of: name'] } } });
  t.equal((await s.get('/v1/annotations?length=0')).status, 400);
});

t.test('another account sees none of it (404) and has its own streams of the same name', async (t) => {
  const s = await startTestServer(t);
  const other = await s.newAccount('other@example.com');
  const e = await post(s, 'deploys', { title: 'mine', links: [{ rel: 'a', href: 'https://a.example' }] });
  for (const [method, path, json] of [
    ['GET', '/v1/annotations/deploys'], ['PUT', '/v1/annotations/deploys', { display_name: 'x' }], ['DELETE', '/v1/annotations/deploys'],
    ['GET', `/v1/annotations/deploys/${e.id}`], ['PUT', `/v1/annotations/deploys/${e.id}`, { title: 'x' }],
    ['DELETE', `/v1/annotations/deploys/${e.id}`], ['POST', `/v1/annotations/deploys/${e.id}/links`, { rel: 'b', href: 'https://b.example' }],
    ['GET', `/v1/annotations/deploys/${e.id}/links/a`], ['DELETE', `/v1/annotations/deploys/${e.id}/links/a`],
  ] as const) {
    const r = await s.request(method, path, { auth: other, ...(json ? { json } : {}) });
    t.equal(r.status, 404, `${method} ${path}`);
    t.same(r.body, { errors: { request: ['Annotation stream not found'] } }, `${method} ${path}`);
  }
  t.same((await s.get('/v1/annotations', { auth: other })).body.annotations, []);
  const theirs = await post(s, 'deploys', { title: 'theirs' }, other);
  t.same((await s.get('/v1/annotations/deploys', { auth: other })).body.events, [{ unassigned: [theirs] }]);
  t.equal((await s.get(`/v1/annotations/deploys/${theirs.id}`)).status, 404, 'and theirs is invisible to us');
  t.same((await s.get(`/v1/annotations/deploys/${e.id}`)).body, e, 'ours is untouched');
});

t.test('viewers read annotations but do not write them', async (t) => {
  const s = await startTestServer(t);
  const e = await post(s, 'deploys', { title: 'x' });
  const viewer = await s.newAccount(s.admin.user, 'viewer');
  t.equal((await s.get(`/v1/annotations/deploys/${e.id}`, { auth: viewer })).status, 200);
  t.equal((await s.request('POST', '/v1/annotations/deploys', { auth: viewer, json: { title: 'y' } })).status, 403);
  t.equal((await s.request('DELETE', '/v1/annotations/deploys', { auth: viewer })).status, 403);
});
