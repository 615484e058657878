import t from 'tap';
import { captureLog } from './helpers/capture-log.js';

t.test('the logger redacts credentials wherever a caller puts them', async (t) => {
  const log = captureLog('debug');
  const secret = 'Basic c2VjcmV0OnNlY3JldA==';
  log.logger.info({ req: { headers: { authorization: secret, host: 'x' } } }, 'request');
  log.logger.info({ headers: { authorization: secret } }, 'headers');
  log.logger.info({ token: 'tok-1', account: { token: 'tok-2', password: 'pw-1' }, password: 'pw-2' }, 'fields');
  const text = log.text();
  for (const leaked of [secret, 'tok-1', 'tok-2', 'pw-1', 'pw-2']) t.notOk(text.includes(leaked), `no ${leaked}`);
  const [first] = log.lines();
  t.match(first, { service: 'gaugeway', msg: 'request', req: { headers: { authorization: '[redacted]', host: 'x' } } });
});

t.test('lines carry level names and ISO times', async (t) => {
  const log = captureLog('info');
  log.logger.error({ code: 1 }, 'broken');
  const [line] = log.lines();
  t.equal(line!.level, 'error');
  t.match(line!.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

t.test('under systemd each line starts with its syslog priority', async (t) => {
  const { Writable } = await import('node:stream');
  const { createLogger } = await import('../src/log.js');
  let text = '';
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { text += chunk.toString('utf8'); done(); } });
  const logger = createLogger('debug', sink, { journal: true });
  logger.fatal('f'); logger.error('e'); logger.warn('w'); logger.info('i'); logger.debug('d');
  logger.child({ component: 'x' }).error('child');
  const lines = text.split('\n').filter(Boolean);
  t.same(lines.map((l) => l.slice(0, 3)), ['<2>', '<3>', '<4>', '<6>', '<7>', '<3>']);
  t.same(lines.map((l) => JSON.parse(l.slice(3)).msg), ['f', 'e', 'w', 'i', 'd', 'child'], 'the rest of the line is the JSON');
});

t.test('the priority prefix only when standard output really is the stream JOURNAL_STREAM names', async (t) => {
  const { spawn } = await import('node:child_process');
  const { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const dir = mkdtempSync(join(tmpdir(), 'gw-journal-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const logModule = fileURLToPath(new URL('../dist/log.js', import.meta.url));
  /** what one info line looks like when the logger's stdout is a file, with JOURNAL_STREAM as given */
  const lineWith = async (journalStream: (file: { dev: bigint; ino: bigint }) => string): Promise<string> => {
    const path = join(dir, `out-${Math.random()}`);
    const fd = openSync(path, 'w');
    const stat = fstatSync(fd, { bigint: true });
    const child = spawn(process.execPath, ['--input-type=module', '-e', `(await import(${JSON.stringify(logModule)})).createLogger('info').info('hello')`], {
      stdio: ['ignore', fd, 'inherit'], env: { ...process.env, JOURNAL_STREAM: journalStream(stat) },
    });
    await new Promise((resolve) => child.on('close', resolve));
    closeSync(fd);
    return readFileSync(path, 'utf8');
  };
  t.match(await lineWith(() => '8:12345'), /^\{"level":"info"/, 'inherited from a unit, stdout elsewhere: plain JSON');
  t.match(await lineWith((f) => `${f.dev}:${f.ino}`), /^<6>\{"level":"info"/, 'stdout is the named stream: prefixed');
});
