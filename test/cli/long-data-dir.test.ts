// A data dir whose path leaves no room for <data_dir>/admin.sock in a Unix socket address:
// the service runs without an admin socket, and the CLI says that is why it cannot reach
// it, instead of suggesting the wrong user.
import t from 'tap';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServe } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

t.test('no admin socket for a long data dir path: the CLI names the cause', async (t) => {
  const dir = tempDir(t, 'gw-long-');
  const data = join(dir, 'a'.repeat(100));
  const config = join(dir, 'config.yaml');
  writeFileSync(config, `data_dir: ${data}\nlog:\n  level: info\nhttp:\n  listen: 127.0.0.1:0\n`);
  const s = await startServe(t, ['--config', config]);
  await s.waitForLog(/too long for a Unix socket/);
  const cause = /the service holds .*, and that path is too long for a Unix socket .* so it has no admin socket: stop the service to run this command, or move data_dir to a shorter path/;

  const accounts = await runCli(['accounts', 'list', '--config', config]);
  t.equal(accounts.code, 1);
  t.match(accounts.stderr, cause);
  const backupDir = join(dir, 'backup');
  const backup = await runCli(['backup', backupDir, '--config', config]);
  t.equal(backup.code, 1);
  t.match(backup.stderr, cause);
  t.notOk(existsSync(backupDir), 'no empty backup folder left behind');
  const exported = await runCli(['export', join(dir, 'defs.json'), '--config', config]);
  t.equal(exported.code, 1);
  t.match(exported.stderr, cause);

  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
  const stopped = await runCli(['accounts', 'list', '--config', config]);
  t.equal(stopped.code, 0, 'with the service stopped the CLI opens the data dir itself');
});
