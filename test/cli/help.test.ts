// Every command explains itself: `--help` prints its usage, a mistake names what was
// wrong and shows the usage, never a raw parser message alone.
import t from 'tap';
import { runCli } from '../helpers/cli.js';

for (const command of ['serve', 'check-config', 'accounts', 'tokens', 'store', 'backup', 'restore', 'export', 'import']) {
  t.test(`gaugeway ${command} --help`, async (t) => {
    const r = await runCli([command, '--help']);
    t.equal(r.code, 0);
    t.equal(r.stderr, '');
    t.match(r.stdout, new RegExp(`^usage:\\n  gaugeway ${command} `));
    t.match(r.stdout, '[--config FILE]', 'the options every command takes are shown');
    if (command !== 'check-config') t.match(r.stdout, '[--data-dir DIR]');
  });
  t.test(`gaugeway ${command} with an unknown option`, async (t) => {
    const r = await runCli([command, '--bogus']);
    t.equal(r.code, 2);
    t.match(r.stderr, new RegExp(`^gaugeway: Unknown option '--bogus'\\n\\nusage:\\n  gaugeway ${command} `));
    t.notMatch(r.stderr, /To specify a positional argument/, 'not the raw parser text');
  });
}
