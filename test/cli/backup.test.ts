// Online backup while ingesting, restore into a new data dir, the same answers; a damaged
// backup restores nothing; an interrupted restore blocks the start until finished.
import t from 'tap';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServe } from '../helpers/cli.js';
import { httpsRequest, initialCredentials, selfSignedCa } from '../helpers/client.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';

t.test('backup during ingest, restore, the restored service answers the same queries', async (t) => {
  const dir = tempDir(t, 'gw-backup-');
  const config = writeServeConfig(dir);
  const data = join(dir, 'data');
  const s = await startServe(t, ['--config', config]);
  const admin = initialCredentials(data);
  const ca = selfSignedCa(data);
  const base = Math.floor(Date.now() / 1000) - 3000;
  const send = (name: string, i: number) => httpsRequest(s.port, ca, 'POST', '/v1/measurements', {
    auth: admin, json: { measurements: [{ name, value: i, time: base + i, tags: { k: `s${i % 7}` } }] },
  });
  for (let i = 0; i < 40; i++) t.equal((await send('phase.a', i)).status, 200);
  t.equal((await httpsRequest(s.port, ca, 'PUT', '/v1/metrics/phase.a', { auth: admin, json: { description: 'kept' } })).status, 204);

  // a writer keeps ingesting while the backup runs
  const ackedBeforeBackup = new Set<number>();
  let backupStarted = false;
  let stop = false;
  const writer = (async () => {
    for (let i = 0; !stop && i < 2500; i++) {
      const r = await send('phase.b', i);
      if (r.status === 200 && !backupStarted) ackedBeforeBackup.add(i);
    }
  })();
  while (ackedBeforeBackup.size < 20) await new Promise((r) => setTimeout(r, 20));
  const backupDir = join(dir, 'backup');
  backupStarted = true;
  const backup = await runCli(['backup', backupDir, '--config', config]);
  stop = true;
  await writer;
  t.equal(backup.code, 0, backup.stderr);
  t.match(backup.stdout, /through its admin socket/);
  t.match(backup.stdout, /backup done: \d+ records/);
  const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8'));
  t.match(manifest, { format: 'gaugeway-backup', version: 1, tls: ['ca-key.pem', 'ca.pem', 'cert.pem', 'key.pem'] });

  const query = (port: number, caPem: string, name: string) => httpsRequest(port, caPem, 'GET', `/v1/measurements/${name}?start_time=${base - 1}&end_time=${base + 3000}&resolution=1`, { auth: admin });
  const before = JSON.parse((await query(s.port, ca, 'phase.a')).text);
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });

  const restoredConfig = join(dir, 'restored.yaml');
  writeFileSync(restoredConfig, 'data_dir: ./restored\nlog:\n  level: info\nhttp:\n  listen: 127.0.0.1:0\n');
  const restore = await runCli(['restore', backupDir, '--config', restoredConfig]);
  t.equal(restore.code, 0, restore.stderr);
  t.match(restore.stdout, new RegExp(`restored ${manifest.records} records`));
  const r = await startServe(t, ['--config', restoredConfig]);
  const rca = selfSignedCa(join(dir, 'restored'));
  t.equal(rca, ca, 'the TLS material came along');
  t.same(JSON.parse((await query(r.port, rca, 'phase.a')).text), before, 'the same answer for the data before the backup');
  t.equal(JSON.parse((await httpsRequest(r.port, rca, 'GET', '/v1/metrics/phase.a', { auth: admin })).text).description, 'kept', 'metric records and the account\'s token came along');
  const b = JSON.parse((await query(r.port, rca, 'phase.b')).text);
  const restoredB = new Set<number>(b.series.flatMap((x: { measurements: { value: number }[] }) => x.measurements.map((m) => m.value)));
  const lost = [...ackedBeforeBackup].filter((i) => !restoredB.has(i));
  t.same(lost, [], `every write acknowledged before the backup started is in it (${ackedBeforeBackup.size})`);
  r.child.kill('SIGTERM');
  await r.exited;

  const again = await runCli(['restore', backupDir, '--config', restoredConfig]);
  t.equal(again.code, 1, 'a data dir with a database is refused');
  t.match(again.stderr, /already holds a database/);
  const notEmpty = await runCli(['backup', backupDir, '--config', restoredConfig]);
  t.equal(notEmpty.code, 1);
  t.match(notEmpty.stderr, /is not empty/);
});

t.test('a damaged backup restores nothing; an interrupted restore blocks the start until run again', async (t) => {
  const dir = tempDir(t, 'gw-backup-');
  const config = writeServeConfig(dir);
  const s = await startServe(t, ['--config', config]);
  const admin = initialCredentials(join(dir, 'data'));
  t.equal((await httpsRequest(s.port, selfSignedCa(join(dir, 'data')), 'PUT', '/v1/metrics/m', { auth: admin, json: {} })).status, 201);
  s.child.kill('SIGTERM');
  await s.exited;
  const backupDir = join(dir, 'b');
  const offline = await runCli(['backup', backupDir, '--config', config]);
  t.equal(offline.code, 0, offline.stderr);
  t.match(offline.stdout, /service stopped/, 'with the service stopped the CLI reads the data dir itself');

  const target = join(dir, 't.yaml');
  writeFileSync(target, 'data_dir: ./t\nlog:\n  level: info\nhttp:\n  listen: 127.0.0.1:0\n');
  const good = readFileSync(join(backupDir, 'data.bin'));
  const bad = Buffer.from(good);
  bad[bad.length - 1] ^= 0xff;
  writeFileSync(join(backupDir, 'data.bin'), bad);
  const damaged = await runCli(['restore', backupDir, '--config', target]);
  t.equal(damaged.code, 1);
  t.match(damaged.stderr, /is damaged, nothing was restored: the SHA-256 of data.bin does not match/);
  t.notOk(existsSync(join(dir, 't', 'db')), 'nothing was written');
  writeFileSync(join(backupDir, 'data.bin'), good);

  // an interrupted restore: the marker and a partial database
  mkdirSync(join(dir, 't', 'db'), { recursive: true });
  writeFileSync(join(dir, 't', 'RESTORE-IN-PROGRESS'), 'restore of x started earlier\n');
  const refused = await runCli(['serve', '--config', target]);
  t.equal(refused.code, 1);
  t.match(refused.stdout, /a restore into .* did not finish .*run gaugeway restore again/);
  const finished = await runCli(['restore', backupDir, '--config', target]);
  t.equal(finished.code, 0, finished.stderr);
  t.notOk(existsSync(join(dir, 't', 'RESTORE-IN-PROGRESS')));
  const r = await startServe(t, ['--config', target]);
  t.equal((await httpsRequest(r.port, selfSignedCa(join(dir, 't')), 'GET', '/v1/metrics/m', { auth: admin })).status, 200);
});
