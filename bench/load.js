// Load generator, run as its own process: pre-builds every request body, says "ready",
// waits for "go" on stdin, then replays the bodies over keep-alive connections with a fixed
// number of requests in flight and reports the wall time of the replay. `format` (default
// gaugeway, over HTTPS) may name a peer's wire format (workload.js), sent over plain HTTP.
import http from 'node:http';
import https from 'node:https';
import { createInterface } from 'node:readline';
import { buildBodies } from './workload.js';

const [port, user, pass, series, points, batch, concurrency, end, format = 'gaugeway'] = process.argv.slice(2);
const { bodies, samples } = buildBodies({ series: Number(series), points: Number(points), batch: Number(batch), end: Number(end), format });
const auth = 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');
const targets = {
  gaugeway: { client: https, path: '/v1/measurements', headers: { 'content-type': 'application/json', authorization: auth } },
  influx: { client: http, path: '/write', headers: { 'content-type': 'text/plain' } },
  'remote-write': { client: http, path: '/api/v1/write', headers: { 'content-type': 'application/x-protobuf', 'content-encoding': 'snappy', 'x-prometheus-remote-write-version': '0.1.0' } },
};
const target = targets[format];
const agent = new target.client.Agent({ keepAlive: true, maxSockets: Number(concurrency), rejectUnauthorized: false });

function post(body) {
  return new Promise((resolve, reject) => {
    const req = target.client.request({ host: '127.0.0.1', port: Number(port), method: 'POST', path: target.path, agent,
      headers: { ...target.headers, 'content-length': body.length } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => (res.statusCode >= 200 && res.statusCode < 300 ? resolve() : reject(new Error(`HTTP ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

console.log(JSON.stringify({ event: 'ready', requests: bodies.length, samples, bytes: bodies.reduce((a, b) => a + b.length, 0) }));
const rl = createInterface({ input: process.stdin });
rl.once('line', async () => {
  const started = process.hrtime.bigint();
  let next = 0;
  // Prometheus refuses a point older than its series' newest ("out of order sample"): a
  // batch waits until the same series' batch of the time step before has been answered.
  // (Gaugeway and VictoriaMetrics take points in any order, so nothing waits for them.)
  const perStep = Math.ceil(Number(series) / Number(batch));
  const sent = format === 'remote-write' ? bodies.map(() => { let done; const p = new Promise((r) => { done = r; }); return { p, done }; }) : null;
  const worker = async () => {
    while (next < bodies.length) {
      const i = next++;
      if (sent && i >= perStep) await sent[i - perStep].p;
      await post(bodies[i]);
      sent?.[i].done();
      bodies[i] = null; // let the sent body go
    }
  };
  try {
    await Promise.all(Array.from({ length: Number(concurrency) }, worker));
  } catch (err) {
    console.log(JSON.stringify({ event: 'error', message: err.message }));
    process.exit(1);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(JSON.stringify({ event: 'done', seconds, samples }));
  agent.destroy();
  rl.close();
});
