// makeDirectory: a folder and its missing parents, and a prompt error where a folder
// cannot be made (Node's own recursive mkdir spins for ever under /proc).
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeDirectory } from '../src/durable-files.js';
import { tempDir } from './helpers/tmp.js';

const BIN = fileURLToPath(new URL('../bin/gaugeway.js', import.meta.url));

t.test('makes the missing parents, each with the mode given', async (t) => {
  const dir = tempDir(t, 'gw-mkdir-');
  const deep = join(dir, 'a', 'b', 'c');
  makeDirectory(deep, 0o700);
  for (const p of [join(dir, 'a'), join(dir, 'a', 'b'), deep]) {
    t.ok(statSync(p).isDirectory(), `${p} is a folder`);
    t.equal(statSync(p).mode & 0o777, 0o700, `${p} has mode 700`);
  }
  makeDirectory(deep, 0o700);
  t.pass('a folder that exists is left as it is');
});

t.test('a file in the way is an error, not a folder', async (t) => {
  const dir = tempDir(t, 'gw-mkdir-');
  writeFileSync(join(dir, 'f'), '');
  t.throws(() => makeDirectory(join(dir, 'f'), 0o700), { code: 'ENOTDIR' });
  t.throws(() => makeDirectory(join(dir, 'f', 'sub'), 0o700), { code: 'ENOTDIR' });
  t.notOk(existsSync(join(dir, 'f', 'sub')));
});

const noProc = existsSync('/proc/self') ? false : 'no /proc on this machine';

t.test('a folder under /proc: an error at once, not a spin', { skip: noProc }, async (t) => {
  t.throws(() => makeDirectory('/proc/gaugeway-test/db', 0o700), { code: 'ENOENT' });
});

t.test('serve with its data dir under /proc exits with E_DATA_DIR', { skip: noProc }, async (t) => {
  // before, the start spun in native code at 100 % CPU and no signal stopped it: the
  // timeout (SIGKILL) only keeps a regression from hanging the suite
  const r = spawnSync(process.execPath, [BIN, 'serve', '--data-dir', '/proc/gaugeway-test', '--listen', '127.0.0.1:0'], { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
  t.equal(r.signal, null, 'ended on its own');
  t.equal(r.status, 1, r.stderr);
  const fatal = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: string; code?: string; msg: string }).find((l) => l.level === 'fatal');
  t.match(fatal, { code: 'E_DATA_DIR', msg: /\/proc\/gaugeway-test/ });
});
