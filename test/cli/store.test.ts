// `gaugeway store repair` on a database the service refuses to open.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServe } from '../helpers/cli.js';
import { httpsRequest, initialCredentials, selfSignedCa } from '../helpers/client.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';

t.test('a database with a broken manifest pointer: serve names the command, repair fixes it, data kept', async (t) => {
  const dir = tempDir(t, 'gw-store-');
  const config = writeServeConfig(dir);
  const data = join(dir, 'data');
  let s = await startServe(t, ['--config', config]);
  const admin = initialCredentials(data);
  const created = await httpsRequest(s.port, selfSignedCa(data), 'PUT', '/v1/metrics/kept', { auth: admin, json: { type: 'gauge' } });
  t.equal(created.status, 201);
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });

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

  const usage = await runCli(['store', 'compact']);
  t.equal(usage.code, 2);
});
