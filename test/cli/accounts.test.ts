// `gaugeway accounts|tokens ...` as child processes, while `gaugeway serve` runs (they
// go through <data_dir>/admin.sock) and while it is stopped (they open the data dir).
import t from 'tap';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, runCli, startServe } from '../helpers/cli.js';
import { httpsRequest, initialCredentials, selfSignedCa, type Credentials } from '../helpers/client.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';

/** The secret a create/rotate command printed: its last line, and the only one like it. */
function printedSecret(stdout: string): string {
  const lines = stdout.trim().split('\n');
  const secret = lines[lines.length - 1]!;
  if (!/^[0-9a-f]{64}$/.test(secret)) throw new Error(`no secret in:\n${stdout}`);
  return secret;
}

t.test('accounts and tokens while the service runs and while it is stopped', async (t) => {
  const dir = tempDir(t, 'gw-cli-');
  const config = writeServeConfig(dir);
  const data = join(dir, 'data');
  const cli = (...args: string[]) => runCli([...args, '--config', config]);

  const before = await cli('accounts', 'list');
  t.equal(before.code, 1, 'no database yet: the CLI refuses rather than create one');
  t.match(before.stderr, /no database in .*check --config/);

  let s = await startServe(t, ['--config', config]);
  const ca = selfSignedCa(data);
  const status = async (auth: Credentials) => (await httpsRequest(s.port, ca, 'GET', '/v1/metrics', { auth })).status;
  // the service logs "listening" just before it opens the admin socket
  await eventually(() => existsSync(join(data, 'admin.sock')), 'the admin socket');
  const socket = statSync(join(data, 'admin.sock'));
  t.ok(socket.isSocket());
  t.equal(socket.mode & 0o777, 0o600, 'only the service user (and root) may use the admin socket');

  // --- running: every command goes through the socket, and takes effect at once
  const created = await cli('accounts', 'create', 'Ops@Example.com', '--token-name', 'laptop');
  t.equal(created.code, 0, created.stderr);
  t.match(created.stdout, /account ops@example.com \(id \d+\) created/);
  t.match(created.stdout, /shown only now/);
  const laptop = { user: 'ops@example.com', password: printedSecret(created.stdout) };
  t.equal(await status(laptop), 200, 'a token created while running works at once');

  const ci = await cli('tokens', 'create', 'ops@example.com', 'ci', '--role', 'recorder');
  t.equal(ci.code, 0, ci.stderr);
  const ciOld = { user: 'ops@example.com', password: printedSecret(ci.stdout) };
  t.equal(await status(ciOld), 200);

  const list = await cli('tokens', 'list', 'ops@example.com');
  t.same(list.stdout.trim().split('\n'), ['laptop\tadmin\tactive\tstored', 'ci\trecorder\tactive\tstored']);
  t.notOk(list.stdout.includes(laptop.password), 'listing never shows a secret');

  const rotated = await cli('tokens', 'rotate', 'ops@example.com', 'ci');
  t.equal(rotated.code, 0, rotated.stderr);
  const ciNew = { user: 'ops@example.com', password: printedSecret(rotated.stdout) };
  t.equal(await status(ciOld), 401, 'the rotated-away secret is refused');
  t.equal(await status(ciNew), 200);

  t.equal((await cli('tokens', 'disable', 'ops@example.com', 'laptop')).code, 0);
  t.equal(await status(laptop), 401, 'a disabled token is refused');
  t.equal((await cli('tokens', 'enable', 'ops@example.com', 'laptop')).code, 0);
  t.equal(await status(laptop), 200);

  t.equal((await cli('accounts', 'disable', 'ops@example.com')).code, 0);
  t.equal(await status(ciNew), 401, 'a disabled account is refused');
  t.match((await cli('accounts', 'list')).stdout, /\tops@example.com\tdisabled/);
  t.equal((await cli('accounts', 'enable', 'ops@example.com')).code, 0);
  t.equal(await status(ciNew), 200);

  const missing = await cli('tokens', 'rotate', 'nobody@example.com', 'x');
  t.equal(missing.code, 1);
  t.match(missing.stderr, /no account nobody@example.com/);
  const badRole = await cli('tokens', 'create', 'ops@example.com', 'x', '--role', 'root');
  t.equal(badRole.code, 1);
  t.match(badRole.stderr, /role must be admin, recorder or viewer/);
  t.equal((await cli('accounts', 'create', 'half@example.com', '--role', 'root')).code, 1);
  t.notMatch((await cli('accounts', 'list')).stdout, /half@example.com/, 'a refused create leaves no account behind');
  const taken = await cli('accounts', 'create', 'ops@example.com');
  t.equal(taken.code, 1);
  t.match(taken.stderr, /already exists/);
  const usage = await cli('tokens', 'create', 'ops@example.com');
  t.equal(usage.code, 2, 'wrong arguments: usage, exit 2');
  t.match(usage.stderr, /usage:/);

  const admin = initialCredentials(data);
  for (const secret of [laptop.password, ciOld.password, ciNew.password, admin.password]) {
    t.notOk(s.output().includes(secret), 'no secret in the service log');
  }
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });

  // --- stopped: the same commands open the data dir directly
  const offline = await cli('tokens', 'create', 'ops@example.com', 'offline', '--role', 'viewer');
  t.equal(offline.code, 0, offline.stderr);
  const offlineToken = { user: 'ops@example.com', password: printedSecret(offline.stdout) };
  const rotatedOffline = await cli('tokens', 'rotate', 'ops@example.com', 'ci');
  t.equal(rotatedOffline.code, 0, rotatedOffline.stderr);
  const ciNewest = { user: 'ops@example.com', password: printedSecret(rotatedOffline.stdout) };
  t.equal((await cli('tokens', 'disable', 'ops@example.com', 'laptop')).code, 0);
  t.match((await cli('accounts', 'list')).stdout, /\tadmin@localhost\tactive\n.*\tops@example.com\tactive/);
  const badRoleOffline = await cli('accounts', 'create', 'new@example.com', '--role', 'root');
  t.equal(badRoleOffline.code, 1, 'the same checks while stopped');
  t.match(badRoleOffline.stderr, /role must be admin, recorder or viewer/);
  t.notMatch((await cli('accounts', 'list')).stdout, /new@example.com/, 'and a refused create leaves no account behind');

  s = await startServe(t, ['--config', config]);
  t.equal(await status(offlineToken), 200, 'a token created while stopped works after start');
  t.equal(await status(ciNew), 401, 'rotated while stopped: the old secret is refused');
  t.equal(await status(ciNewest), 200);
  t.equal(await status(laptop), 401, 'disabled while stopped');
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
});

