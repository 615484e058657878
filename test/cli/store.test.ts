// `gaugeway store repair` on a database the service refuses to open.
import t, { type Test } from 'tap';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServe, type ServeProcess } from '../helpers/cli.js';
import { httpsRequest, initialCredentials, selfSignedCa } from '../helpers/client.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';

/** A data dir with the first admin and one metric `kept`, its service stopped again. */
async function stoppedServiceWithAMetric(t: Test) {
  const dir = tempDir(t, 'gw-store-');
  const config = writeServeConfig(dir);
  const data = join(dir, 'data');
  const s = await startServe(t, ['--config', config]);
  const admin = initialCredentials(data);
  t.equal((await httpsRequest(s.port, selfSignedCa(data), 'PUT', '/v1/metrics/kept', { auth: admin, json: { type: 'gauge' } })).status, 201);
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
  return { config, data, admin };
}

t.test('a database with a broken manifest pointer: serve names the command, repair fixes it, data kept', async (t) => {
  const { config, data, admin } = await stoppedServiceWithAMetric(t);
  let s: ServeProcess;

  writeFileSync(join(data, 'db', 'CURRENT'), 'MANIFEST-999999\n');
  const refused = await runCli(['serve', '--config', config]);
  t.equal(refused.code, 1, 'the service refuses to start over a database it cannot read');
  t.match(refused.stderr, `run: gaugeway store repair --data-dir ${data}`);

  const repaired = await runCli(['store', 'repair', '--config', config]);
  t.equal(repaired.code, 0, repaired.stderr);
  t.match(repaired.stdout, /repaired; it opens now/);

  s = await startServe(t, ['--config', config]);
  const read = await httpsRequest(s.port, selfSignedCa(data), 'GET', '/v1/metrics/kept', { auth: admin });
  t.equal(read.status, 200, 'accounts and metrics survived the repair');

  const busy = await runCli(['store', 'repair', '--config', config]);
  t.equal(busy.code, 1);
  t.match(busy.stderr, /is in use: stop the service before repairing/);
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });

  const usage = await runCli(['store', 'defragment']);
  t.equal(usage.code, 2);
});

t.test('a database whose CURRENT file is gone is refused, never started empty, and repair brings it back', async (t) => {
  const { config, data, admin } = await stoppedServiceWithAMetric(t);
  let s: ServeProcess;

  rmSync(join(data, 'db', 'CURRENT'));
  const before = readdirSync(join(data, 'db')).sort();
  const refused = await runCli(['serve', '--config', config]);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /but no CURRENT file; opening it would start an empty database over them/);
  t.same(readdirSync(join(data, 'db')).sort(), before, 'no file was created or deleted');

  t.equal((await runCli(['store', 'repair', '--config', config])).code, 0);
  s = await startServe(t, ['--config', config]);
  t.equal((await httpsRequest(s.port, selfSignedCa(data), 'GET', '/v1/metrics/kept', { auth: admin })).status, 200, 'the data is back');
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
});
