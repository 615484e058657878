// The first start's credentials file tells the operator how to replace its token: the
// command it names must work as written (it named `gaugeway tokens rotate` without the
// e-mail and token name that command needs, and the name was written nowhere in the file).
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, runCli, startServe } from '../helpers/cli.js';
import { httpsRequest, initialCredentials, selfSignedCa } from '../helpers/client.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';

t.test('the rotate command that initial-credentials names replaces its token', async (t) => {
  const dir = tempDir(t, 'gw-initial-');
  const config = writeServeConfig(dir);
  const data = join(dir, 'data');
  const s = await startServe(t, ['--config', config]);
  await eventually(() => existsSync(join(data, 'admin.sock')), 'the admin socket');
  const text = readFileSync(join(data, 'initial-credentials'), 'utf8');
  const command = /`sudo gaugeway (tokens rotate [^`]+)`/.exec(text)?.[1];
  if (!command) return t.fail(`no rotate command in:\n${text}`);
  const old = initialCredentials(data);

  const r = await runCli([...command.split(' '), '--config', config]);
  t.equal(r.code, 0, r.stderr);
  const secret = r.stdout.trim().split('\n').pop()!;
  t.match(secret, /^[0-9a-f]{64}$/);
  const ca = selfSignedCa(data);
  t.equal((await httpsRequest(s.port, ca, 'GET', '/v1/metrics', { auth: old })).status, 401, 'the old token is refused');
  t.equal((await httpsRequest(s.port, ca, 'GET', '/v1/metrics', { auth: { user: old.user, password: secret } })).status, 200, 'the new one works');
});
