// `npm run bench:alerts [-- --alerts 1000 --runs 1]`: the ingest workload of bench/run.js
// without alerts and with N active alerts watching its series (one host each), and the
// server CPU per million samples of each: what evaluating alerts costs ingest (issue 11:
// at most 10 % more). BENCH_SERIES / BENCH_POINTS apply as in bench/run.js.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: opt } = parseArgs({ options: { alerts: { type: 'string', default: '1000' }, runs: { type: 'string', default: '1' } } });
const dir = mkdtempSync(join(tmpdir(), 'gw-bench-alerts-'));

function cpuPerMillion(alerts) {
  const out = join(dir, `alerts-${alerts}.md`);
  execFileSync(process.execPath, [join(root, 'bench/run.js')], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, BENCH_ALERTS: String(alerts), BENCH_RUNS: opt.runs, BENCH_OUT: out, BENCH_QUERY_REPEAT: '3' },
  });
  const m = /\| server CPU per million samples \| ([\d.]+) s/.exec(readFileSync(out, 'utf8'));
  const rate = /\| sustained ingest \| ([\d,]+) samples\/s/.exec(readFileSync(out, 'utf8'));
  return { cpu: Number(m[1]), rate: rate[1] };
}

const without = cpuPerMillion(0);
const withAlerts = cpuPerMillion(Number(opt.alerts));
rmSync(dir, { recursive: true, force: true });
const more = (withAlerts.cpu / without.cpu - 1) * 100;
console.log(`| alerts | server CPU s / M samples | ingest samples/s |
|---|---|---|
| 0 | ${without.cpu.toFixed(2)} | ${without.rate} |
| ${opt.alerts} | ${withAlerts.cpu.toFixed(2)} | ${withAlerts.rate} |

with ${opt.alerts} alerts: ${more >= 0 ? '+' : ''}${more.toFixed(1)} % CPU per sample (bar: <= +10 %): ${more <= 10 ? 'met' : 'not met'}`);
