// Reads of tagged series checked against answers worked out by hand (review, session 21).
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { hourBase, post, query } from '../helpers/measurements.js';

type Series = { tags: Record<string, string>; measurements: { time: number; value: number }[] };

// The spec orders series "by their tag pairs": pair by pair, name then value, a tag set
// that is a prefix of another first. Comparing `name=value` text instead put `host2=q`
// and `host.name=z` before `host=a` ('2' and '.' sort before '=').
t.test('series are ordered pair by pair, on every page', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  const tagSets = [
    { host2: 'q' }, { 'host.name': 'z' }, { host: 'a-b' }, { host: 'a b' }, { zone: 'x', host: 'a' }, { host: 'a' }, { env: 'p' }, { 'host-x': 'r' },
  ];
  const r = await post(s, { time: base, measurements: tagSets.map((tags, i) => ({ name: 'ord', value: i, tags })) });
  t.equal(r.status, 200, r.text);
  const want = [
    { env: 'p' }, { host: 'a' }, { host: 'a', zone: 'x' }, { host: 'a b' }, { host: 'a-b' }, { 'host-x': 'r' }, { 'host.name': 'z' }, { host2: 'q' },
  ];
  const q = await query(s, 'ord', `resolution=60&start_time=${base}&end_time=${base}`);
  t.equal(q.status, 200, q.text);
  t.same(q.body.series.map((x: Series) => x.tags), want);

  // the same order across pages: 3 + 8 more series, read 100 to a page, cursor included
  const more = Array.from({ length: 100 }, (_, i) => ({ name: 'ord', value: 0, tags: { host: `a${String(i).padStart(3, '0')}` } }));
  t.equal((await post(s, { time: base, measurements: more })).status, 200);
  const seen: Record<string, string>[] = [];
  let path: string | null = `/v1/measurements/ord?resolution=60&start_time=${base}&end_time=${base}`;
  for (let pages = 0; path && pages < 5; pages++) {
    const page = await s.get(path);
    t.equal(page.status, 200, page.text.slice(0, 200));
    seen.push(...page.body.series.map((x: Series) => x.tags));
    path = page.body.links.find((l: { rel: string }) => l.rel === 'next')?.href ?? null;
  }
  const byPairs = (a: Record<string, string>, b: Record<string, string>) => {
    const pa = Object.entries(a).sort();
    const pb = Object.entries(b).sort();
    for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
      for (const k of [0, 1]) if (pa[i]![k] !== pb[i]![k]) return pa[i]![k]! < pb[i]![k]! ? -1 : 1;
    }
    return pa.length - pb.length;
  };
  t.equal(seen.length, 108, 'every series once');
  t.same(seen, [...seen].sort(byPairs), 'pages follow one another in pair order');

  const grouped = await query(s, 'ord', `resolution=60&start_time=${base}&end_time=${base}&group_by=host&group_by_function=sum&tags_search=${encodeURIComponent('host=a or host=a-b or host="a b"')}`);
  t.same(grouped.body.series.map((x: Series) => x.tags.host), ['a', 'a b', 'a-b']);
});

