// A start over a data dir it cannot use stops with status 1 and a fatal log line that
// says what to do: a damaged table file (found only when the start reads the database,
// after LevelDB opened it) names the repair command; a folder of another user names the
// owner, not the port.
import t, { type Test } from 'tap';
import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, type CliResult } from '../helpers/cli.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { Store } from '../../src/store/db.js';

/** A stopped service's data dir with some measurements, its keys in LevelDB table files. */
async function stoppedDataDir(t: Test, dir: string): Promise<string> {
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  const s = await startTestServer(t, '', { dataDir, keepData: true });
  const time = Math.floor(Date.now() / 1000) - 60;
  const r = await s.request('POST', '/v1/measurements', { json: { time, measurements: Array.from({ length: 50 }, (_, i) => ({ name: 'm', value: i, tags: { k: `k${i}` } })) } });
  t.equal(r.status, 200);
  await s.stop();
  const store = await Store.open(join(dataDir, 'db'), { sync: true });
  await store.db.compactRange('\x00', '\xff'); // the memtable and log into table files
  await store.close();
  return dataDir;
}

function fatal(r: CliResult): string {
  const line = r.stdout.split('\n').filter(Boolean).map((l) => { try { return JSON.parse(l) as { level?: string; msg?: string }; } catch { return {}; } }).find((l) => l.level === 'fatal');
  return line?.msg ?? `(no fatal line; stderr: ${r.stderr.trim()})`;
}

t.test('a damaged table file: exit 1, naming gaugeway store repair', async (t) => {
  const dir = tempDir(t, 'gw-fault-start-');
  const dataDir = await stoppedDataDir(t, dir);
  const db = join(dataDir, 'db');
  const tables = readdirSync(db).filter((f) => f.endsWith('.ldb'));
  t.ok(tables.length > 0, 'the data is in table files');
  for (const f of tables) writeFileSync(join(db, f), Buffer.alloc(statSync(join(db, f)).size));
  const config = join(dir, 'config.yaml');
  writeFileSync(config, `data_dir: ${dataDir}\nhttp:\n  listen: 127.0.0.1:0\nlog:\n  level: info\n`);
  const r = await runCli(['serve', '--config', config]);
  t.equal(r.code, 1);
  t.match(fatal(r), `gaugeway could not start: the database in ${db} is damaged`);
  t.match(fatal(r), `run: gaugeway store repair --data-dir ${dataDir}`);
  t.same(readdirSync(db).filter((f) => f.endsWith('.ldb')), tables, 'the damaged files are left for the repair');
});

t.test('a database folder of another user: exit 1, naming the owner, not the port', async (t) => {
  const dir = tempDir(t, 'gw-fault-start-');
  const dataDir = await stoppedDataDir(t, dir);
  const config = join(dir, 'config.yaml');
  writeFileSync(config, `data_dir: ${dataDir}\nhttp:\n  listen: 127.0.0.1:0\nlog:\n  level: info\n`);
  let r: CliResult;
  if (process.getuid?.() === 0) {
    // root reads everything: run the service as nobody over a data dir that is nobody's,
    // except its db folder (root's, 0700), as after a root-run tool made it
    const nobody = 65534;
    chmodSync(dir, 0o755);
    chownSync(dataDir, nobody, nobody);
    chmodSync(join(dataDir, 'db'), 0o700);
    r = await runCli(['serve', '--config', config], { NODE_OPTIONS: '', NODE_V8_COVERAGE: '' }, undefined, { uid: nobody, gid: nobody });
  } else {
    chmodSync(join(dataDir, 'db'), 0);
    t.teardown(() => chmodSync(join(dataDir, 'db'), 0o700));
    r = await runCli(['serve', '--config', config]);
  }
  t.equal(r.code, 1);
  t.notMatch(fatal(r), /port/, 'nothing about the port');
  t.match(fatal(r), `${join(dataDir, 'db')}: permission denied; the data directory and everything in it must belong to the user gaugeway runs as`);
  t.ok(readFileSync(config, 'utf8'), 'the config is still there');
});
