import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { hourBase, post, query } from '../helpers/measurements.js';
import { poll } from '../helpers/poll.js';

t.test('deleting a metric removes its series, points and rollups; a new measurement starts afresh', async (t) => {
  const s = await startTestServer(t, 'storage:\n  checkpoint:\n    interval_seconds: 3600', { keepData: true });
  const base = hourBase() - 86400; // a day ago: windows that are sealed into chunks at once
  const w = `resolution=60&start_time=${base}&end_time=${base + 86400 * 2}`;
  // points across several windows, so chunks of every tier exist besides the head
  const measurements = Array.from({ length: 60 }, (_, i) => ({ name: 'gone', value: i, time: base + i * 1200, tags: { host: `h${i % 3}` } }));
  t.equal((await post(s, { measurements })).status, 200);
  await post(s, { measurements: [{ name: 'kept', value: 1, time: base, tags: { host: 'h0' } }] });
  await s.server.rt.engine.checkpoint();
  const pts = s.server.rt.engine.chunks;
  const countKeys = async () => (await pts.keys().all()).length;
  const before = await countKeys();
  t.ok(before > 4, `chunks were written (${before})`);
  t.equal((await query(s, 'gone', w)).body.series.length, 3);

  t.equal((await s.request('DELETE', '/v1/metrics/gone')).status, 204);
  t.equal((await query(s, 'gone', w)).status, 404);
  const after = await countKeys();
  t.ok(after < before && after <= 4, `only the other metric's chunks remain (${after})`);
  t.equal((await query(s, 'kept', w)).body.series.length, 1, 'other metrics are untouched');

  t.equal((await post(s, { measurements: [{ name: 'gone', value: 99, time: base + 600, tags: { host: 'new' } }] })).status, 200);
  const fresh = await query(s, 'gone', w);
  t.same(fresh.body.series, [{ tags: { host: 'new' }, measurements: [{ time: base + 600, value: 99 }] }]);

  // and the deletion survives a restart (WAL replay must not bring the old points back)
  const dataDir = s.dataDir;
  await s.server.close();
  const again = await startTestServer(t, '', { dataDir });
  const reread = await query(again, 'gone', w);
  t.same(reread.body.series, [{ tags: { host: 'new' }, measurements: [{ time: base + 600, value: 99 }] }]);
});

t.test('a measurement posted while its metric is being deleted waits for the delete and starts the metric afresh', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  const w = `resolution=60&start_time=${base - 3600}&end_time=${base + 3600}`;
  t.equal((await post(s, { measurements: [{ name: 'racing', value: 1, time: base - 600, tags: { host: 'old' } }] })).status, 200);
  // the purge held open until the second post has been sent
  let open = () => {};
  const gate = new Promise<void>((resolve) => { open = resolve; });
  let purging = false;
  s.server.rt.catalog.purgeHooks.push(async () => { purging = true; await gate; return { ops: [], release: () => {} }; });
  const deleting = s.request('DELETE', '/v1/metrics/racing');
  await poll(async () => (purging ? true : undefined));
  const posting = post(s, { measurements: [{ name: 'racing', value: 2, time: base, tags: { host: 'new' } }] });
  open();
  t.equal((await deleting).status, 204);
  t.equal((await posting).status, 200);
  const read = await query(s, 'racing', w);
  t.equal(read.status, 200, 'the acknowledged measurement\'s metric exists');
  t.same(read.body.series, [{ tags: { host: 'new' }, measurements: [{ time: base, value: 2 }] }], 'holding that measurement only');
});
