// SIGHUP re-reads the config file: a bad file keeps the old configuration (log line,
// gauge 0); a good one applies rate limits, accounts and trust_proxy without a restart.
import t from 'tap';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { startTestServer } from '../helpers/server.js';
import { startServe, eventually } from '../helpers/cli.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';
import { httpsRequest, initialCredentials, selfSignedCa } from '../helpers/client.js';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function reloadGauge(metricsText: string): number {
  return Number(/^gaugeway_config_last_reload_successful (\S+)$/m.exec(metricsText)?.[1]);
}

t.test('in process: bad file kept out, good file applied', async (t) => {
  const s = await startTestServer(t, 'limits:\n  rate_limit:\n    std:\n      limit: 1000\n');
  const file = join(s.dataDir, 'config.yaml');
  const base = `data_dir: ${s.dataDir}\nlog:\n  level: silent\n`;

  writeFileSync(file, `${base}http:\n  listen: "127.0.0.1:0"\n  trust_proxy: maybe\n`);
  t.equal(await s.server.reload(), false);
  t.equal(reloadGauge((await s.get('/metrics', { auth: null })).text), 0, 'the failure shows in /metrics');
  const still = await s.get('/v1/metrics');
  t.equal(still.status, 200, 'the service keeps serving');
  t.match(still.headers['x-librato-ratelimit-std'], /^limit=1000,/, 'with the old rate limits');

  const token = 'reloaded-token';
  writeFileSync(file, [
    base,
    'http:\n  listen: "127.0.0.1:0"\n  trust_proxy: true',
    'limits:\n  body_bytes: 2048\n  rate_limit:\n    std:\n      limit: 3',
    'tls:\n  min_version: TLSv1.3',
    'storage:\n  retention_schedule: "5 4 * * *"',
    `accounts:\n  - email: new@example.com\n    token_sha256: ${sha256(token)}\n    role: viewer`,
  ].join('\n'));
  t.equal(await s.server.reload(), true);
  t.equal(reloadGauge((await s.get('/metrics', { auth: null })).text), 1);
  const newcomer = { user: 'new@example.com', password: token };
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await s.get('/v1/metrics', { auth: newcomer })).status);
  t.same(statuses, [200, 200, 200, 429], 'the new account authenticates and the new limit of 3 applies');
  t.equal((await s.get('/v1/metrics', { plain: true, headers: { 'x-forwarded-proto': 'https' } })).status, 200, 'trust_proxy applies');
  t.equal(s.server.rt.config.limits.body_bytes, 5242880, 'a restart-only key keeps its running value');
  t.equal(s.server.rt.retention.scheduled, '5 4 * * *', 'storage.retention_schedule applies without a restart');
  const tls12 = await new Promise<string>((resolve) => {
    const socket = tlsConnect({ port: s.port, host: '127.0.0.1', servername: 'localhost', ca: s.server.tls.ca, maxVersion: 'TLSv1.2' });
    socket.on('secureConnect', () => { socket.destroy(); resolve('connected'); });
    socket.on('error', (err) => resolve(err.message));
  });
  t.not(tls12, 'connected', 'tls.min_version applies to the self-signed certificate too');

  writeFileSync(file, `${base}http:\n  listen: "127.0.0.1:0"\n`);
  t.equal(await s.server.reload(), true);
  t.equal((await s.get('/v1/metrics', { auth: newcomer })).status, 401, 'a token removed from the file stops working');
  t.equal((await s.get('/v1/metrics', { plain: true, headers: { 'x-forwarded-proto': 'https' } })).status, 403);
});

