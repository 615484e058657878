// `gaugeway serve` as a child: flags beat the environment, which beats the file.
import t from 'tap';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, startServe } from '../helpers/cli.js';
import { httpsRequest, initialCredentials, selfSignedCa } from '../helpers/client.js';
import { tempDir } from '../helpers/tmp.js';

t.test('--listen and --data-dir beat GAUGEWAY_* variables, which beat the file', async (t) => {
  const dir = tempDir(t, 'gw-serve-');
  const file = join(dir, 'config.yaml');
  // Ports 1 and 2 would fail to bind (or belong to something else): only the flag's 0 works.
  writeFileSync(file, 'data_dir: ./from-file\nhttp:\n  listen: 127.0.0.1:1\nlog:\n  level: warn\n');
  const s = await startServe(t, ['--config', file, '--listen', '127.0.0.1:0', '--data-dir', join(dir, 'from-flag')], {
    GAUGEWAY_HTTP__LISTEN: '127.0.0.1:2',
    GAUGEWAY_LOG__LEVEL: 'info', // the "listening" line is info: the environment beat the file's warn
    GAUGEWAY_DATA_DIR: join(dir, 'from-env'),
  });
  t.ok(s.port > 2, 'listening on the ephemeral port from --listen');
  t.ok(existsSync(join(dir, 'from-flag', 'initial-credentials')), 'data in the --data-dir folder');
  t.notOk(existsSync(join(dir, 'from-env')));
  t.notOk(existsSync(join(dir, 'from-file')));
  const data = join(dir, 'from-flag');
  const r = await httpsRequest(s.port, selfSignedCa(data), 'GET', '/v1/metrics', { auth: initialCredentials(data) });
  t.equal(r.status, 200);
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
});

t.test('a SIGTERM during the start stops the service cleanly once it is up', async (t) => {
  const dir = tempDir(t, 'gw-serve-');
  const file = join(dir, 'config.yaml');
  writeFileSync(file, 'data_dir: ./data\nhttp:\n  listen: 127.0.0.1:0\nlog:\n  level: info\n');
  const s = await startServe(t, ['--config', file], {}, /starting gaugeway/);
  s.child.kill('SIGTERM'); // while it opens the store, makes its certificate and account
  t.same(await s.exited, { code: 0, signal: null }, 'it exited by itself, with status 0');
  const messages = s.logs.map((l) => l.msg);
  t.ok(messages.indexOf('gaugeway stopped') > messages.findIndex((m) => /listening/.test(String(m))), 'after it was up, through the whole shutdown');
});

t.test('an invalid config stops serve before it starts, with the problems on stderr', async (t) => {
  const dir = tempDir(t, 'gw-serve-');
  const file = join(dir, 'config.yaml');
  writeFileSync(file, 'data_dir: ./data\nhttp:\n  listen: 127.0.0.1:0\n  max_conections: 5\n');
  const r = await runCli(['serve', '--config', file]);
  t.equal(r.code, 1);
  t.match(r.stderr, `${file}:4: http.max_conections: unknown key "max_conections" (did you mean "max_connections"?)`);
  t.notOk(existsSync(join(dir, 'data')), 'nothing was created');
});

t.test('a second serve on the same data dir refuses, naming the reason', async (t) => {
  const dir = tempDir(t, 'gw-serve-');
  const file = join(dir, 'config.yaml');
  writeFileSync(file, 'data_dir: ./data\nhttp:\n  listen: 127.0.0.1:0\n');
  const s = await startServe(t, ['--config', file]);
  const second = await runCli(['serve', '--config', file]);
  t.equal(second.code, 1);
  const fatal = second.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.level === 'fatal');
  t.match(fatal?.msg, /in use by another process \(is gaugeway already running\?\)/, 'a fatal line in the log');
  s.child.kill('SIGTERM');
  t.same(await s.exited, { code: 0, signal: null });
});

t.test('a busy port is found before anything is written, and the log says what to do', async (t) => {
  const { createServer } = await import('node:net');
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => blocker.close(() => r())));
  const port = (blocker.address() as { port: number }).port;
  const dir = tempDir(t, 'gw-serve-');
  const file = join(dir, 'config.yaml');
  writeFileSync(file, `data_dir: ./data\nhttp:\n  listen: 127.0.0.1:${port}\n`);
  const r = await runCli(['serve', '--config', file]);
  t.equal(r.code, 1);
  // (under systemd it carries priority 2, crit: test/log.test.ts)
  const fatal = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((l) => l.level === 'fatal');
  t.ok(fatal, 'a fatal log line');
  t.match(fatal.msg, `port ${port} on 127.0.0.1 is in use by another process`);
  t.match(fatal.msg, /http\.listen or --listen/);
  t.equal(r.stderr, '', 'nothing on stderr');
  t.notOk(existsSync(join(dir, 'data')), 'no data dir was created');
});
