// First start, config-file accounts and token states, through the HTTP API.
import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startLogged } from '../helpers/capture-log.js';
import { tempDir } from '../helpers/tmp.js';
import { startTestServer } from '../helpers/server.js';
import { httpsRequest, initialCredentials } from '../helpers/client.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

async function start(t: Test, dir: string, extra = '') {
  const { server, log } = await startLogged(t, dir, extra, 'debug');
  const get = (path: string, auth?: { user: string; password: string }) => httpsRequest(server.port, server.tls.ca, 'GET', path, { auth });
  return { server, log, get };
}

t.test('first start: one admin, credentials in a 0600 file, the log names the file but never the token', async (t) => {
  const dir = tempDir(t, 'gw-acct-');
  const s = await start(t, dir);
  const file = join(dir, 'data', 'initial-credentials');
  t.equal(statSync(file).mode & 0o777, 0o600);
  const admin = initialCredentials(join(dir, 'data'));
  t.equal(admin.user, 'admin@localhost');
  t.match(admin.password, /^[0-9a-f]{64}$/);
  t.ok(s.log.lines().some((l) => l.file === file && /credentials/.test(String(l.msg))), 'the log says where the credentials are');

  t.equal((await s.get('/v1/metrics', admin)).status, 200, 'they work');
  t.equal((await s.get('/v1/metrics', { ...admin, password: admin.password.replace(/.$/, (c) => (c === '0' ? '1' : '0')) })).status, 401);
  t.notOk(s.log.text().includes(admin.password), 'the token never reaches the log (debug level, requests included)');
  t.notOk(s.log.text().includes(Buffer.from(`${admin.user}:${admin.password}`).toString('base64')), 'nor the Authorization header');
  await s.server.close();

  const again = await start(t, dir);
  t.equal(readFileSync(file, 'utf8').includes(admin.password), true, 'a restart does not replace the credentials');
  t.notOk(again.log.lines().some((l) => /credentials/.test(String(l.msg))), 'nor creates another account');
});

t.test('config-file accounts authenticate with the token whose SHA-256 is configured; no initial credentials then', async (t) => {
  const dir = tempDir(t, 'gw-acct-');
  const [opsToken, viewerToken] = ['ops-secret-token', 'viewer-secret-token'];
  const s = await start(t, dir, [
    'accounts:',
    `  - email: Ops@Example.com`,
    `    token_sha256: ${sha256(opsToken)}`,
    `  - email: watcher@example.com`,
    `    token_sha256: ${sha256(viewerToken)}`,
    `    role: viewer`,
    '',
  ].join('\n'));
  t.notOk(existsSync(join(dir, 'data', 'initial-credentials')), 'accounts exist, so no first admin is made');
  t.equal((await s.get('/v1/metrics', { user: 'ops@example.com', password: opsToken })).status, 200);
  t.equal((await s.get('/v1/metrics', { user: 'OPS@example.com', password: opsToken })).status, 200, 'e-mails are case-insensitive');
  t.equal((await s.get('/v1/metrics', { user: 'ops@example.com', password: viewerToken })).status, 401, 'a token belongs to its account');
  t.equal((await s.get('/v1/metrics', { user: 'ops@example.com', password: sha256(opsToken) })).status, 401, 'the hash itself is not a password');
  const viewer = { user: 'watcher@example.com', password: viewerToken };
  t.equal((await s.get('/v1/metrics', viewer)).status, 200);
  const put = await httpsRequest(s.server.port, s.server.tls.ca, 'PUT', '/v1/metrics/x', { auth: viewer, json: { type: 'gauge' } });
  t.equal(put.status, 403, 'the configured role is enforced');
  t.notOk(s.log.text().includes(opsToken));
});

t.test('disabled and rotated tokens and disabled accounts get 401', async (t) => {
  const s = await startTestServer(t);
  const dir = s.server.rt.accounts;
  const user = await s.newAccount('team@example.com', 'recorder');
  const tokenName = dir.listTokens('team@example.com')[0]!.name;
  t.equal((await s.get('/v1/metrics', { auth: user })).status, 200);

  await dir.setTokenActive(user.user, tokenName, false);
  const disabled = await s.get('/v1/metrics', { auth: user });
  t.equal(disabled.status, 401);
  t.match(disabled.body, { errors: { request: [String] } });
  await dir.setTokenActive(user.user, tokenName, true);
  t.equal((await s.get('/v1/metrics', { auth: user })).status, 200, 'enabled again');

  const { secret } = await dir.rotateToken(user.user, tokenName);
  t.equal((await s.get('/v1/metrics', { auth: user })).status, 401, 'the old secret stops working at once');
  t.equal((await s.get('/v1/metrics', { auth: { user: user.user, password: secret } })).status, 200);
  t.equal(dir.listTokens(user.user)[0]!.role, 'recorder', 'rotation keeps the role');

  await dir.setAccountActive(user.user, false);
  t.equal((await s.get('/v1/metrics', { auth: { user: user.user, password: secret } })).status, 401, 'a disabled account cannot authenticate');
});
