// limits.per_account: each kind of resource an account holds is bounded; a create past the
// bound is a 403 that names it, other accounts and what is stored are untouched, and
// deleting one makes room again.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

const YAML = `limits:
  per_account:
    spaces: 2
    charts_per_space: 2
    alerts: 2
    services: 2
    annotation_streams: 2
    composite_metrics: 2
`;

const refused = (holder: string, limit: number, what: string, key: string) => ({
  errors: { request: [`${holder} has at most ${limit} ${what} (limits.per_account.${key}); delete some first`] },
});

t.test('spaces and charts per space', async (t) => {
  const s = await startTestServer(t, YAML);
  const a = (await s.request('POST', '/v1/spaces', { json: { name: 'a' } })).body.id;
  t.equal((await s.request('POST', '/v1/spaces', { json: { name: 'b' } })).status, 201);
  const third = await s.request('POST', '/v1/spaces', { json: { name: 'c' } });
  t.equal(third.status, 403);
  t.same(third.body, refused('an account', 2, 'spaces', 'spaces'));
  const other = await s.newAccount('other@example.com');
  t.equal((await s.request('POST', '/v1/spaces', { json: { name: 'c' }, auth: other })).status, 201, 'another account has its own count');

  for (const name of ['x', 'y']) t.equal((await s.request('POST', `/v1/spaces/${a}/charts`, { json: { name } })).status, 201);
  const chart = await s.request('POST', `/v1/spaces/${a}/charts`, { json: { name: 'z' } });
  t.equal(chart.status, 403);
  t.same(chart.body, refused('a space', 2, 'charts', 'charts_per_space'));

  t.equal((await s.request('DELETE', `/v1/spaces/${a}`)).status, 204);
  t.equal((await s.request('POST', '/v1/spaces', { json: { name: 'c' } })).status, 201, 'deleting one makes room');
});

t.test('services and alerts', async (t) => {
  const s = await startTestServer(t, YAML);
  const service = (title: string) => s.request('POST', '/v1/services', { json: { title, type: 'webhook', settings: { url: 'https://hooks.example.com/x' } } });
  const sid = (await service('one')).body.id;
  t.equal((await service('two')).status, 201);
  t.same((await service('three')).body, refused('an account', 2, 'services', 'services'));

  const alert = (name: string) => s.request('POST', '/v1/alerts', { json: { name, services: [sid], conditions: [{ type: 'above', metric_name: 'cpu', threshold: 1 }] } });
  const first = (await alert('a1')).body.id;
  t.equal((await alert('a2')).status, 201);
  const over = await alert('a3');
  t.equal(over.status, 403);
  t.same(over.body, refused('an account', 2, 'alerts', 'alerts'));
  t.equal((await s.request('PUT', `/v1/alerts/${first}`, { json: { description: 'updates are not creates' } })).status, 204);
  t.equal((await s.request('DELETE', `/v1/alerts/${first}`)).status, 204);
  t.equal((await alert('a3')).status, 201);
});

t.test('annotation streams: a new stream past the bound is refused, events on existing ones are not', async (t) => {
  const s = await startTestServer(t, YAML);
  const event = (stream: string) => s.request('POST', `/v1/annotations/${stream}`, { json: { title: 'deploy' } });
  t.equal((await event('a')).status, 201);
  t.equal((await event('b')).status, 201);
  const over = await event('c');
  t.equal(over.status, 403);
  t.same(over.body, refused('an account', 2, 'annotation streams', 'annotation_streams'));
  t.equal((await event('a')).status, 201, 'more events on a stream that exists');
  t.equal((await s.get('/v1/annotations/c')).status, 404, 'nothing of the refused stream was kept');
});

t.test('composite metrics: a new one past the bound is refused; updates, gauges and freed places are not', async (t) => {
  const s = await startTestServer(t, YAML);
  const put = (name: string, composite = 'sum(s("cpu", "*"))') => s.request('PUT', `/v1/metrics/${name}`, { json: { type: 'composite', composite } });
  t.equal((await put('a')).status, 201);
  t.equal((await put('b')).status, 201);
  const over = await put('c');
  t.equal(over.status, 403);
  t.same(over.body, refused('an account', 2, 'composite metrics', 'composite_metrics'));
  t.equal((await s.get('/v1/metrics/c')).status, 404, 'nothing of the refused metric was kept');
  t.equal((await put('a', 'sum(s("mem", "*"))')).status, 204, 'an update is not a create');
  t.equal((await s.request('PUT', '/v1/metrics/g', { json: { type: 'gauge' } })).status, 201, 'gauges are not counted');
  t.equal((await s.request('DELETE', '/v1/metrics/b')).status, 204);
  // the one place freed, asked for twice at once: one create takes it
  const both = await Promise.all([put('d'), put('e')]);
  t.same(both.map((r) => r.status).sort(), [201, 403], 'two creates at once do not both take the last place');
  const other = await s.newAccount('other@example.com');
  t.equal((await s.request('PUT', '/v1/metrics/c', { json: { type: 'composite', composite: 'sum(s("cpu", "*"))' }, auth: other })).status, 201, 'another account has its own count');
});
