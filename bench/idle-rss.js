// Each system's memory at rest (issue 14's RSS bar): Gaugeway on an empty data dir and
// each peer installed (`--peer NAME`, as bench/run.js), 15 s after it is ready, read from
// /proc/<pid>/status: what every figure of the push benchmark's peak RSS starts from.
// Usage: npm run bench:idle-rss [-- --peer victoria-metrics --peer prometheus]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, stopServer, rssMb } from './server.js';
import { peerMissing, peerNames, startPeer, stopPeer } from './peers.js';

const SETTLE_MS = 15_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fields = ['VmRSS', 'RssAnon', 'RssFile'];
const rows = [];

async function measure(name, dir, start, stop) {
  try {
    const { child } = await start(dir);
    await sleep(SETTLE_MS);
    rows.push([name, ...fields.map((f) => rssMb(child.pid, f))]);
    await stop(child);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await measure('Gaugeway', mkdtempSync(join(tmpdir(), 'gw-idle-')), (dir) => {
  writeFileSync(join(dir, 'config.yaml'), [`data_dir: ${dir}`, 'http:', '  listen: "127.0.0.1:0"', 'log:', '  level: info'].join('\n'));
  return startServer(join(dir, 'config.yaml'));
}, stopServer);
for (const name of peerNames(process.argv)) {
  const missing = peerMissing(name);
  if (missing) { console.error(`peer ${name} skipped: ${missing}`); continue; }
  await measure(name, mkdtempSync(join(tmpdir(), `gw-idle-${name}-`)), (dir) => startPeer(name, join(dir, 'data')), stopPeer);
}
console.log(`| system (${SETTLE_MS / 1000} s after it is ready, empty data dir) | ${fields.join(' MB | ')} MB |`);
console.log(`|---|${fields.map(() => '---').join('|')}|`);
for (const [name, ...mb] of rows) console.log(`| ${name} | ${mb.map((x) => x.toFixed(0)).join(' | ')} |`);
