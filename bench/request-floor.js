// The request floor under issue 14's Q1 and Q2 bars ("no slower than either peer"): how
// fast this machine answers one small GET at all, before any query work. One warmed
// keep-alive connection, the median of REPEAT after WARM_UP untimed requests, for:
//   - Gaugeway's Q1 and Q2 (10 series of the push workload, a day at 60 s), over HTTPS as
//     bench/run.js asks them, and over plain HTTP from a trusted proxy (http.trust_proxy),
//     as the peers are asked;
//   - a bare node:http server, a bare node:https server and a bare Koa app with
//     @koa/router over HTTPS, each sending the very bytes of Gaugeway's answer;
//   - each peer installed (`--peer NAME`, as bench/run.js): its Q1 and Q2 in PromQL over
//     the same data.
// Usage: npm run bench:request-floor [-- --peer victoria-metrics --peer prometheus]
import http from 'node:http';
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import Router from '@koa/router';
import { startServer, stopServer, replayLoad } from './server.js';
import { METRIC } from './workload.js';
import { PEERS, WARM_UP, peerMissing, peerNames, peerQueries, startPeer, stopPeer, warmMedian } from './peers.js';

const SERIES = 10;
const POINTS = 1440;
const REPEAT = Number(process.env.BENCH_QUERY_REPEAT ?? 500);

/** One GET's wall time in ms and its body, over the module's default keep-alive agent. */
function get(client, port, path, headers = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    client.get({ host: '127.0.0.1', port, path, rejectUnauthorized: false, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${path}: HTTP ${res.statusCode}`));
        else resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, body: Buffer.concat(chunks) });
      });
    }).on('error', reject);
  });
}

/** The median of REPEAT timed GETs after WARM_UP untimed ones (peers.js's warmMedian). */
const p50 = (once) => warmMedian(async () => (await once()).ms, REPEAT);

const listen = (server) => new Promise((r) => server.listen(0, '127.0.0.1', () => r(server.address().port)));
const close = (server) => new Promise((r) => { server.closeAllConnections?.(); server.close(r); });

const end = Math.floor(Date.now() / 1000 / 60) * 60;
const rows = [];
const dir = mkdtempSync(join(tmpdir(), 'gw-floor-'));
try {
  const config = join(dir, 'config.yaml');
  writeFileSync(config, [`data_dir: ${dir}`, 'http:', '  listen: "127.0.0.1:0"', '  trust_proxy: ["127.0.0.1"]', 'log:', '  level: info', 'storage:', '  sync: true'].join('\n'));
  const { child, port } = await startServer(config);
  const creds = readFileSync(join(dir, 'initial-credentials'), 'utf8');
  const user = /^email: (.*)$/m.exec(creds)[1];
  const pass = /^token: (.*)$/m.exec(creds)[1];
  const auth = { authorization: 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64') };
  await replayLoad(child.pid, [port, user, pass, SERIES, POINTS, SERIES, 1, end]);
  const base = `/v1/measurements/${METRIC}?end_time=${end}&duration=86400&tags[host]=host-7`;
  const ours = { Q1: `${base}&resolution=60`, Q2: `${base}&resolution=3600&summary_function=mean` };
  const bodies = {};
  for (const [q, path] of Object.entries(ours)) {
    bodies[q] = (await get(https, port, path, auth)).body;
    rows.push([`Gaugeway ${q}, HTTPS`, await p50(() => get(https, port, path, auth)), bodies[q].length]);
    const proxied = { ...auth, 'x-forwarded-proto': 'https' };
    rows.push([`Gaugeway ${q}, plain HTTP from a trusted proxy`, await p50(() => get(http, port, path, proxied)), bodies[q].length]);
  }
  await stopServer(child);

  const tls = { cert: readFileSync(join(dir, 'tls/cert.pem')), key: readFileSync(join(dir, 'tls/key.pem')) };
  const bare = (q) => (req, res) => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': bodies[q].length }); res.end(bodies[q]); };
  const koa = (q) => {
    const app = new Koa();
    const router = new Router();
    const text = bodies[q].toString();
    router.get('/x', (ctx) => { ctx.type = 'json'; ctx.body = text; });
    app.use(router.routes());
    return app.callback();
  };
  for (const q of ['Q1', 'Q2']) {
    for (const [name, client, server] of [
      ['bare node:http', http, http.createServer(bare(q))],
      ['bare node:https', https, https.createServer(tls, bare(q))],
      ['bare Koa and @koa/router, HTTPS', https, https.createServer(tls, koa(q))],
    ]) {
      const p = await listen(server);
      rows.push([`${name}, Gaugeway's ${q} answer`, await p50(() => get(client, p, '/x')), bodies[q].length]);
      await close(server);
    }
  }

  for (const name of peerNames(process.argv)) {
    const missing = peerMissing(name);
    if (missing) { console.error(`peer ${name} skipped: ${missing}`); continue; }
    const peerDir = mkdtempSync(join(tmpdir(), `gw-floor-${name}-`));
    try {
      const peer = await startPeer(name, join(peerDir, 'data'));
      await replayLoad(peer.child.pid, [peer.port, '-', '-', SERIES, POINTS, SERIES, 1, end, PEERS[name].format]);
      await PEERS[name].flush(peer.port);
      const { Q1, Q2 } = peerQueries(end);
      for (const [q, path] of Object.entries({ Q1, Q2 })) {
        const size = (await get(http, peer.port, path)).body.length;
        rows.push([`${name} ${q}, HTTP`, await p50(() => get(http, peer.port, path)), size]);
      }
      await stopPeer(peer.child);
    } finally {
      rmSync(peerDir, { recursive: true, force: true });
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`| what (p50 of ${REPEAT} after ${WARM_UP} warm-up, one keep-alive connection) | ms | answer bytes |`);
console.log('|---|---|---|');
for (const [what, ms, bytes] of rows) console.log(`| ${what} | ${ms.toFixed(3)} | ${bytes.toLocaleString('en')} |`);
