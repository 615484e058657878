import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, stopServer, replayLoad } from './server.js';
const dir = mkdtempSync(join(tmpdir(), 'gw-live-'));
const config = join(dir, 'config.yaml');
writeFileSync(config, [`data_dir: ${dir}`, 'http:', '  listen: "127.0.0.1:0"', 'log:', '  level: info',
  'limits:', '  body_bytes: 16777216', '  rate_limit:', '    std:', '      limit: 0', '    agg:', '      limit: 0', 'storage:', '  sync: true'].join('\n'));
const { child, port } = await startServer(config);
const creds = readFileSync(join(dir, 'initial-credentials'), 'utf8');
const user = /^email: (.*)$/m.exec(creds)[1]; const pass = /^token: (.*)$/m.exec(creds)[1];
const end = Math.floor(Date.now() / 1000 / 60) * 60;
const ingest = await replayLoad(child.pid, [port, user, pass, 10000, 1440, 1000, 4, end]);
const t0 = Date.now();
const sizes = () => { let log = 0, ldb = 0; for (const f of readdirSync(join(dir, 'db'))) { const s = statSync(join(dir, 'db', f)).size; if (f.endsWith('.log')) log += s; else if (f.endsWith('.ldb')) ldb += s; } return { log, ldb }; };
for (let i = 0; i <= Number(process.env.MINUTES ?? 10) * 2; i++) {
  const { log, ldb } = sizes();
  console.log(`${((Date.now() - t0) / 1000).toFixed(0)} s: ${((log + ldb) / ingest.samples).toFixed(2)} B/sample (log ${(log / 1e6).toFixed(1)} MB, tables ${(ldb / 1e6).toFixed(1)} MB)`);
  await new Promise((r) => setTimeout(r, 30000));
}
await stopServer(child);
console.log('dir', dir);
