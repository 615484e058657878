// The front door's connection rules, on plain http servers behind it.
import t from 'tap';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { createFrontDoor } from '../../src/http/front-door.js';
import { poll } from '../helpers/poll.js';

const connections = (server: net.Server) => new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

t.test('a connection whose client stops reading a large answer is closed; one that reads it is kept alive', async (t) => {
  const big = Buffer.alloc(32 * 1024 * 1024, 'x');
  const plain = http.createServer((req, res) => res.end(req.url === '/big' ? big : 'ok'));
  const front = createFrontDoor(https.createServer(), plain, { maxConnections: 10, stalledWriteMs: 300 });
  const { port } = await front.listen(0, '127.0.0.1');
  t.teardown(() => front.drain(0));
  const stalled = net.connect(port, '127.0.0.1');
  stalled.on('error', () => {});
  t.teardown(() => stalled.destroy());
  await new Promise<void>((resolve) => stalled.once('connect', () => resolve()));
  stalled.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\n');
  stalled.pause(); // never reads
  await poll(async () => ((await connections(front.server)) === 1 ? true : undefined));
  await poll(async () => ((await connections(front.server)) === 0 ? true : undefined));
  t.pass('the stalled connection was closed');

  // a client that reads its answer keeps its connection for the next request
  const agent = new http.Agent({ keepAlive: true });
  t.teardown(() => agent.destroy());
  const get = (path: string) => new Promise<number>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, agent }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode!)); }).on('error', reject);
  });
  t.equal(await get('/big'), 200);
  await new Promise((resolve) => setTimeout(resolve, 600)); // past stalledWriteMs, within the keep-alive timeout (5 s)
  t.equal(await connections(front.server), 1, 'the connection that read its answer is still open');
  t.equal(await get('/small'), 200, 'and serves the next request');
});
