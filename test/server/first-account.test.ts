// The first start makes the first admin account and writes its credentials file. A kill
// -9 in the middle of that (account made, token not; token made, file not) must not leave
// an install nobody can log in to: the next start finishes what the first began.
import t, { type Test } from 'tap';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/load.js';
import { createRuntime, closeRuntime } from '../../src/runtime.js';
import { startServer } from '../../src/server.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/tmp.js';

const ADMIN = 'admin@localhost';

function configFor(dir: string, extra = '') {
  return parseConfig(`data_dir: ${dir}\nhttp:\n  listen: "127.0.0.1:0"\n${extra}`, join(dir, 'config.yaml'), {});
}

/** A data dir as a first start killed at some step left it: the marker, and what `steps` made. */
async function cutShort(t: Test, steps: (rt: Awaited<ReturnType<typeof createRuntime>>) => Promise<void>): Promise<string> {
  const dir = tempDir(t, 'gw-first-');
  const rt = await createRuntime(configFor(dir), createLogger('silent'));
  writeFileSync(join(dir, 'initial-credentials.pending'), '');
  await steps(rt);
  await closeRuntime(rt);
  return dir;
}

/** Starts the service on `dir`, and the credentials its file gives, checked against its accounts. */
async function startAndLogIn(t: Test, dir: string, extra = ''): Promise<{ works: boolean; file: string | null; tokens: string[] }> {
  const s = await startServer(configFor(dir, extra), createLogger('silent'));
  t.teardown(() => s.close());
  const path = join(dir, 'initial-credentials');
  const file = existsSync(path) ? readFileSync(path, 'utf8') : null;
  const email = /^email: (.*)$/m.exec(file ?? '')?.[1] ?? '';
  const token = /^token: (.*)$/m.exec(file ?? '')?.[1] ?? '';
  const tokens = s.rt.accounts.findAccount(ADMIN) ? s.rt.accounts.listTokens(ADMIN).map((x) => x.name) : [];
  return { works: file !== null && s.rt.accounts.authenticate(email, token) !== null, file, tokens };
}

t.test('a fresh install: the credentials file works and no marker is left', async (t) => {
  const dir = tempDir(t, 'gw-first-');
  const r = await startAndLogIn(t, dir);
  t.ok(r.works, r.file ?? 'no file');
  t.notOk(existsSync(join(dir, 'initial-credentials.pending')));
});

t.test('killed after the account was made: the next start makes its token and the file', async (t) => {
  const dir = await cutShort(t, async (rt) => { await rt.accounts.createAccount(ADMIN); });
  const r = await startAndLogIn(t, dir);
  t.ok(r.works, r.file ?? 'no file');
  t.same(r.tokens, ['initial']);
  t.notOk(existsSync(join(dir, 'initial-credentials.pending')));
});

t.test('killed after the token was made: the next start gives it a new secret and writes it', async (t) => {
  const dir = await cutShort(t, async (rt) => {
    await rt.accounts.createAccount(ADMIN);
    await rt.accounts.createToken(ADMIN, 'initial', 'admin'); // its secret lost with the process
  });
  const r = await startAndLogIn(t, dir);
  t.ok(r.works, r.file ?? 'no file');
  t.same(r.tokens, ['initial'], 'still one token of that name');
});

t.test('a later start leaves a finished first start alone', async (t) => {
  const dir = tempDir(t, 'gw-first-');
  const first = await startServer(configFor(dir), createLogger('silent'));
  await first.close();
  const before = readFileSync(join(dir, 'initial-credentials'), 'utf8');
  const r = await startAndLogIn(t, dir);
  t.ok(r.works);
  t.equal(r.file, before, 'the file (and its token) unchanged');
});

t.test('a first start cut short before its account, with accounts configured since: nothing made', async (t) => {
  const dir = await cutShort(t, async () => {});
  const r = await startAndLogIn(t, dir, 'accounts:\n  - email: ops@example.com\n    name: ci\n    role: admin\n    token_sha256: "' + 'a'.repeat(64) + '"\n');
  t.equal(r.file, null, 'no credentials file');
  t.same(r.tokens, [], 'no admin@localhost account');
  t.notOk(existsSync(join(dir, 'initial-credentials.pending')), 'the marker is gone');
});
