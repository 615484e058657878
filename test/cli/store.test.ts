// `gaugeway store repair` on a database the service refuses to open.
import t, { type Test } from 'tap';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServe, type ServeProcess } from '../helpers/cli.js';
import { httpsRequest, initialCredentials, selfSignedCa } from '../helpers/client.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';
import { poll } from '../helpers/poll.js';

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
  t.match(refused.stdout, `run: gaugeway store repair --data-dir ${data}`);

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
  t.match(refused.stdout, /but no CURRENT file; opening it would start an empty database over them/);
  t.same(readdirSync(join(data, 'db')).sort(), before, 'no file was created or deleted');

  t.equal((await runCli(['store', 'repair', '--config', config])).code, 0);
  s = await startServe(t, ['--config', config]);
  t.equal((await httpsRequest(s.port, selfSignedCa(data), 'GET', '/v1/metrics/kept', { auth: admin })).status, 200, 'the data is back');
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
});

t.test('store compact merges a window written in parts, keeps its data, refuses a running service', async (t) => {
  const dir = tempDir(t, 'gw-compact-');
  const config = writeServeConfig(dir, 'storage:\n  checkpoint:\n    interval_seconds: 1\n    seal_idle_seconds: 1\n');
  const data = join(dir, 'data');
  const past = Math.floor(Date.now() / 1000 / 21600) * 21600 - 2 * 21600 + 600; // inside a closed 6-hour window
  const read = async (port: number, admin: { user: string; password: string }) => {
    const r = await httpsRequest(port, selfSignedCa(data), 'GET', `/v1/measurements/compact.test?start_time=${past - 60}&end_time=${past + 3600}&resolution=1`, { auth: admin });
    return JSON.parse(r.text).series[0]?.measurements.map((m: { time: number; value: number }) => [m.time, m.value]);
  };
  const headPoints = async (port: number) => Number(/^gaugeway_head_points (\S+)$/m.exec((await httpsRequest(port, selfSignedCa(data), 'GET', '/metrics')).text)?.[1]);
  // two runs of the service, each writing to the same closed window and sealing it: two parts
  let admin = { user: '', password: '' };
  for (const offset of [0, 30]) {
    const s = await startServe(t, ['--config', config]);
    admin = initialCredentials(data);
    const body = { measurements: [{ name: 'compact.test', value: offset + 1, time: past + offset, tags: { host: 'a' } }] };
    t.equal((await httpsRequest(s.port, selfSignedCa(data), 'POST', '/v1/measurements', { auth: admin, json: body })).status, 200);
    await poll(async () => ((await headPoints(s.port)) === 0 ? true : undefined));
    s.child.kill('SIGTERM');
    t.same(await s.exited, { code: 0, signal: null });
  }
  let s = await startServe(t, ['--config', config]);
  const before = await read(s.port, admin);
  t.same(before, [[past, 1], [past + 30, 31]]);
  const busy = await runCli(['store', 'compact', '--config', config]);
  t.equal(busy.code, 1);
  t.match(busy.stderr, /is in use: stop the service before compacting/);
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });

  const compacted = await runCli(['store', 'compact', '--config', config]);
  t.equal(compacted.code, 0, compacted.stderr);
  t.match(compacted.stdout, /^expired \d+ chunks, merged \d+ partial chunks, compacted\n$/, 'standard output is the result alone; the JSON log lines go to standard error');
  t.match(compacted.stderr, /"msg":"retention pass done"/);
  const merged = Number(/merged (\d+) partial chunks/.exec(compacted.stdout)?.[1]);
  t.ok(merged >= 2, `the two parts were merged (${compacted.stdout.trim()})`);
  s = await startServe(t, ['--config', config]);
  t.same(await read(s.port, admin), before, 'the same points after compaction');
  const again = await runCli(['store', 'compact', '--config', config]);
  t.equal(again.code, 1, 'running service refused again');
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
  const idle = await runCli(['store', 'compact', '--config', config]);
  t.match(idle.stdout, /merged 0 partial chunks/, 'nothing left to merge');
});

t.test('store compact refuses to expire by a shorter retention than the service last ran with', async (t) => {
  const dir = tempDir(t, 'gw-compact-ret-');
  const config = writeServeConfig(dir, 'storage:\n  retention:\n    raw: 30d\n');
  const data = join(dir, 'data');
  const s = await startServe(t, ['--config', config]);
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
  // the same data dir, but a config that keeps the defaults (raw: 2 d), as a forgotten --config finds
  const other = join(dir, 'other.yaml');
  writeFileSync(other, 'data_dir: ./data\nlog:\n  level: warn\n');
  const refused = await runCli(['store', 'compact', '--config', other]);
  t.equal(refused.code, 1, 'refused');
  t.match(refused.stderr, /keeps less than the service last did \(raw: 2 d where the service keeps 30 d\).*Nothing was changed/);
  t.equal((await runCli(['store', 'compact', '--config', config])).code, 0, 'the service\'s own config compacts');
  const forced = await runCli(['store', 'compact', '--config', other, '--shorter-retention']);
  t.equal(forced.code, 0, forced.stderr);
  t.match(forced.stdout, /expired \d+ chunks/);
});
