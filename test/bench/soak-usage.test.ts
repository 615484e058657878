// `npm run soak` explains itself: --help prints the usage, a mistake names what was wrong
// and shows the usage, never a stack trace (it exits before starting any server).
import t from 'tap';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const soak = fileURLToPath(new URL('../../bench/soak.js', import.meta.url));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [soak, ...args], (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

t.test('--help prints the usage', async (t) => {
  const r = await run(['--help']);
  t.equal(r.code, 0);
  t.match(r.stdout, /^usage: npm run soak -- --minutes N /);
  t.equal(r.stderr, '');
});

t.test('an unknown option is named, with the usage, and no stack trace', async (t) => {
  const r = await run(['--bogus']);
  t.equal(r.code, 2);
  t.match(r.stderr, /^Unknown option '--bogus'\nusage: npm run soak -- /);
  t.notMatch(r.stderr, /at parseArgs|ERR_PARSE_ARGS/);
});

t.test('a shape that is not dense or wide shows the usage', async (t) => {
  const r = await run(['--shape', 'square']);
  t.equal(r.code, 2);
  t.match(r.stderr, /^usage: npm run soak -- /);
});