t.test('a config-file token cannot be rotated from the CLI', async (t) => {
  const dir = tempDir(t, 'gw-cli-');
  const config = writeServeConfig(dir, `accounts:\n  - email: file@example.com\n    token_sha256: ${'a'.repeat(64)}\n    name: provisioned\n`);
  const s = await startServe(t, ['--config', config]);
  const r = await runCli(['tokens', 'rotate', 'file@example.com', 'provisioned', '--config', config]);
  t.equal(r.code, 1);
  t.match(r.stderr, /comes from the config file/);
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
});

t.test('root on a stopped service acts as the data dir owner, even behind a 0700 root folder', { skip: process.getuid?.() !== 0 && 'needs root' }, async (t) => {
  const NOBODY = 65534;
  const parent = tempDir(t, 'gw-owner-');
  const config = writeServeConfig(parent);
  const data = join(parent, 'private', 'state');
  mkdirSync(data, { recursive: true });
  writeFileSync(config, readFileSync(config, 'utf8').replace('data_dir: ./data', 'data_dir: ./private/state'));
  const s = await startServe(t, ['--config', config]);
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
  // As systemd leaves a DynamicUser state dir: owned by the service's uid, under a root-only folder.
  const chownAll = (dir: string) => {
    chownSync(dir, NOBODY, NOBODY);
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) chownAll(join(dir, e.name)); else chownSync(join(dir, e.name), NOBODY, NOBODY);
    }
  };
  chownAll(data);
  chmodSync(join(parent, 'private'), 0o700);

  const r = await runCli(['tokens', 'create', 'admin@localhost', 'offline', '--config', config]);
  t.equal(r.code, 0, r.stderr);
  const owners = new Set(readdirSync(join(data, 'db')).map((f) => statSync(join(data, 'db', f)).uid));
  t.same([...owners], [NOBODY], 'every LevelDB file still belongs to the service user');
});
