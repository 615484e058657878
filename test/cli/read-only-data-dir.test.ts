// serve on a data dir whose filesystem is mounted read-only: the start error names the
// read-only filesystem, not the folder's owner. The mount is made in a private mount
// namespace of the child (unshare -m), so it goes away with the process.
import t from 'tap';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanEnv } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const BIN = fileURLToPath(new URL('../../bin/gaugeway.js', import.meta.url));

function canMountPrivately(): string | false {
  if (process.getuid?.() !== 0) return 'needs root to mount a read-only filesystem';
  try {
    execFileSync('unshare', ['-m', 'mount', '-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', '/mnt'], { stdio: 'ignore' });
    return false;
  } catch {
    return 'cannot mount in a private mount namespace here (unshare -m, mount)';
  }
}

t.test('a data dir on a read-only filesystem: the start error says so', { skip: canMountPrivately() }, async (t) => {
  const dir = tempDir(t, 'gw-readonly-');
  const mounted = join(dir, 'ro');
  mkdirSync(mounted);
  const file = join(dir, 'config.yaml');
  writeFileSync(file, 'data_dir: ./ro/data\nhttp:\n  listen: 127.0.0.1:0\n');
  const child = spawn('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o ro,size=1m tmpfs "$1" && exec "$2" "$3" serve --config "$4"', 'sh', mounted, process.execPath, BIN, file], {
    env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c));
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const code = await new Promise((resolve) => child.on('close', resolve));
  t.equal(code, 1, stderr);
  const fatal = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.level === 'fatal');
  t.match(fatal, { code: 'E_DATA_DIR', msg: `cannot create or write the data directory ${join(mounted, 'data')}: ${mounted} is on a read-only filesystem; remount it read-write or choose another data_dir` });
  t.notMatch(fatal.msg, /owner/);
});