// `duration` is a length of time: the window it makes holds `duration` seconds, end_time
// included. It held one more, so an hour from start_time at resolution=3600 answered two
// hours, and 60 s at resolution=1 answered 61 points.
t.test('a duration makes a window of that many seconds, from start_time or back from end_time', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  const points: [number, number][] = [[base - 1, 100], [base, 1], [base + 59, 2], [base + 60, 4], [base + 3599, 8], [base + 3600, 16]];
  const r = await post(s, { tags: { h: 'x' }, measurements: points.map(([time, value]) => ({ name: 'dur', time, value })) });
  t.equal(r.status, 200, r.text);
  const read = async (params: string) => {
    const q = await query(s, 'dur', `${params}&summary_function=sum`);
    t.equal(q.status, 200, `${params}: ${q.text.slice(0, 200)}`);
    return (q.body.series[0]?.measurements ?? []).map((m: { time: number; value: number }) => [m.time - base, m.value]);
  };
  t.same(await read(`resolution=1&start_time=${base}&duration=60`), [[0, 1], [59, 2]], '60 s from start_time: base .. base+59');
  t.same(await read(`resolution=60&start_time=${base}&duration=60`), [[0, 3]], 'one minute at 60 s: one bucket');
  t.same(await read(`resolution=3600&start_time=${base}&duration=3600`), [[0, 15]], 'one hour at 3600 s: one bucket');
  t.same(await read(`resolution=1&end_time=${base + 60}&duration=60`), [[59, 2], [60, 4]], '60 s back from end_time: base+1 .. base+60');
  t.same(await read(`resolution=60&end_time=${base + 119}&duration=120`), [[0, 3], [60, 4]], 'two minutes back: two buckets, not the one before');
  t.same(await read(`resolution=1&start_time=${base}&duration=1`), [[0, 1]], 'one second');
  t.same(await read(`resolution=1&start_time=${base}&end_time=${base + 60}`), [[0, 1], [59, 2], [60, 4]], 'an explicit end_time stays inclusive');

  // a next link pins the same window
  const many = Array.from({ length: 101 }, (_, i) => ({ name: 'durp', value: 1, time: base + (i % 2) * 60, tags: { n: String(i).padStart(3, '0') } }));
  t.equal((await post(s, { measurements: many })).status, 200);
  const first = await query(s, 'durp', `resolution=60&start_time=${base}&duration=60`);
  const next = first.body.links.find((l: { rel: string }) => l.rel === 'next');
  t.match(next.href, `start_time=${base}&end_time=${base + 59}`);
  const second = await s.get(next.href);
  t.same(second.body.series, [{ tags: { n: '100' }, measurements: [{ time: base, value: 1 }] }]);
});

// A JSON `tags` value that is no pattern (null, an object) was read as its text: null
// filtered for the value "null" and answered no series, as if none matched.
t.test('a JSON tags value must be a pattern, a number or a list of them', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  t.equal((await post(s, { time: base, measurements: [{ name: 'tj', value: 1, tags: { host: 'null', port: '8080', up: 'true' } }] })).status, 200);
  const read = (tags: unknown) => query(s, 'tj', `resolution=60&start_time=${base}&end_time=${base}&tags=${encodeURIComponent(JSON.stringify(tags))}`);
  for (const tags of [{ host: null }, { host: [null] }, { host: { a: 1 } }, { host: ['a', ['b']] }]) {
    const q = await read(tags);
    t.equal(q.status, 400, JSON.stringify(tags));
    t.match(q.body, { errors: { params: { tags: [/host/] } } }, JSON.stringify(tags));
  }
  for (const tags of [{ port: 8080 }, { port: [8080, 'x'] }, { up: true }, { host: 'null' }]) {
    const q = await read(tags);
    t.equal(q.status, 200, JSON.stringify(tags));
    t.equal(q.body.series.length, 1, `${JSON.stringify(tags)}: as the text it is stored as`);
  }
});

t.test('an empty tag list is refused; a future start_time without end_time says why', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  t.equal((await post(s, { time: base, measurements: [{ name: 'te', value: 1, tags: { host: 'a' } }] })).status, 200);
  for (const tags of ['{"host":[]}', '{host: []}', '{"host":["a"],"zone":[]}']) {
    const q = await query(s, 'te', `resolution=60&start_time=${base}&end_time=${base}&tags=${encodeURIComponent(tags)}`);
    t.equal(q.status, 400, tags);
    t.match(q.body, { errors: { params: { tags: [/has an empty list/] } } }, tags);
  }
  const future = Math.floor(Date.now() / 1000) + 7200;
  const tagged = await query(s, 'te', `resolution=60&start_time=${future}`);
  t.equal(tagged.status, 400);
  t.same(tagged.body.errors.params, { start_time: ['is in the future (end_time, not given, is now)'] });
  const both = await query(s, 'te', `resolution=60&start_time=${future}&end_time=${future - 60}`);
  t.same(both.body.errors.params, { start_time: ['must not be after end_time'] }, 'an end_time given: as before');
  const sourced = await s.get(`/v1/metrics/te?start_time=${future}&resolution=60`);
  t.equal(sourced.status, 400);
  t.match(sourced.body, { errors: { params: { start_time: ['is in the future (end_time, not given, is now)'] } } });
});
