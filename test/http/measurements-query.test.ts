import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hourBase, post, query } from '../helpers/measurements.js';

type Series = { tags: Record<string, string>; measurements: { time: number; value: number }[] };
const hosts = (body: { series: Series[] }) => body.series.map((s) => s.tags.host ?? '-');

/** hosts a1, a2, b1 (region east/east/west), c (no region), d (no host) */
async function fixture(s: TestServer, base: number) {
  const r = await post(s, { time: base, measurements: [
    { name: 'load', value: 1, tags: { host: 'a1', region: 'east' } },
    { name: 'load', value: 2, tags: { host: 'a2', region: 'east' } },
    { name: 'load', value: 4, tags: { host: 'b1', region: 'west' } },
    { name: 'load', value: 8, tags: { host: 'c' } },
    { name: 'load', value: 16, tags: { role: 'db' } },
  ] });
  if (r.status !== 200) throw new Error(r.text);
}

t.test('tag filters', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  await fixture(s, base);
  const w = `resolution=60&start_time=${base}&end_time=${base}`;
  const cases: [string, string[]][] = [
    ['', ['a1', 'a2', 'b1', 'c', '-']],
    ['tags=*', ['a1', 'a2', 'b1', 'c', '-']],
    ['tags={}', ['a1', 'a2', 'b1', 'c', '-']],
    ['tags[host]=a1', ['a1']],
    ['tags[host]=A*', ['a1', 'a2']],
    ['tags[host]=a1&tags[host]=b1', ['a1', 'b1']],
    ['tags[host][]=a1&tags[host][]=c', ['a1', 'c']],
    ['tags[host]=a*&tags[region]=east', ['a1', 'a2']],
    ['tags[host]=*', ['a1', 'a2', 'b1', 'c']],
    ['tags[region]=!east', ['b1']],
    ['tags[!region]=1', ['c', '-']],
    ['tags[host]=nope', []],
    ['tags=' + encodeURIComponent('{"host":["a1","c"]}'), ['a1', 'c']],
    ['tags=' + encodeURIComponent('{host: a*, region: [east, west]}'), ['a1', 'a2']],
    ['tags_search=' + encodeURIComponent('region=east and host=a2'), ['a2']],
    ['tags_search=' + encodeURIComponent('region=east* and host=a1 OR region=west'), ['a1', 'b1']],
    ['tags_search=' + encodeURIComponent('!region or region=!east'), ['b1', 'c', '-']],
    ['tags_search=' + encodeURIComponent('(host=a1 or host=c) and !region'), ['c']],
  ];
  for (const [params, want] of cases) {
    const q = await query(s, 'load', `${w}&${params}`);
    t.equal(q.status, 200, `${params}: ${q.text.slice(0, 200)}`);
    t.same(hosts(q.body), want, params || '(no filter)');
  }
  // the answer is written as text (http/views/series-json.ts): still JSON, and said to be
  const q = await query(s, 'load', w);
  t.equal(q.headers['content-type'], 'application/json; charset=utf-8');
  t.equal(q.text, JSON.stringify(JSON.parse(q.text)), 'the text JSON.stringify would write');
  for (const bad of ['tags[host]=a&tags_search=host%3Da', 'tags_search=' + encodeURIComponent('host=a and'), 'tags_search=' + encodeURIComponent('(host=a'), 'tags[bad%20tag]=x', 'tags=nonsense']) {
    const q = await query(s, 'load', `${w}&${bad}`);
    t.equal(q.status, 400, bad);
    t.ok(q.body.errors.params, 'params envelope');
  }
});

t.test('series are ordered by tag pairs; group_by combines streams having the group tags', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  await fixture(s, base);
  const w = `resolution=60&start_time=${base}&end_time=${base}`;
  const g = async (params: string) => (await query(s, 'load', `${w}&${params}`)).body;
  t.same((await g('group_by=region&group_by_function=sum')).series, [
    { tags: { region: 'east' }, measurements: [{ time: base, value: 3 }] },
    { tags: { region: 'west' }, measurements: [{ time: base, value: 4 }] },
  ]);
  t.same((await g('group_by=region&group_by_function=mean')).series[0].measurements[0].value, 1.5);
  t.same((await g('group_by=region&group_by_function=min')).series[0].measurements[0].value, 1);
  t.same((await g('group_by=region&group_by_function=max')).series[0].measurements[0].value, 2);
  t.same((await g('group_by=*&group_by_function=sum')).series, [{ tags: {}, measurements: [{ time: base, value: 31 }] }]);
  t.same((await g('group_by=host,region&group_by_function=sum')).series.map((x: Series) => x.tags), [
    { host: 'a1', region: 'east' }, { host: 'a2', region: 'east' }, { host: 'b1', region: 'west' },
  ]);
  const missing = await query(s, 'load', `${w}&group_by=region`);
  t.equal(missing.status, 400);
  t.ok(missing.body.errors.params.group_by_function);
  const all = await query(s, 'load', `${w}&group_by=region&group_by_function=sum&summary_function=all`);
  t.equal(all.status, 400);
  t.equal((await query(s, 'load', `${w}&group_by=region&group_by_function=median`)).status, 400);
});

