// Chart ids stay unique across a restart when two accounts create charts at once.
// A chart's id is reserved before the checks that await (its space's size among them);
// another account's charts created meanwhile take later ids and are written first. The
// stored counter must still end at the highest id handed out, or after a restart those
// ids are handed out again and a new chart silently replaces an existing one.
import t from 'tap';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Auth = { user: string; password: string };

async function space(s: TestServer, name: string, auth?: Auth): Promise<number> {
  const r = await s.request('POST', '/v1/spaces', { json: { name }, ...(auth ? { auth } : {}) });
  if (r.status !== 201) throw new Error(`space ${name}: ${r.status} ${r.text}`);
  return r.body.id as number;
}

async function chart(s: TestServer, spaceId: number, name: string, auth?: Auth): Promise<number> {
  const r = await s.request('POST', `/v1/spaces/${spaceId}/charts`, { json: { name }, ...(auth ? { auth } : {}) });
  if (r.status !== 201) throw new Error(`chart ${name}: ${r.status} ${r.text}`);
  return r.body.id as number;
}

/** About 1.3 MB of stored chart: every create in its space then reads a few MB first. */
const HEAVY_CHART = {
  name: 'heavy',
  streams: Array.from({ length: 100 }, (_, i) => ({
    metric: `metric.${i}`,
    tags: Array.from({ length: 20 }, (_, j) => ({ name: `tag${j}`, values: Array.from({ length: 50 }, (_, k) => `value-${k}`) })),
  })),
};

t.test('chart ids handed out before a restart are not handed out again after it', async (t) => {
  const s = await startTestServer(t, '', { keepData: true });
  const b = await s.newAccount('b@example.com');
  const slowSpace = await space(s, 'slow');
  for (let i = 0; i < 5; i++) {
    const r = await s.request('POST', `/v1/spaces/${slowSpace}/charts`, { json: HEAVY_CHART });
    if (r.status !== 201) throw new Error(`heavy chart: ${r.status} ${r.text.slice(0, 200)}`);
  }
  const quickSpace = await space(s, 'quick', b);

  // The interleaving under test: account A's chart reserves its id, account B creates a
  // chart (a later id, written at once) while A's chart still reads its space, then A's
  // is written last. Arranged by timing, so it is checked before the outcome counts.
  const handedOut: number[] = [];
  const bCharts = new Map<number, string>();
  let arranged = false;
  for (let attempt = 0; attempt < 10 && !arranged; attempt++) {
    let aDone = false;
    const a = s.request('POST', `/v1/spaces/${slowSpace}/charts`, { json: { name: `a${attempt}` } }).then((r) => { aDone = true; return r; });
    const name = `b${attempt}`;
    const bId = await chart(s, quickSpace, name, b);
    bCharts.set(bId, name);
    const bFinishedFirst = !aDone;
    const aReply = await a;
    if (aReply.status !== 201) throw new Error(`chart a${attempt}: ${aReply.status} ${aReply.text}`);
    const aId = aReply.body.id as number;
    handedOut.push(aId, bId);
    arranged = bFinishedFirst && bId > aId;
  }
  t.ok(arranged, 'another account\'s chart took a later id and was written while a chart was being created');

  await s.stop();
  const again = await startTestServer(t, '', { dataDir: s.dataDir });
  const next = await chart(again, quickSpace, 'after restart', b);
  t.ok(next > Math.max(...handedOut), `the first chart after the restart gets a new id (${next}, ids handed out up to ${Math.max(...handedOut)})`);
  for (const [id, name] of bCharts) {
    const got = await again.get(`/v1/spaces/${quickSpace}/charts/${id}`, { auth: b });
    t.equal(got.body?.name, name, `chart ${id} is still the one created before the restart`);
  }
  const listed = await again.get(`/v1/spaces/${quickSpace}`, { auth: b });
  t.equal(listed.body.charts.length, bCharts.size + 1, 'every chart is still there, and the new one');
});
