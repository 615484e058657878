// The scrape client's kept connection (src/scrape/connection.ts) through fetchExposition,
// against real servers on loopback: reuse, a server that closed the kept connection, answers
// framed every way, gzip, TLS, timeouts and credentials that would break the request.
import t from 'tap';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { gzipSync } from 'node:zlib';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fetchExposition, targetConnection } from '../../src/scrape/fetch.js';
import { tempDir } from '../helpers/tmp.js';

type Tap = typeof t;
const job = { basicAuth: null, authorization: null, tls: null, bodySizeLimit: 0 };

async function listen(t: Tap, server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => {
    (server as http.Server).closeAllConnections?.();
    server.close(() => resolve());
  }));
  return (server.address() as net.AddressInfo).port;
}

/** A server that counts the connections it accepted. */
function counted(server: net.Server): { connections: number } {
  const count = { connections: 0 };
  server.on('connection', () => { count.connections++; });
  return count;
}

t.test('a target\'s connection is kept across scrapes, and replaced when the target closed it', async (t) => {
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'text/plain; version=0.0.4');
    res.end(`up ${req.url}\n`);
  });
  server.keepAliveTimeout = 60_000;
  const count = counted(server);
  const port = await listen(t, server);
  const url = `http://127.0.0.1:${port}/metrics`;
  const connection = targetConnection(url, 5000);
  t.teardown(() => connection.destroy());
  for (let i = 0; i < 5; i++) t.equal((await fetchExposition(url, job, 5000, connection)).body.toString(), 'up /metrics\n');
  t.equal(count.connections, 1, 'five scrapes, one connection');
  // the target drops its idle connections (a restart, an idle timeout)
  server.closeAllConnections();
  t.equal((await fetchExposition(url, job, 5000, connection)).body.toString(), 'up /metrics\n', 'the next scrape still succeeds');
  t.equal(count.connections, 2, 'on a new connection');
});

t.test('a server that closes a kept connection without saying so: the request is sent once more', async (t) => {
  // Answers with keep-alive framing, then closes as soon as the next request arrives,
  // before a byte of its answer: what a target closing an idle connection looks like when
  // the close crosses our request.
  let requests = 0;
  const server = net.createServer((socket) => {
    let first = true;
    socket.on('data', () => {
      requests++;
      if (!first) { socket.destroy(); return; }
      first = false;
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nup 1\n');
    });
  });
  const count = counted(server);
  const port = await listen(t, server);
  const url = `http://127.0.0.1:${port}/metrics`;
  const connection = targetConnection(url, 5000);
  t.teardown(() => connection.destroy());
  t.equal((await fetchExposition(url, job, 5000, connection)).body.toString(), 'up 1\n');
  t.equal((await fetchExposition(url, job, 5000, connection)).body.toString(), 'up 1\n', 'the retry on a new connection answered');
  t.same([requests, count.connections], [3, 2]);
  // a new connection that closes before answering is the target's failure, not retried
  const silent = net.createServer((socket) => socket.on('data', () => socket.destroy()));
  const silentPort = await listen(t, silent);
  const silentCount = counted(silent);
  await t.rejects(fetchExposition(`http://127.0.0.1:${silentPort}/metrics`, job, 5000), { name: 'ScrapeError', message: 'the server closed the connection without answering' });
  t.equal(silentCount.connections, 1, 'tried once');
});

t.test('answers framed by Content-Length, chunks or the close, from HTTP/1.0 and 1.1 servers', async (t) => {
  const answers: Record<string, string> = {
    '/length': 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nup 1\n',
    '/chunked': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nup \r\n2\r\n1\n\r\n0\r\n\r\n',
    '/close': 'HTTP/1.0 200 OK\r\n\r\nup 1\n',
    '/closing': 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nup 1\n',
  };
  const server = net.createServer((socket) => {
    socket.on('data', (data) => {
      const path = data.toString('latin1').split(' ')[1];
      socket.write(answers[path]);
      if (path === '/close') socket.end();
    });
  });
  const count = counted(server);
  const port = await listen(t, server);
  for (const path of Object.keys(answers)) {
    const url = `http://127.0.0.1:${port}${path}`;
    const connection = targetConnection(url, 5000);
    t.teardown(() => connection.destroy());
    for (let i = 0; i < 2; i++) t.equal((await fetchExposition(url, job, 5000, connection)).body.toString(), 'up 1\n', `${path}, scrape ${i + 1}`);
  }
  // length and chunked keep theirs (2 scrapes, 1 connection each); close and closing take a new one each time
  t.equal(count.connections, 6);
  const truncated = net.createServer((socket) => socket.on('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nup 1\n')));
  const truncatedPort = await listen(t, truncated);
  await t.rejects(fetchExposition(`http://127.0.0.1:${truncatedPort}/`, job, 5000), { message: 'the connection closed before the body ended' });
  const garbage = net.createServer((socket) => socket.on('data', () => socket.end('SSH-2.0-OpenSSH_9.2\r\n\r\n')));
  const garbagePort = await listen(t, garbage);
  await t.rejects(fetchExposition(`http://127.0.0.1:${garbagePort}/`, job, 5000), { name: 'ScrapeError', message: 'malformed status line "SSH-2.0-OpenSSH_9.2"' });
});

