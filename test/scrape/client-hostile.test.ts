// The scrape client against targets that break HTTP on purpose or by accident, on raw
// sockets on loopback: every scrape ends with an error that says what happened, or the
// body, and leaves no socket behind.
import t from 'tap';
import net from 'node:net';
import { fetchExposition, targetConnection } from '../../src/scrape/fetch.js';

type Tap = typeof t;
const job = { basicAuth: null, authorization: null, tls: null, bodySizeLimit: 0 };

/** A raw server calling `answer` with each request's socket; its port. */
async function serve(t: Tap, answer: (socket: net.Socket) => void): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (data) => {
      head += data.toString('latin1');
      if (head.includes('\r\n\r\n')) { head = ''; answer(socket); }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => {
    for (const socket of sockets) socket.destroy();
    server.close(() => resolve());
  }));
  return (server.address() as net.AddressInfo).port;
}

t.test('a target that closes early: the error says how far its answer got', async (t) => {
  const cases: [string, (socket: net.Socket) => void, string][] = [
    ['no answer', (s) => s.end(), 'the server closed the connection without answering'],
    ['half a head', (s) => s.end('HTTP/1.1 200 OK\r\nContent-Le'), 'the connection closed before the response headers ended'],
    ['a 100 Continue only', (s) => s.end('HTTP/1.1 100 Continue\r\n\r\n'), 'the connection closed before the response headers ended'],
    ['headers only', (s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n'), 'the connection closed before the body ended'],
    ['a short body', (s) => s.end('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 50\r\n\r\nup 1\n'), 'the connection closed before the body ended'],
    ['no last chunk', (s) => s.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nup 1\n\r\n'), 'the connection closed before the body ended'],
  ];
  for (const [name, answer, message] of cases) {
    const port = await serve(t, answer);
    await t.rejects(fetchExposition(`http://127.0.0.1:${port}/metrics`, job, 5000), { name: 'ScrapeError', message }, name);
  }
});

t.test('TLS to a target serving plain HTTP: the reason, without OpenSSL\'s codes and source files', async (t) => {
  // a plain HTTP server answers the ClientHello with a 400, which is no TLS record
  const server = net.createServer((s) => { s.on('error', () => {}); s.once('data', () => s.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const plain = (server.address() as net.AddressInfo).port;
  await t.rejects(fetchExposition(`https://127.0.0.1:${plain}/metrics`, job, 5000), { name: 'ScrapeError', message: 'TLS: wrong version number' });
});