t.test('SIGHUP on a gaugeway serve child', async (t) => {
  const dir = tempDir(t, 'gw-hup-');
  const file = writeServeConfig(dir);
  const good = readFileSync(file, 'utf8');
  const s = await startServe(t, ['--config', file]);
  const data = join(dir, 'data');
  const ca = selfSignedCa(data);
  const admin = initialCredentials(data);
  const scrape = async () => reloadGauge(await (await fetch(`http://127.0.0.1:${s.port}/metrics`)).text());

  writeFileSync(file, `${good}limits:\n  body_byts: 10\n`);
  s.child.kill('SIGHUP');
  const failure = await s.waitForLog(/reload failed/);
  t.match(String(failure.err), /body_byts.*did you mean "body_bytes"/, 'the log says why');
  t.equal(failure.level, 'error', 'at error level');
  t.equal(await scrape(), 0);
  t.equal((await httpsRequest(s.port, ca, 'GET', '/v1/metrics', { auth: admin })).status, 200, 'still serving');

  const token = 'hup-token';
  writeFileSync(file, `${good}accounts:\n  - email: hup@example.com\n    token_sha256: ${sha256(token)}\n`);
  s.child.kill('SIGHUP');
  await s.waitForLog(/configuration reloaded/);
  await eventually(async () => (await scrape()) === 1, 'the gauge to return to 1');
  t.equal((await httpsRequest(s.port, ca, 'GET', '/v1/metrics', { auth: { user: 'hup@example.com', password: token } })).status, 200);
  t.notOk(s.output().includes(token) || s.output().includes(admin.password), 'no token in the output');

  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
});

t.test('retention per tier and the ingest limits apply on reload', async (t) => {
  const s = await startTestServer(t);
  const file = join(s.dataDir, 'config.yaml');
  const base = `data_dir: ${s.dataDir}\nhttp:\n  listen: "127.0.0.1:0"\nlog:\n  level: silent\n`;
  const now = Math.floor(Date.now() / 1000);
  const rawQuery = `/v1/measurements/m?start_time=${now - 36 * 3600}&resolution=1`;
  t.equal((await s.request('POST', '/v1/measurements', { json: { measurements: [{ name: 'm', value: 1, tags: { h: 'a' } }] } })).status, 200);
  t.equal((await s.get(rawQuery)).status, 200, 'raw data 36 h back is within the default 2 days');
  writeFileSync(file, `${base}storage:\n  retention:\n    raw: 1d\nlimits:\n  new_series_per_hour: 1\n`);
  t.equal(await s.server.reload(), true);
  const refused = await s.get(rawQuery);
  t.equal(refused.status, 400, 'raw retention of one day applies at once to queries');
  t.match(refused.body, { errors: { request: [/resolution is unavailable/] } });
  const limited = await s.request('POST', '/v1/measurements', { json: { measurements: [{ name: 'm', value: 1, tags: { h: 'b' } }] } });
  t.equal(limited.status, 429, 'the new limit applies at once (one series already created this hour)');
  t.equal((await s.server.rt.retention.lastServed())?.raw, 86400, 'the store records the retention now served (store compact checks it)');
});

t.test('a mail CA file that is not a readable certificate stops a start and fails a reload, naming it', async (t) => {
  const { loadConfig } = await import('../../src/config/load.js');
  const { startServer } = await import('../../src/server.js');
  const { createLogger } = await import('../../src/log.js');
  const dir = tempDir(t, 'gw-mail-ca-');
  const file = join(dir, 'config.yaml');
  const base = `data_dir: ${join(dir, 'data')}\nlog:\n  level: silent\nhttp:\n  listen: "127.0.0.1:0"\n`;
  writeFileSync(file, `${base}notifications:\n  mail:\n    ca_file: missing-ca.pem\n`);
  await t.rejects(startServer(loadConfig({ file, env: {} }), createLogger('silent')), { code: 'E_CONFIG_INVALID', message: /notifications\.mail\.ca_file: cannot read .*missing-ca\.pem: ENOENT/ }, 'the start is refused');

  const s = await startTestServer(t);
  const live = join(s.dataDir, 'config.yaml');
  const running = `data_dir: ${s.dataDir}\nlog:\n  level: silent\nhttp:\n  listen: "127.0.0.1:0"\n`;
  writeFileSync(join(s.dataDir, 'not-a-ca.pem'), 'not a certificate\n');
  writeFileSync(live, `${running}notifications:\n  mail:\n    ca_file: not-a-ca.pem\n    from: new@example.com\n`);
  t.equal(await s.server.reload(), false, 'the reload fails');
  t.equal(s.server.rt.config.notifications.mail.ca_file, null, 'and the previous configuration stays, its CA file included');
  t.not(s.server.rt.config.notifications.mail.from, 'new@example.com');
});
