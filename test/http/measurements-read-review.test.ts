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
