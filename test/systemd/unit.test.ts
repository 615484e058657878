// The shipped unit: its commands name the installed entry point that docs/operations.md
// creates, systemd's own checker accepts it once that entry point exists, and it waits
// for the longest stop the config allows.
import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/tmp.js';
import { configSchema } from '../../src/config/schema.js';
import { STOP_AFTER_DRAIN_MS } from '../../src/cli/serve.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const UNIT = readFileSync(join(ROOT, 'systemd/gaugeway.service'), 'utf8');
const INSTALLED = '/usr/local/bin/gaugeway';

function verify(file: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('systemd-analyze', ['verify', file], (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: stdout + stderr });
    });
  });
}

t.test('ExecStart and ExecReload name the entry point the install steps create', async (t) => {
  const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  t.match(docs, `sudo ln -s /opt/gaugeway/bin/gaugeway.js ${INSTALLED}`, 'docs/operations.md links it there');
  t.match(UNIT, new RegExp(`^ExecStart=${INSTALLED} serve --config /etc/gaugeway/config.yaml$`, 'm'));
  t.match(UNIT, new RegExp(`^ExecReload=${INSTALLED} check-config --config /etc/gaugeway/config.yaml$`, 'm'));
  t.notMatch(UNIT, /\/usr\/bin\/env/, 'no PATH lookup that verify cannot check');
});

const analyzer = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].some(existsSync);
t.test('systemd-analyze verify', { skip: analyzer ? false : 'systemd-analyze is not installed here (Debian package systemd)' }, async (t) => {
  const dir = tempDir(t, 'gw-unit-');
  // the entry point in place (this checkout's), as after the install steps
  const installed = join(dir, 'gaugeway.service');
  writeFileSync(installed, UNIT.replaceAll(INSTALLED, join(ROOT, 'bin/gaugeway.js')));
  const good = await verify(installed);
  t.equal(good.code, 0, good.output);
  t.equal(good.output.trim(), '', 'no warnings');
  if (!existsSync(INSTALLED)) {
    const missing = join(tempDir(t, 'gw-unit-'), 'gaugeway.service');
    writeFileSync(missing, UNIT);
    const r = await verify(missing);
    t.not(r.code, 0, 'a missing entry point is reported');
    t.match(r.output, `Command ${INSTALLED} is not executable`);
  }
});

t.test('systemd-analyze security: the exposure score stays at 1.7 or better', { skip: analyzer ? false : 'systemd-analyze is not installed here (Debian package systemd)' }, async (t) => {
  const dir = tempDir(t, 'gw-unit-');
  const file = join(dir, 'gaugeway.service');
  writeFileSync(file, UNIT.replaceAll(INSTALLED, join(ROOT, 'bin/gaugeway.js')));
  const output = await new Promise<string>((resolve) => {
    execFile('systemd-analyze', ['security', '--offline=true', file], (_err, stdout, stderr) => resolve(stdout + stderr));
  });
  const score = Number(/Overall exposure level for gaugeway\.service: ([\d.]+)/.exec(output)?.[1]);
  if (Number.isNaN(score)) {
    t.comment(`this systemd-analyze cannot rate a unit offline (needs systemd 250 or newer): ${output.split('\n')[0]}`);
    return;
  }
  t.ok(score <= 1.7, `exposure ${score} (1.7 when this test was written; lower is better)`);
});

t.test('TimeoutStopSec outlasts the longest stop the config allows', async (t) => {
  const stopSeconds = Number(/^TimeoutStopSec=(\d+)$/m.exec(UNIT)?.[1]);
  const longestDrainMs = configSchema.properties.http.properties.shutdown_timeout_ms.maximum;
  t.ok(stopSeconds * 1000 > longestDrainMs + STOP_AFTER_DRAIN_MS,
    `systemd waits ${stopSeconds} s; serve may take ${(longestDrainMs + STOP_AFTER_DRAIN_MS) / 1000} s before it exits by itself`);
  const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
  const documented = [...docs.matchAll(/TimeoutStopSec=(\d+)/g)].map((m) => Number(m[1]));
  t.ok(documented.length > 0 && documented.every((s) => s === stopSeconds), `docs/operations.md says ${documented.join(', ')}`);
});
