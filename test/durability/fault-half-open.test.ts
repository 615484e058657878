// A client that never reads cannot keep a connection for good. After a refused request
// (here the 408 of headers that never finish) the server ends its side and waited for
// the client's end; a client that never reads never sends it, so each such connection
// stayed open and counted against http.max_connections until the service let nobody in.
import t from 'tap';
import tls from 'node:tls';
import https from 'node:https';
import { startTestServer } from '../helpers/server.js';
import { poll } from '../helpers/poll.js';

t.test('connections of clients that never read are closed after their 408: max_connections frees up', async (t) => {
  const s = await startTestServer(t, 'http:\n  listen: "127.0.0.1:0"\n  headers_timeout_ms: 1000\n  request_timeout_ms: 1000\n  max_connections: 3\n');
  const stalled: tls.TLSSocket[] = [];
  t.teardown(() => { for (const c of stalled) c.destroy(); });
  for (let i = 0; i < 3; i++) {
    const socket = tls.connect({ port: s.port, host: '127.0.0.1', servername: 'localhost', ca: s.server.tls.ca });
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
    // an unfinished request, then never a read: the 408 and the server's end stay unread
    socket.write('GET /health HTTP/1.1\r\nHost: localhost\r\n');
    socket.pause();
    stalled.push(socket);
  }
  const agent = new https.Agent({ ca: s.server.tls.ca, keepAlive: false });
  const health = () => new Promise<number | undefined>((resolve) => {
    const req = https.get({ host: '127.0.0.1', port: s.port, path: '/health', servername: 'localhost', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(undefined));
  });
  // at most 30 s: headers timeout 1 s, checked every 2 s, then the grace after the 408
  const status = await poll(health, 300, 100);
  t.equal(status, 200, 'a new client is served once the stalled connections are gone');
  t.ok(stalled.every((c) => !c.destroyed), 'while the stalled clients themselves never closed anything');
});