t.test('the request: path and query, Host, Prometheus\'s headers, credentials', async (t) => {
  let seen: http.IncomingMessage | null = null;
  const server = http.createServer((req, res) => { seen = req; res.end('up 1\n'); });
  const port = await listen(t, server);
  await fetchExposition(`http://127.0.0.1:${port}/probe?module=http_2xx&target=a%20b`, { ...job, authorization: { type: 'Bearer', credentials: 'tok', credentialsFile: null } }, 3000);
  const req = seen as unknown as http.IncomingMessage;
  t.equal(req.url, '/probe?module=http_2xx&target=a%20b');
  t.equal(req.headers.host, `127.0.0.1:${port}`);
  t.match(req.headers.accept, /^application\/openmetrics-text;version=1.0.0,/);
  t.equal(req.headers['accept-encoding'], 'gzip');
  t.equal(req.headers['x-prometheus-scrape-timeout-seconds'], '3');
  t.equal(req.headers.authorization, 'Bearer tok');
  t.match(req.headers['user-agent'], /^Gaugeway\//);
  const dir = tempDir(t);
  const file = join(dir, 'token');
  writeFileSync(file, 'tok\r\nX-Injected: 1\n');
  const refused = 'the credentials hold a character no HTTP header can carry (a line break, another control character, or one beyond Latin-1)';
  await t.rejects(fetchExposition(`http://127.0.0.1:${port}/`, { ...job, authorization: { type: 'Bearer', credentials: null, credentialsFile: file } }, 3000),
    { message: refused }, 'a credentials file that would add a header is refused, not sent');
  const bearer = (credentials: string) => fetchExposition(`http://127.0.0.1:${port}/`, { ...job, authorization: { type: 'Bearer', credentials, credentialsFile: null } }, 3000);
  await t.rejects(bearer('tok€'), { message: refused }, 'past Latin-1: it would be sent cut to its low byte');
  await t.rejects(bearer('tok'), { message: refused }, 'a control character');
  await bearer('toké x');
  t.equal((seen as unknown as http.IncomingMessage).headers.authorization, 'Bearer toké x', 'Latin-1 and spaces are header text');
});

t.test('gzip: inflated on the way in and bounded by body_size_limit after inflating', async (t) => {
  const body = Array.from({ length: 2000 }, (_, i) => `metric_${i} ${i}\n`).join('');
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
    res.end(req.url === '/broken' ? Buffer.from('not gzip at all') : gzipSync(body));
  });
  const port = await listen(t, server);
  const got = await fetchExposition(`http://127.0.0.1:${port}/`, job, 5000);
  t.equal(got.body.toString(), body);
  t.equal(got.contentType, 'text/plain');
  await t.rejects(fetchExposition(`http://127.0.0.1:${port}/`, { ...job, bodySizeLimit: 1000 }, 5000), { message: 'body size limit exceeded (1000 bytes)' },
    'the compressed body is small; the inflated one is not');
  await t.rejects(fetchExposition(`http://127.0.0.1:${port}/broken`, job, 5000), { message: /^cannot read the body: / });
});

t.test('a target that never answers times out, and its next scrape starts afresh', async (t) => {
  let hang = true;
  const server = http.createServer((_req, res) => { if (!hang) res.end('up 1\n'); });
  const count = counted(server);
  const port = await listen(t, server);
  const url = `http://127.0.0.1:${port}/`;
  const connection = targetConnection(url, 5000);
  t.teardown(() => connection.destroy());
  await t.rejects(fetchExposition(url, job, 200, connection), { name: 'ScrapeError', message: 'timeout after 200 ms' });
  hang = false;
  t.equal((await fetchExposition(url, job, 5000, connection)).body.toString(), 'up 1\n');
  t.equal(count.connections, 2, 'the timed-out connection was not reused');
  const closed = net.createServer();
  const closedPort = await listen(t, closed);
  closed.close();
  await t.rejects(fetchExposition(`http://127.0.0.1:${closedPort}/`, job, 5000), { name: 'ScrapeError', message: /ECONNREFUSED/ });
});

t.test('TLS: verified against the job\'s CA and server_name, the connection kept, a new one when the CA file changes', async (t) => {
  let openssl = true;
  try { execFileSync('openssl', ['version']); } catch { openssl = false; }
  if (!openssl) { t.skip('openssl is not installed: no certificate to serve'); return; }
  const dir = tempDir(t);
  const cert = (name: string) => {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name}`,
      '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.pem`)], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, `${name}.key`)), cert: readFileSync(join(dir, `${name}.pem`)) };
  };
  const exporter = cert('exporter.test');
  const other = cert('other.test');
  const server = https.createServer(exporter, (_req, res) => res.end('up 1\n'));
  server.keepAliveTimeout = 60_000;
  const count = counted(server);
  const port = await listen(t, server);
  const url = `https://127.0.0.1:${port}/metrics`;
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, exporter.cert);
  const tlsJob = { ...job, tls: { caFile, certFile: null, keyFile: null, serverName: 'exporter.test', insecureSkipVerify: false } };
  const connection = targetConnection(url, 5000);
  t.teardown(() => connection.destroy());
  for (let i = 0; i < 3; i++) t.equal((await fetchExposition(url, tlsJob, 5000, connection)).body.toString(), 'up 1\n');
  t.equal(count.connections, 1, 'three scrapes, one TLS connection');
  await t.rejects(fetchExposition(url, { ...tlsJob, tls: { ...tlsJob.tls, serverName: 'wrong.test' } }, 5000), { message: /wrong\.test/ }, 'the name is checked');
  await t.rejects(fetchExposition(url, { ...job, tls: null }, 5000), { message: /certificate/ }, 'an unknown CA is refused');
  t.equal((await fetchExposition(url, { ...job, tls: { ...tlsJob.tls, caFile: null, serverName: null, insecureSkipVerify: true } }, 5000)).body.toString(), 'up 1\n', 'insecure_skip_verify');
  const before = count.connections;
  writeFileSync(caFile, other.cert);
  await t.rejects(fetchExposition(url, tlsJob, 5000, connection), { message: /certificate/ }, 'a rotated CA file applies to the kept connection\'s target at once');
  t.equal(count.connections, before + 1, 'checked on a new connection');
});
