// SIGTERM on a real `gaugeway serve` child: stop accepting, finish what is in flight,
// close LevelDB, exit 0.
import t, { type Test } from 'tap';
import https from 'node:https';
import { join } from 'node:path';
import { startServe, eventually, type ServeProcess } from '../helpers/cli.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';
import { basic, httpsRequest, initialCredentials, selfSignedCa } from '../helpers/client.js';

function serveConfig(t: Test, extra = ''): { dir: string; file: string } {
  const dir = tempDir(t, 'gw-sig-');
  return { dir, file: writeServeConfig(dir, extra) };
}

/** Value of a gauge as scraped over plain HTTP from /metrics (the scrape counts itself). */
async function gauge(s: ServeProcess, name: string): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${s.port}/metrics`);
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(await r.text());
  return m ? Number(m[1]) : NaN;
}

t.test('SIGTERM lets an in-flight request finish, then exits 0', async (t) => {
  const { dir, file } = serveConfig(t, '  shutdown_timeout_ms: 60000\n');
  const s = await startServe(t, ['--config', file]);
  const data = join(dir, 'data');
  const admin = initialCredentials(data);
  const body = JSON.stringify({ type: 'gauge', description: 'sent in two halves' });
  const half = Math.floor(body.length / 2);

  // A request whose body arrives in two parts: in flight until we send the rest.
  const reply = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
    const req = https.request({
      host: '127.0.0.1', port: s.port, method: 'PUT', path: '/v1/metrics/in_flight', agent: false,
      ca: selfSignedCa(data), servername: 'localhost',
      headers: { authorization: basic(admin), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => { res.resume(); res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection })); });
    req.on('error', reject);
    req.write(body.slice(0, half));
    void eventually(async () => (await gauge(s, 'gaugeway_http_requests_in_flight')) >= 2, 'the request to be in flight')
      .then(() => {
        s.child.kill('SIGTERM');
        return s.waitForLog(/shutting down/);
      })
      .then(async () => {
        // The listener is closed while the request is still being served.
        await eventually(async () => !(await fetch(`http://127.0.0.1:${s.port}/health`).then(() => true, () => false)), 'the port to stop accepting');
        req.end(body.slice(half));
      }, reject);
  });

  const r = await reply;
  t.equal(r.status, 201, 'the in-flight request completed');
  t.equal(r.connection, 'close', 'and its connection is not kept alive');
  const exit = await s.exited;
  t.same(exit, { code: 0, signal: null });
  t.ok(s.logs.some((l) => l.msg === 'gaugeway stopped'), 'LevelDB closed before exit');

  // The write survived: a new process on the same data dir reads it back.
  const again = await startServe(t, ['--config', file]);
  const read = await httpsRequest(again.port, selfSignedCa(data), 'GET', '/v1/metrics/in_flight', { auth: admin });
  t.equal(read.status, 200);
  t.match(JSON.parse(read.text), { name: 'in_flight', description: 'sent in two halves' });
  again.child.kill('SIGTERM');
  t.same(await again.exited, { code: 0, signal: null });
});

/** Starts a request that never sends its whole body; resolves once the service is serving it. */
async function stuckRequest(s: ServeProcess, data: string): Promise<{ ended: Promise<void> }> {
  const req = https.request({
    host: '127.0.0.1', port: s.port, method: 'PUT', path: '/v1/metrics/never', agent: false, ca: selfSignedCa(data), servername: 'localhost',
    headers: { authorization: basic(initialCredentials(data)), 'content-type': 'application/json', 'content-length': 1000 },
  });
  const ended = new Promise<void>((resolve) => { req.on('error', () => resolve()); req.on('response', (res) => { res.resume(); res.on('end', resolve); }); });
  req.write('{"type":');
  await eventually(async () => (await gauge(s, 'gaugeway_http_requests_in_flight')) >= 2, 'the request to be in flight');
  return { ended }; // wrapped: an async function returning a promise would wait for it
}

t.test('a request that never completes is cut at shutdown_timeout_ms; the process still exits 0', async (t) => {
  const { dir, file } = serveConfig(t, '  shutdown_timeout_ms: 500\n');
  const s = await startServe(t, ['--config', file]);
  const { ended } = await stuckRequest(s, join(dir, 'data'));
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
  await ended;
});

t.test('a second SIGTERM while draining exits at once with status 1', async (t) => {
  const { dir, file } = serveConfig(t, '  shutdown_timeout_ms: 60000\n');
  const s = await startServe(t, ['--config', file]);
  const { ended } = await stuckRequest(s, join(dir, 'data'));
  s.child.kill('SIGTERM');
  await s.waitForLog(/shutting down/);
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 1, signal: null });
  t.ok(s.logs.some((l) => /second signal/.test(String(l.msg))));
  await ended;
});

t.test('SIGINT stops the service the same way', async (t) => {
  const { file } = serveConfig(t);
  const s = await startServe(t, ['--config', file]);
  s.child.kill('SIGINT');
  t.same(await s.exited, { code: 0, signal: null });
});
