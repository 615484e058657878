// `node bench/scrape-fetch.js` (after `npm run build`): what the scrape client alone costs
// at the scrape workload's pace. The benchmark's generator (bench/scrape.js --generator:
// 100 targets, about 50 kB of exposition each) in its own process; this process fetches
// every target every 5 s with the service's client (each target on its kept connection,
// starts spread over the interval), nothing parsed or stored, and reports its own CPU for
// BENCH_FETCH_SECONDS (40) after a warm-up of two rounds. How bench/notes.md ("The scrape
// client") compared node:http, undici and a socket read directly.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SECONDS = Number(process.env.BENCH_FETCH_SECONDS ?? 40);
const INTERVAL_MS = 5000;
const { fetchExposition, targetConnection } = await import(new URL('../dist/scrape/fetch.js', import.meta.url));
const generator = fork(fileURLToPath(new URL('scrape.js', import.meta.url)), ['--generator'], { stdio: 'inherit' });
const { ports } = await new Promise((resolve) => generator.once('message', resolve));
const job = { basicAuth: null, authorization: null, tls: null, bodySizeLimit: 0, followRedirects: true };
let measuring = false;
let fetches = 0;
let bytes = 0;
const timers = ports.map((port, i) => {
  const url = `http://127.0.0.1:${port}/metrics`;
  const connection = targetConnection(url, INTERVAL_MS);
  const fetchOnce = async () => {
    const { body } = await fetchExposition(url, job, INTERVAL_MS - 1000, connection);
    if (measuring) { fetches++; bytes += body.length; }
  };
  return setTimeout(() => { fetchOnce(); timers[i] = setInterval(fetchOnce, INTERVAL_MS); }, (i * INTERVAL_MS) / ports.length);
});
await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL_MS + 1000));
measuring = true;
const c0 = process.cpuUsage();
await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
const used = process.cpuUsage(c0);
const cpu = (used.user + used.system) / 1e6;
console.log(`${fetches} fetches of ${(bytes / fetches / 1024).toFixed(0)} kB: CPU ${cpu.toFixed(2)} s (user ${(used.user / 1e6).toFixed(2)}, system ${(used.system / 1e6).toFixed(2)}), `
  + `${((cpu / fetches) * 1e6).toFixed(0)} µs a fetch, ${(cpu / (fetches / 1000)).toFixed(2)} s per million samples of 1,000 a fetch`);
generator.kill();
process.exit(0);