t.test('every summary function on known data; times floored to the resolution', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  // one series: 2, 4, 6 in the first 5 minutes, 10 in the second, 7 in the third
  await post(s, { tags: { host: 'h' }, measurements: [
    { name: 'sf', value: 2, time: base + 10 }, { name: 'sf', value: 4, time: base + 70 }, { name: 'sf', value: 6, time: base + 130 },
    { name: 'sf', value: 10, time: base + 310 }, { name: 'sf', value: 7, time: base + 620 },
  ] });
  const f = async (fn: string) => {
    const q = await query(s, 'sf', `resolution=300&start_time=${base}&end_time=${base + 899}&summary_function=${fn}`);
    t.equal(q.status, 200, q.text);
    return q.body.series[0].measurements;
  };
  const times = [base, base + 300, base + 600];
  const vals = (xs: number[]) => xs.map((v, i) => ({ time: times[i], value: v }));
  t.same(await f('mean'), vals([4, 10, 7]));
  t.same(await f('sum'), vals([12, 10, 7]));
  t.same(await f('min'), vals([2, 10, 7]));
  t.same(await f('max'), vals([6, 10, 7]));
  t.same(await f('count'), vals([3, 1, 1]));
  const sd = await f('stddev');
  t.equal(sd.length, 3);
  t.ok(Math.abs(sd[0].value - Math.sqrt(8 / 3)) < 1e-9, 'population stddev of 2, 4, 6');
  t.same(sd.slice(1).map((m: { value: number }) => m.value), [0, 0]);
  t.same(await f('derivative'), [{ time: base + 300, value: 4 }, { time: base + 600, value: -3 }], 'last of a bucket minus last of the one before');
  const all = (await f('all'))[0];
  t.ok(Math.abs(all.stddev - Math.sqrt(8 / 3)) < 1e-9);
  t.same({ ...all, stddev: 0 }, { time: base, value: 4, count: 3, sum: 12, min: 2, max: 6, last: 6, stddev: 0 });
  t.equal((await query(s, 'sf', `resolution=300&start_time=${base}&end_time=${base + 899}&summary_function=median`)).status, 400);
  // no summary_function: the metric's summarize_function, default mean
  t.same((await query(s, 'sf', `resolution=300&start_time=${base}&end_time=${base + 299}`)).body.series[0].measurements, vals([4]));
  await s.request('PUT', '/v1/metrics/sf', { json: { attributes: { summarize_function: 'sum' } } });
  t.same((await query(s, 'sf', `resolution=300&start_time=${base}&end_time=${base + 299}`)).body.series[0].measurements, vals([12]));
});

t.test('time window rules, tier choice and the unavailable-resolution error', async (t) => {
  const s = await startTestServer(t);
  const now = Math.floor(Date.now() / 1000);
  const base = hourBase();
  await post(s, { measurements: [{ name: 'w', value: 1, time: base }, { name: 'w', value: 3, time: base + 1800 }] });
  const ok = async (params: string) => {
    const q = await query(s, 'w', params);
    t.equal(q.status, 200, `${params}: ${q.text.slice(0, 200)}`);
    return q.body;
  };
  const bad = async (params: string, field?: string) => {
    const q = await query(s, 'w', params);
    t.equal(q.status, 400, params);
    if (field) t.ok(q.body.errors.params?.[field], `${params}: ${field} named`);
    return q.body;
  };
  t.same((await ok(`resolution=3600&start_time=${base}&end_time=${base + 3599}`)).series[0].measurements, [{ time: base, value: 2 }]);
  t.same((await ok(`resolution=3600&duration=${now - base + 10}`)).series[0].measurements, [{ time: base, value: 2 }], 'duration back from now');
  t.same((await ok(`resolution=60&start_time=${base}&duration=60`)).series[0].measurements, [{ time: base, value: 1 }]);
  t.same((await ok(`resolution=90&start_time=${base}&end_time=${base + 3599}`)).series[0].measurements.map((m: { time: number }) => m.time), [base - (base % 90), base + 1800 - ((base + 1800) % 90)], 'raw tier serves any resolution');
  t.equal((await ok(`resolution=604800&start_time=${base}`)).resolution, 604800);
  await bad(`start_time=${base}`, 'resolution');
  await bad(`resolution=604801&start_time=${base}`, 'resolution');
  await bad(`resolution=0&start_time=${base}`, 'resolution');
  await bad(`resolution=abc&start_time=${base}`, 'resolution');
  await bad('resolution=60', 'start_time');
  await bad(`resolution=60&start_time=${base}&end_time=${base + 60}&duration=60`, 'duration');
  await bad(`resolution=60&start_time=${base + 60}&end_time=${base}`, 'start_time');
  // 30 s is only in the raw tier (2 days); 3 days back it is gone
  const unavailable = await bad(`resolution=30&start_time=${now - 3 * 86400}`);
  t.same(unavailable, { errors: { request: ['The requested data resolution is unavailable for the given time range. Please try a different resolution.'] } });
  await ok(`resolution=60&start_time=${now - 3 * 86400}`);
  await bad(`resolution=60&start_time=${now - 9 * 86400}`);
  await ok(`resolution=900&start_time=${now - 9 * 86400}`);
  t.equal((await query(s, 'nope', `resolution=60&start_time=${base}`)).status, 404);

  // no point lies past an hour ahead of the clock: an end_time years ahead reads up to
  // there (not 30 million empty one-second buckets, which would be a 400)
  const far = await ok(`resolution=1&start_time=${base}&end_time=${base + 30_000_000}&group_by=*&group_by_function=sum`);
  t.same(far.series[0].measurements, [{ time: base, value: 1 }, { time: base + 1800, value: 3 }]);
  const farPlain = await query(s, 'w', `resolution=1&start_time=${base}&end_time=${base + 30_000_000}`);
  t.equal(farPlain.status, 200);
  const future = await ok(`resolution=60&start_time=${now + 1e9}&end_time=${now + 2e9}`);
  t.same(future.series, [], 'a window wholly in the future is empty, not an error');
});

