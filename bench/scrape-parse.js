// Parser throughput: samples per second for a 10,000-series exposition, in the text
// format and in OpenMetrics, parsed from 64 KiB byte chunks as a scrape receives them.
// Run after a build: `npm run build && node bench/scrape-parse.js`. Env: BENCH_SERIES
// (10000), BENCH_ROUNDS (20).
import { ExpositionParser } from '../dist/scrape/parse.js';

const SERIES = Number(process.env.BENCH_SERIES ?? 10000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const CHUNK = 64 * 1024;

/** node_exporter-like families: a quarter counters, a quarter gauges, half histogram buckets. */
function exposition(om) {
  const lines = [];
  let n = 0;
  for (let f = 0; n < SERIES; f++) {
    const kind = f % 4 === 0 ? 'histogram' : f % 4 === 1 ? 'gauge' : 'counter';
    const name = `bench_family_${f}_${kind === 'histogram' ? 'seconds' : kind === 'gauge' ? 'bytes' : 'events'}`;
    lines.push(`# HELP ${om && kind === 'counter' ? name : kind === 'counter' ? `${name}_total` : name} Family ${f} of the benchmark.`);
    lines.push(`# TYPE ${om || kind !== 'counter' ? name : `${name}_total`} ${kind}`);
    for (let i = 0; i < 20 && n < SERIES; i++) {
      const labels = `instance="host-${i % 5}.example.net:9100",device="sd${String.fromCharCode(97 + (i % 26))}",mode="Mode${i}"`;
      if (kind === 'histogram') {
        for (const le of ['0.005', '0.05', '0.5', '1', '5', '+Inf']) { lines.push(`${name}_bucket{${labels},le="${le}"} ${n}`); n++; }
        lines.push(`${name}_sum{${labels}} ${n * 0.37}`);
        lines.push(`${name}_count{${labels}} ${n}`);
        n += 2;
      } else {
        lines.push(`${name}${kind === 'counter' ? '_total' : ''}{${labels}} ${kind === 'gauge' ? (n * 1.5e3).toExponential() : n}`);
        n++;
      }
    }
  }
  if (om) lines.push('# EOF');
  return Buffer.from(`${lines.join('\n')}\n`);
}

function run(format, body) {
  let samples = 0;
  const parse = () => {
    const parser = new ExpositionParser(format, () => { samples++; });
    for (let i = 0; i < body.length; i += CHUNK) parser.push(body.subarray(i, i + CHUNK));
    parser.end();
  };
  for (let i = 0; i < 3; i++) parse(); // warm up
  samples = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < ROUNDS; i++) parse();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`${format.padEnd(11)} ${(body.length / 1024).toFixed(0)} KiB, ${samples / ROUNDS} samples: ${Math.round(samples / seconds).toLocaleString('en')} samples/s`);
}

run('text', exposition(false));
run('openmetrics', exposition(true));
