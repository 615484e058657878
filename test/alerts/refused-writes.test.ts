// A state is taken over only once written: an alert that fires while writes are refused
// (the free-disk floor) notifies when they are accepted again, instead of standing
// "triggered" with a notification that was never queued (review, session 19).
import t from 'tap';
import { setup } from '../helpers/alert-setup.js';

t.test('a trigger decided while writes are refused is decided again once they are accepted', async (t) => {
  const x = await setup(t);
  const id = await x.alert({ name: 'floor', conditions: [{ type: 'above', metric_name: 'floor', threshold: 10 }] });
  await x.post('floor', [[x.t0 + 60, 50]]);
  const disk = x.s.server.rt.disk;
  disk.setFloor(Number.MAX_SAFE_INTEGER);
  await disk.check();
  await t.rejects(x.evaluate(x.t0 + 65), 'the round could not store its decision');
  t.equal((await x.s.get(`/v1/alerts/${id}/status`)).body.status, 'ok', 'not triggered: nothing was stored');
  t.equal(x.hook.received.length, 0);
  disk.setFloor(0);
  await disk.check();
  await x.evaluate(x.t0 + 70);
  t.equal((await x.s.get(`/v1/alerts/${id}/status`)).body.status, 'triggered');
  t.equal(x.payloads().length, 1, 'and its notification sent');

  // a manual clear refused the same way leaves the alert firing
  disk.setFloor(Number.MAX_SAFE_INTEGER);
  await disk.check();
  t.equal((await x.s.request('POST', `/v1/alerts/${id}/clear`)).status, 507);
  t.equal((await x.s.get(`/v1/alerts/${id}/status`)).body.status, 'triggered', 'a refused clear changes nothing');
  disk.setFloor(0);
  await disk.check();
});
