import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { poll } from '../helpers/poll.js';

t.test('below the free-disk floor writes get 507 and reads keep working', async (t) => {
  const s = await startTestServer(t);
  t.equal((await s.request('PUT', '/v1/metrics/before.full', { json: {} })).status, 201);
  s.server.rt.disk.setFloor(Number.MAX_SAFE_INTEGER);
  await s.server.rt.disk.check();
  const refused = await s.request('PUT', '/v1/metrics/after.full', { json: {} });
  t.equal(refused.status, 507);
  t.match(refused.body, { errors: { system: [/free disk space/] } });
  t.equal((await s.get('/v1/metrics/before.full')).status, 200);
  t.equal((await s.get('/v1/metrics/after.full')).status, 404);
  const notReady = await s.get('/ready', { auth: null });
  t.equal(notReady.status, 503, 'not ready while writes are refused: a balancer sends writers elsewhere');
  t.match(notReady.body, { errors: { system: [/free disk space/] } });
  s.server.rt.disk.setFloor(0);
  await s.server.rt.disk.check();
  t.equal((await s.request('PUT', '/v1/metrics/after.full', { json: {} })).status, 201);
  t.equal((await s.get('/ready', { auth: null })).status, 200, 'and ready again once they are accepted');
});

t.test('after a failed LevelDB write, writes get 503 until the store is reopened, without a restart', async (t) => {
  const s = await startTestServer(t);
  const rt = s.server.rt;
  // Make the next batch fail the way a broken disk would.
  const original = rt.store.db.batch.bind(rt.store.db);
  (rt.store.db as unknown as { batch: unknown }).batch = async () => { throw new Error('IO error: simulated'); };
  const failed = await s.request('PUT', '/v1/metrics/io.error', { json: {} });
  t.equal(failed.status, 503);
  t.match(failed.body, { errors: { system: [/nothing in this request was stored/] } });
  (rt.store.db as unknown as { batch: unknown }).batch = original;
  // the store is reopened in the background, the engine rebuilt from what is stored, and
  // writes are accepted again without a restart
  const after = await poll(async () => {
    const r = await s.request('PUT', '/v1/metrics/io.later', { json: {} });
    t.ok(r.status === 201 || r.status === 503, `refused while recovering, then created (${r.status})`);
    return r.status === 201 ? r : undefined;
  });
  t.equal(after.status, 201);
  t.equal((await s.get('/v1/metrics/io.error')).status, 404, 'the failed request left nothing');
  t.equal((await s.get('/ready', { auth: null })).status, 200);
  t.equal((await s.get('/v1/metrics')).status, 200, 'reads work');
});
