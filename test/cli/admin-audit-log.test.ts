// Account and token changes made with the CLI while the service runs (through its admin
// socket) are the service log's business: who may sign in changed, and the log is the
// only record of when. Found in an operator walkthrough: they left no line at all.
import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, runCli, startServe } from '../helpers/cli.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';

t.test('each change through the admin socket is an info line naming the account and token, never the secret', async (t) => {
  const dir = tempDir(t, 'gw-audit-');
  const config = writeServeConfig(dir);
  const s = await startServe(t, ['--config', config]);
  await eventually(() => existsSync(join(dir, 'data', 'admin.sock')), 'the admin socket');
  const cli = async (...args: string[]) => {
    const r = await runCli([...args, '--config', config]);
    t.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };

  const printed = [
    await cli('accounts', 'create', 'Ops@Example.com', '--token-name', 'laptop'),
    await cli('tokens', 'create', 'ops@example.com', 'ci', '--role', 'recorder'),
    await cli('tokens', 'rotate', 'ops@example.com', 'ci'),
  ];
  await cli('tokens', 'disable', 'ops@example.com', 'laptop');
  await cli('accounts', 'disable', 'ops@example.com');
  await cli('tokens', 'list', 'ops@example.com');
  await cli('accounts', 'list');

  const wanted = [
    { msg: 'account created through the admin socket', email: 'ops@example.com', token_name: 'laptop', role: 'admin' },
    { msg: 'token created through the admin socket', email: 'ops@example.com', token_name: 'ci', role: 'recorder' },
    { msg: 'token rotated through the admin socket', email: 'ops@example.com', token_name: 'ci' },
    { msg: 'token disabled through the admin socket', email: 'ops@example.com', token_name: 'laptop' },
    { msg: 'account disabled through the admin socket', email: 'ops@example.com' },
  ];
  // each command's answer comes after its change is done; the log line may trail it a little
  await s.waitForLog(/account disabled through the admin socket/);
  const lines = s.logs.filter((l) => l.component === 'admin');
  t.equal(lines.length, wanted.length, 'one line a change, none for a list');
  wanted.forEach((w, i) => t.match(lines[i], { level: 'info', ...w }, w.msg));
  const secrets = printed.map((out) => out.trim().split('\n').pop()!);
  for (const secret of secrets) t.notOk(s.output().includes(secret), 'no secret in the log');
});
