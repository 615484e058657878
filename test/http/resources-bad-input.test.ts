// Malformed bodies and queries sent to every space, chart and annotation route, with
// every method: each must get a 4xx with the error envelope, never a 5xx.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';

t.test('malformed input anywhere is a 4xx with the envelope, never a 5xx', async (t) => {
  const s = await startTestServer(t);
  const sp = (await s.request('POST', '/v1/spaces', { json: { name: 'x' } })).body.id;
  const ch = (await s.request('POST', `/v1/spaces/${sp}/charts`, { json: { name: 'x' } })).body.id;
  const ev = (await s.request('POST', `/v1/annotations/a`, { json: { title: 'x' } })).body.id;
  const paths = ['/v1/spaces', `/v1/spaces/${sp}`, `/v1/spaces/${sp}/charts`, `/v1/spaces/${sp}/charts/${ch}`, '/v1/annotations/a', `/v1/annotations/a/${ev}`, `/v1/annotations/a/${ev}/links`];
  const bodies: unknown[] = [null, 1, 'str', [], [1], { name: null }, { name: {} }, { title: [] }, { streams: [null] }, { streams: [[]] }, { streams: [{ tags: [null] }] }, { streams: [{ metric: 'a', tags: [{ name: 'a', values: [null] }] }] }, { thresholds: [null] }, { links: [null] }, { links: [{ rel: {}, href: [] }] }, { related_space: 1e20 }, { related_space: -1 }, { start_time: 1e20 }, { streams: [{ composite: 'x', transform_function: '('.repeat(200) + 'x' + ')'.repeat(200) }] }, { streams: [{ metric: 'a', transform_function: '-'.repeat(255) + 'x' }] }, { streams: [{ metric: 'a', transform_function: '('.repeat(255) }] }];
  const forms = ['streams[0]=a', 'streams=a', 'thresholds=x', 'links=x', 'links[0]=x', 'name[]=a', 'title[a]=b', 'streams[0][tags]=x', 'related_space=abc', 'start_time=', 'name=x&streams[0][metric]=a&streams[0][min]=abc', 'rel=a&href=https://x&label[]=z'];
  const notFound: string[] = [];
  const attack = async (m: string, p: string) => {
    for (const b of bodies) {
      const r = await s.request(m, p, { json: b });
      if (r.status >= 500) t.fail(`${m} ${p} ${JSON.stringify(b)} -> ${r.status} ${r.text}`);
      if (!(r.status < 300 || r.body?.errors)) t.fail(`${m} ${p} no envelope ${r.status}`);
      if (r.status === 404) notFound.push(`${m} ${p} ${JSON.stringify(b)}`);
    }
    for (const f of forms) {
      const r = await s.request(m, p, { form: f });
      if (r.status >= 500) t.fail(`${m} ${p} ${f} -> ${r.status} ${r.text}`);
      if (!(r.status < 300 || r.body?.errors)) t.fail(`${m} ${p} no envelope ${r.status}`);
      if (r.status === 404) notFound.push(`${m} ${p} ${f}`);
    }
  };
  // Every method but DELETE first, on resources that stay alive throughout, so each
  // request reaches the route's validation instead of a 404 for a deleted resource.
  for (const m of ['POST', 'PUT', 'GET']) for (const p of paths) await attack(m, p);
  t.same(notFound, [], 'every request reached a live resource');
  for (const p of [`/v1/spaces/${sp}`, `/v1/spaces/${sp}/charts/${ch}`, `/v1/annotations/a/${ev}`]) {
    t.equal((await s.get(p)).status, 200, `${p} is still there`);
  }
  // DELETE last, deepest resources first, so each still exists when it is attacked.
  for (const p of [...paths].reverse()) await attack('DELETE', p);
  for (const q of ['?start_time[]=1', '?sources=*&sources=**', '?count=1e3', '?offset=abc', '?length=1.5', '?name[]=x']) {
    for (const p of ['/v1/spaces', '/v1/annotations', '/v1/annotations/a']) {
      const r = await s.get(p + q);
      if (r.status >= 500) t.fail(`GET ${p}${q} -> ${r.status} ${r.text}`);
    }
  }
  t.pass('no 5xx, every error enveloped');
});
