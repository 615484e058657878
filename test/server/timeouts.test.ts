// Slow clients cannot hold connections: a client that never finishes its headers is
// answered 408 and disconnected, on plain HTTP and inside TLS.
import t from 'tap';
import net from 'node:net';
import tls from 'node:tls';
import { startTestServer } from '../helpers/server.js';

/** Sends raw bytes and resolves with everything the server said before closing. */
function exchange(socket: net.Socket | tls.TLSSocket, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
    socket.write(request);
  });
}

/** Sends an unfinished request and resolves with what the server said before closing. */
const stall = (socket: net.Socket | tls.TLSSocket) => exchange(socket, 'GET /health HTTP/1.1\r\nHost: localhost\r\n');

t.test('unfinished headers are cut off at headers_timeout_ms', async (t) => {
  const s = await startTestServer(t, 'http:\n  listen: "127.0.0.1:0"\n  headers_timeout_ms: 1000\n  request_timeout_ms: 1000\n');
  const plain = await stall(net.connect(s.port, '127.0.0.1'));
  t.match(plain, /^HTTP\/1\.1 408 /, 'plain HTTP');
  const secure = await stall(tls.connect({ port: s.port, host: '127.0.0.1', servername: 'localhost', ca: s.server.tls.ca }));
  t.match(secure, /^HTTP\/1\.1 408 /, 'HTTPS');
  t.equal((await s.get('/health', { auth: null })).status, 200, 'other clients are served meanwhile');
});

t.test('what the HTTP parser refuses is answered with the errors envelope', async (t) => {
  const s = await startTestServer(t, 'http:\n  listen: "127.0.0.1:0"\n  headers_timeout_ms: 1000\n  request_timeout_ms: 1000\n');
  const connect = () => tls.connect({ port: s.port, host: '127.0.0.1', servername: 'localhost', ca: s.server.tls.ca });
  const body = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

  const big = await exchange(connect(), `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'x'.repeat(20 * 1024)}\r\n\r\n`);
  t.match(big, /^HTTP\/1\.1 431 /);
  t.same(body(big), { errors: { request: ['The request headers are larger than 16 KB'] } });

  const length = await exchange(connect(), 'POST /v1/measurements HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n');
  t.match(length, /^HTTP\/1\.1 400 /);
  t.match(body(length), { errors: { request: [/not valid HTTP\/1\.1/] } });

  const slow = await stall(connect());
  t.match(slow, /^HTTP\/1\.1 408 /);
  t.same(body(slow), { errors: { request: ['The request headers or body did not arrive in time'] } });

  const hostless = await exchange(connect(), 'GET /v1/spaces HTTP/1.1\r\nConnection: close\r\n\r\n');
  t.match(hostless, /^HTTP\/1\.1 400 /, 'HTTP/1.1 without Host');
  t.same(body(hostless), { errors: { request: ['The Host header is required (HTTP/1.1)'] } });
  const old = await exchange(connect(), 'GET /health HTTP/1.0\r\n\r\n');
  t.match(old, /^HTTP\/1\.1 200 /, 'HTTP/1.0 needs none');

  const plain = await exchange(net.connect(s.port, '127.0.0.1'), 'GET /health HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n');
  t.match(plain, /^HTTP\/1\.1 400 [^]*"errors"/, 'plain HTTP too');
  t.equal((await s.get('/health', { auth: null })).status, 200, 'the server goes on');
});