t.test('series pages: links rel next with an opaque cursor', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  await post(s, { time: base, measurements: Array.from({ length: 205 }, (_, i) => ({ name: 'many', value: i, tags: { n: String(i).padStart(3, '0') } })) });
  const seen: string[] = [];
  let path: string | null = `/v1/measurements/many?resolution=60&duration=${Math.floor(Date.now() / 1000) - base + 5}`;
  let pages = 0;
  while (path) {
    const q = await s.get(path);
    t.equal(q.status, 200, q.text.slice(0, 200));
    pages++;
    seen.push(...q.body.series.map((x: Series) => x.tags.n));
    const next = q.body.links.find((l: { rel: string }) => l.rel === 'next');
    path = next ? next.href : null;
    if (pages > 5) break;
  }
  t.equal(pages, 3);
  t.same(seen, Array.from({ length: 205 }, (_, i) => String(i).padStart(3, '0')), 'every series once, in tag order');
  t.equal((await s.get('/v1/measurements/many?resolution=60&duration=60&cursor=garbage')).status, 400);
});

// The bucket holding end_time comes back whole, as the first one does: a stored roll-up
// cannot be cut at end_time, so the head must not cut it either, or one query would
// answer differently before and after its points are checkpointed (review, session 19).
t.test('buckets are whole at both ends: the same answer from the head, from disk, and from a composite', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-edge-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  let s = await startTestServer(t, '', { dataDir: dir, keepData: true });
  const base = hourBase();
  const r = await post(s, { tags: { h: 'x' }, measurements: [
    { name: 'edge', value: 10, time: base + 10 }, { name: 'edge', value: 50, time: base + 50 }, { name: 'edge', value: 99, time: base + 3000 },
  ] });
  t.equal(r.status, 200);
  const answers = async () => {
    const out: Record<string, unknown> = {};
    for (const res of [60, 3600]) {
      const q = await query(s, 'edge', `resolution=${res}&start_time=${base}&end_time=${base + 30}&summary_function=all`);
      out[`tagged ${res}`] = q.body.series[0].measurements.map((m: { count: number; sum: number; last: number }) => [m.count, m.sum, m.last]);
    }
    const c = await s.get(`/v1/measurements?compose=${encodeURIComponent('s("edge","*",{function:"sum"})')}&resolution=60&start_time=${base}&end_time=${base + 30}`);
    out.composite = c.body[0].measurements.map((m: { value: number }) => m.value);
    const l = await s.get(`/v1/metrics/edge?resolution=60&start_time=${base}&end_time=${base + 30}`);
    out.sourced = l.body.measurements.unassigned.map((m: { count: number; value: number }) => [m.count, m.value]);
    return out;
  };
  const want = { 'tagged 60': [[2, 60, 50]], 'tagged 3600': [[3, 159, 99]], composite: [60], sourced: [[2, 30]] };
  t.same(await answers(), want, 'from the head');
  await s.stop();
  s = await startTestServer(t, '', { dataDir: dir, keepData: true });
  t.same(await answers(), want, 'from the parts a shutdown wrote');
});
