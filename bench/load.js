// Load generator, run as its own process: pre-builds every request body, says "ready",
// waits for "go" on stdin, then replays the bodies over HTTPS keep-alive with a fixed
// number of requests in flight and reports the wall time of the replay.
import https from 'node:https';
import { createInterface } from 'node:readline';
import { buildBodies } from './workload.js';

const [port, user, pass, series, points, batch, concurrency, end] = process.argv.slice(2);
const { bodies, samples } = buildBodies({ series: Number(series), points: Number(points), batch: Number(batch), end: Number(end) });
const agent = new https.Agent({ keepAlive: true, maxSockets: Number(concurrency), rejectUnauthorized: false });
const auth = 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');

function post(body) {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: Number(port), method: 'POST', path: '/v1/measurements', agent,
      headers: { 'content-type': 'application/json', 'content-length': body.length, authorization: auth } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`))));
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
  const worker = async () => {
    while (next < bodies.length) {
      const i = next++;
      await post(bodies[i]);
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
