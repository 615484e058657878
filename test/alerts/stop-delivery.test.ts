// A stop cuts a delivery in progress short through the alert engine's dispatch too: the
// request to a receiver that never answers is closed by the stop, not left running until
// notifications.timeout_ms (which kept the process alive after its shutdown).
import t from 'tap';
import http from 'node:http';
import { setup } from '../helpers/alert-setup.js';
import { poll } from '../helpers/poll.js';

t.test('stopping the server closes a hanging delivery at once', async (t) => {
  const requests: { closed: boolean }[] = [];
  const server = http.createServer((req, res) => {
    const seen = { closed: false };
    requests.push(seen);
    req.resume();
    res.on('close', () => { seen.closed = true; });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  const x = await setup(t);
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hang`;
  const sid = (await x.s.request('POST', '/v1/services', { json: { title: 'hang', type: 'webhook', settings: { url } } })).body.id;
  await x.alert({ name: 'hang', services: [sid], conditions: [{ type: 'above', metric_name: 'hang', threshold: 10 }] });
  await x.post('hang', [[x.t0 + 10, 50]]);
  await x.s.server.rt.alertEngine.evaluateAll(x.t0 + 11);
  await poll(async () => (requests.length > 0 ? true : undefined));
  await x.s.stop();
  // the delivery timeout is 10 s: the request is closed long before it, by the stop
  await poll(async () => (requests[0]!.closed ? true : undefined), 50, 100);
  t.ok(requests[0]!.closed, 'the hanging request was closed');
});
