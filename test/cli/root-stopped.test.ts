// Root running backup and export on a stopped service whose data dir belongs to the
// service user, as systemd's DynamicUser leaves it: the CLI opens the database as that
// user, but writes what the operator asked for as root, where the operator asked.
import t, { type Test } from 'tap';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServe } from '../helpers/cli.js';
import { httpsRequest, initialCredentials, selfSignedCa } from '../helpers/client.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';

const NOBODY = 65534;
const skip = process.getuid?.() !== 0 && 'needs root: the CLI drops to the data dir owner only when run as root';


function chownAll(dir: string): void {
  chownSync(dir, NOBODY, NOBODY);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) chownAll(join(dir, e.name)); else chownSync(join(dir, e.name), NOBODY, NOBODY);
  }
}

/** Every file under `dir` and their owners. */
function owners(dir: string): Set<number> {
  const found = new Set<number>([statSync(dir).uid]);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) for (const uid of owners(path)) found.add(uid); else found.add(statSync(path).uid);
  }
  return found;
}

/**
 * A stopped service's data dir with one metric, owned by the service's uid under a
 * root-only folder, and a root-only folder for the operator's files beside it.
 */
async function stoppedServiceOwnedByNobody(t: Test) {
  const parent = tempDir(t, 'gw-root-');
  const config = writeServeConfig(parent);
  writeFileSync(config, readFileSync(config, 'utf8').replace('data_dir: ./data', 'data_dir: ./private/state'));
  const data = join(parent, 'private', 'state');
  mkdirSync(data, { recursive: true });
  const s = await startServe(t, ['--config', config]);
  const put = await httpsRequest(s.port, selfSignedCa(data), 'PUT', '/v1/metrics/disk.used', { auth: initialCredentials(data), json: { display_name: 'Disk used' } });
  t.equal(put.status, 201);
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
  chownAll(data);
  chmodSync(join(parent, 'private'), 0o700);
  const operator = join(parent, 'operator');
  mkdirSync(operator, { mode: 0o700 });
  return { parent, config, data, operator };
}

t.test('root backs up a stopped service into a folder only root may write', { skip }, async (t) => {
  const { parent, config, data, operator } = await stoppedServiceOwnedByNobody(t);
  const backupDir = join(operator, 'backup');
  const r = await runCli(['backup', backupDir, '--config', config]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /service stopped/);
  t.match(r.stdout, /backup done: \d+ records/);
  const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8'));
  t.match(manifest, { format: 'gaugeway-backup', tls: ['ca-key.pem', 'ca.pem', 'cert.pem', 'key.pem'] });
  t.same([...owners(backupDir)], [0], 'the backup is root\'s, as the operator who ran it');
  t.same([...owners(data)], [NOBODY], 'the data dir is still the service user\'s');

  const restored = join(parent, 'restored.yaml');
  writeFileSync(restored, 'data_dir: ./restored\nlog:\n  level: info\nhttp:\n  listen: 127.0.0.1:0\n');
  const restore = await runCli(['restore', backupDir, '--config', restored]);
  t.equal(restore.code, 0, restore.stderr);
  t.match(restore.stdout, new RegExp(`restored ${manifest.records} records`));
});

t.test('root exports a stopped service\'s definitions to the file it names, absolute or relative', { skip }, async (t) => {
  const { config, data, operator } = await stoppedServiceOwnedByNobody(t);
  const absolute = join(operator, 'defs.json');
  const a = await runCli(['export', absolute, '--config', config]);
  t.equal(a.code, 0, a.stderr);
  t.match(a.stderr, `to ${absolute}`);
  t.equal(statSync(absolute).uid, 0);
  t.match(JSON.parse(readFileSync(absolute, 'utf8')), { accounts: [{ metrics: [{ name: 'disk.used', display_name: 'Disk used' }] }] });

  const r = await runCli(['export', 'relative.json', '--config', config], {}, operator);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stderr, `to ${join(operator, 'relative.json')}`, 'the message names the file written');
  t.ok(existsSync(join(operator, 'relative.json')), 'in the working directory');
  t.notOk(existsSync(join(data, 'relative.json')), 'not in the data dir');
  t.same([...owners(data)], [NOBODY], 'the data dir is still the service user\'s');
});

t.test('a backup that fails leaves no folder behind', async (t) => {
  const dir = tempDir(t, 'gw-backup-fail-');
  const config = writeServeConfig(dir);
  const backupDir = join(dir, 'backup');
  const r = await runCli(['backup', backupDir, '--config', config]);
  t.equal(r.code, 1);
  t.match(r.stderr, /no database in/);
  t.notOk(existsSync(backupDir), 'the folder it made is gone again');

  const empty = join(dir, 'empty');
  mkdirSync(empty);
  t.equal((await runCli(['backup', empty, '--config', config])).code, 1);
  t.same(readdirSync(empty), [], 'a folder that was there stays, empty');
});
