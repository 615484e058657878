// The scrape timeout covers everything a fetch waits for, not only the socket: reading the
// job's secret and TLS files too (a slow disk, a FUSE mount, a thread pool busy inflating
// other targets' bodies).
import t from 'tap';
import net from 'node:net';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fetchExposition, targetConnection } from '../../src/scrape/fetch.js';
import { tempDir } from '../helpers/tmp.js';

t.test('a password file read past the timeout: the scrape times out, no request goes out after it', async (t) => {
  const dir = tempDir(t);
  const fifo = join(dir, 'password');
  try { execFileSync('mkfifo', [fifo]); } catch { t.skip('no mkfifo: no file whose read can be held open'); return; }
  // a target that never answers, and tells when a request reaches it
  let requestSeen: () => void = () => {};
  const requested = new Promise<string>((resolve) => { requestSeen = () => resolve('a request was sent after the timeout'); });
  const server = net.createServer((socket) => socket.on('data', () => requestSeen()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/metrics`;
  const connection = targetConnection(url, 5000);
  t.teardown(() => connection.destroy());
  // the fetch's timer closes the connection when it fires: that is when it has fired
  let fired = false;
  const destroy = connection.destroy.bind(connection);
  connection.destroy = (e?: Error) => { fired = true; destroy(e); };
  const job = { basicAuth: { username: 'u', password: null, passwordFile: fifo }, authorization: null, tls: null, bodySizeLimit: 0 };
  // reading a FIFO waits for a writer: the password arrives only after the timer fired
  const scrape = fetchExposition(url, job, 100, connection).then(() => 'answered', (e: Error) => e.message);
  while (!fired) await new Promise((resolve) => setTimeout(resolve, 10));
  const fd = openSync(fifo, 'w');
  writeSync(fd, 'pw\n');
  closeSync(fd);
  t.equal(await Promise.race([scrape, requested]), 'timeout after 100 ms');
});
