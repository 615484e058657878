// statsd with the published statsd-librato-backend, unmodified: real UDP packets on
// loopback, statsd's own flush, and the values read back through the API.
import tap, { type Test } from 'tap';
import dgram from 'node:dgram';
import net from 'node:net';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { poll } from '../helpers/poll.js';

const require = createRequire(import.meta.url);
const STATSD = require.resolve('statsd/stats.js');

async function freePort(kind: 'udp' | 'tcp'): Promise<number> {
  if (kind === 'tcp') {
    const srv = net.createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as net.AddressInfo).port;
    await new Promise((r) => srv.close(r));
    return port;
  }
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
  const port = sock.address().port;
  await new Promise<void>((r) => sock.close(() => r()));
  return port;
}

/** Whether a UDP socket is bound to 127.0.0.1:port, read from the kernel's table (no probe bind that could race statsd's own). */
async function udpPortTaken(port: number): Promise<boolean> {
  const table = await readFile('/proc/net/udp', 'utf8');
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return table.split('\n').some((line) => line.trim().split(/\s+/)[1] === local);
}

async function startStatsd(t: Test, s: TestServer, librato: Record<string, unknown>): Promise<number> {
  const udp = await freePort('udp');
  const mgmt = await freePort('tcp');
  const file = join(s.dataDir, `statsd-${udp}.js`);
  writeFileSync(file, `(${JSON.stringify({
    // Each value goes out in exactly one flush (delete*: nothing is re-sent as a repeat
    // or a zero), and flushes are a second apart, so no two fall into one timestamp.
    address: '127.0.0.1', port: udp, mgmt_address: '127.0.0.1', mgmt_port: mgmt, flushInterval: 1000,
    deleteGauges: true, deleteCounters: true, deleteTimers: true, deleteSets: true,
    backends: ['statsd-librato-backend'],
    librato: { email: s.admin.user, token: s.admin.password, api: `https://127.0.0.1:${s.port}`, skipInternalMetrics: true, ...librato },
  })})`);
  const child = spawn(process.execPath, [STATSD, file], {
    env: { ...process.env, NODE_EXTRA_CA_CERTS: join(s.dataDir, 'tls', 'ca.pem') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  t.teardown(() => { child.kill('SIGKILL'); if (process.env.GW_DEBUG) console.error(output); });
  // statsd logs "server is up" before its UDP socket is bound, so a first packet could
  // be lost: wait until the port is really taken (our own bind to it fails).
  const bound = await poll(async () => ((await udpPortTaken(udp)) ? true : undefined));
  t.ok(bound, `statsd listens on UDP ${udp}`);
  return udp;
}

function send(port: number, lines: string[]): Promise<void> {
  const sock = dgram.createSocket('udp4');
  return new Promise((resolve, reject) => {
    sock.send(Buffer.from(lines.join('\n')), port, '127.0.0.1', (err) => { sock.close(); if (err) reject(err); else resolve(); });
  });
}


tap.test('statsd -> statsd-librato-backend (tagged API) -> Gaugeway', async (t) => {
  const s = await startTestServer(t);
  const since = Math.floor(Date.now() / 1000) - 5;
  const port = await startStatsd(t, s, { source: 'statsd-host', tags: { env: 'test' } });
  await send(port, ['shop.orders:3|c', 'shop.orders:2|c', 'shop.temp:21.5|g', 'shop.checkout:100|ms', 'shop.checkout:300|ms']);

  const series = async (name: string) => {
    const r = await s.get(`/v1/measurements/${name}?start_time=${since}&resolution=1&summary_function=all`);
    return r.status === 200 && r.body.series.length ? r.body.series : undefined;
  };
  const temp = await poll(() => series('shop.temp'));
  // Per-measurement tags replace the top-level ones (spec): the backend sends the
  // source per measurement and its global tags at the top.
  t.same(temp[0].tags, { source: 'statsd-host' });
  t.equal(temp[0].measurements[0].value, 21.5);
  // statsd flushes a counter's count per interval (then 0s): they add up to 5.
  const orders = await poll(async () => {
    const ss = await series('shop.orders');
    return ss && ss[0].measurements.reduce((n: number, m: { sum: number }) => n + m.sum, 0) === 5 ? ss : undefined;
  });
  t.ok(orders, 'the flushed counter total');
  const checkout = await poll(() => series('shop.checkout'));
  t.match(checkout[0].measurements[0], { count: 2, sum: 400, min: 100, max: 300 });
});

tap.test('statsd -> statsd-librato-backend (legacy source API) -> Gaugeway', async (t) => {
  const s = await startTestServer(t);
  const since = Math.floor(Date.now() / 1000) - 5;
  const port = await startStatsd(t, s, { source: 'legacy-host', writeToLegacy: true });
  await send(port, ['web.hits:7|c', 'web.queue:12|g', 'web.render:40|ms', 'web.render:60|ms']);

  const bySource = async (name: string) => {
    const r = await s.get(`/v1/metrics/${name}?start_time=${since}&resolution=1`);
    return r.status === 200 && Object.keys(r.body.measurements).length ? r.body.measurements : undefined;
  };
  t.same((await poll(() => bySource('web.queue')))['legacy-host'].map((r: { value: number }) => r.value), [12]);
  // With writeToLegacy the backend posts every flush to both APIs, in two requests, so
  // each timer sample arrives twice (once tagged, once source-based) into the same source
  // stream: wait until both requests are in, not just the first.
  const render = (await poll(async () => {
    const m = await bySource('web.render');
    return m && m['legacy-host']?.[0]?.count >= 4 ? m : undefined;
  }))['legacy-host'];
  t.match(render[0], { count: 4, sum: 200, min: 40, max: 60, value: 50 });
  const hits = await poll(() => bySource('web.hits'));
  t.equal(hits['legacy-host'][0].value, 7);
});
