// The test-only window knob of `npm run soak -- --window-seconds`: read once at load.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const keys = fileURLToPath(new URL('../../dist/tsdb/keys.js', import.meta.url));
const windowWith = (value: string | undefined) => spawnSync(process.execPath, ['--input-type=module', '-e', `import { WINDOW, windowOf } from ${JSON.stringify(keys)}; console.log(WINDOW, windowOf(4000))`], {
  env: { ...process.env, GW_TEST_WINDOW_SECONDS: value ?? '' },
});

t.test('GW_TEST_WINDOW_SECONDS shortens the engine window; the default is 6 hours', async (t) => {
  t.equal(windowWith(undefined).stdout.toString().trim(), '21600 0');
  t.equal(windowWith('1800').stdout.toString().trim(), '1800 3600');
  for (const value of ['1000', '600']) {
    const bad = windowWith(value);
    t.not(bad.status, 0);
    t.match(bad.stderr.toString(), new RegExp(`GW_TEST_WINDOW_SECONDS must be a multiple of 900 seconds, not ${value}`), '600 s would let 900 s buckets start before their chunk');
  }
});
