// Refusals the service means (507 with the disk full or below its floor, 503 while storage
// is reopened) are logged once a minute per kind, at warn, without a stack; real failures
// still get an error line with the stack, each.
import t from 'tap';
import Koa from 'koa';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ApiError } from '../../src/errors.js';
import { errorRenderer } from '../../src/http/errors.js';
import { RefusalLog } from '../../src/http/refusal-log.js';
import { SelfMetrics } from '../../src/selfmetrics.js';
import { captureLog, startLogged } from '../helpers/capture-log.js';
import { httpsRequest, initialCredentials } from '../helpers/client.js';
import { tempDir } from '../helpers/tmp.js';

t.test('one line per kind of refusal a minute, counting the ones between', async (t) => {
  const log = captureLog();
  let now = 1_000_000;
  const refusals = new RefusalLog(log.logger, () => now);
  for (let i = 0; i < 5; i++) refusals.refused(507, 'disk full', '/v1/measurements', `r${i}`);
  refusals.refused(503, 'reopening', '/v1/metrics', 'x');
  now += 59_999;
  refusals.refused(507, 'disk full', '/v1/measurements', 'r5');
  now += 1;
  refusals.refused(507, 'disk full', '/v1/measurements', 'r6');
  t.same(log.lines().map((l) => [l.level, l.status, l.refused, l.requestId]), [
    ['warn', 507, 1, 'r0'],
    ['warn', 503, 1, 'x'],
    ['warn', 507, 6, 'r6'],
  ]);
  t.notMatch(log.text(), /stack/);
});

t.test('writes refused below the disk floor: no error line per request', async (t) => {
  const dir = tempDir(t, 'gw-refusals-');
  const { server, log } = await startLogged(t, dir);
  const admin = initialCredentials(join(dir, 'data'));
  const write = (i: number) => httpsRequest(server.port, server.tls.ca, 'POST', '/v1/measurements', { auth: admin, json: { measurements: [{ name: 'm', value: i, tags: { h: 'a' } }] } });
  t.equal((await write(0)).status, 200);
  server.rt.disk.setFloor(Number.MAX_SAFE_INTEGER);
  await server.rt.disk.check();
  for (let i = 1; i <= 20; i++) t.equal((await write(i)).status, 507);
  const lines = log.lines();
  t.same(lines.filter((l) => l.msg === 'request failed'), [], 'no error line for an answer the service meant');
  const refused = lines.filter((l) => /^requests refused/.test(String(l.msg)));
  t.equal(refused.length, 1, 'one line for the twenty');
  t.match(refused[0], { level: 'warn', status: 507, refused: 1, path: '/v1/measurements' });
  t.notOk('err' in refused[0]!, 'no error object, so no stack');
});

t.test('a real failure is still an error line with its stack, every time', async (t) => {
  const log = captureLog();
  const app = new Koa();
  app.silent = true;
  app.use(errorRenderer(log.logger, new SelfMetrics()) as Koa.Middleware);
  app.use(async (ctx) => {
    if (ctx.path === '/bug') throw new Error('a bug');
    throw new ApiError(503, { system: ['storage is being reopened'] });
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  t.teardown(() => new Promise<void>((done) => server.close(() => done())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (let i = 0; i < 3; i++) {
    t.equal((await fetch(`${url}/bug`)).status, 500);
    t.equal((await fetch(`${url}/refused`)).status, 503);
  }
  const failed = log.lines().filter((l) => l.msg === 'request failed');
  t.equal(failed.length, 3);
  t.match(failed[0], { level: 'error', err: { message: 'a bug', stack: /Error: a bug/ } });
  t.equal(log.lines().filter((l) => /^requests refused/.test(String(l.msg))).length, 1);
});
