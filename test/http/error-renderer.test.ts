// The error renderer on its own, in a bare Koa app on loopback: what fails while the
// answer is being written still gets the errors envelope, not Koa's plain-text 500.
import t, { type Test } from 'tap';
import Koa from 'koa';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorRenderer } from '../../src/http/errors.js';
import { createLogger } from '../../src/log.js';
import { SelfMetrics } from '../../src/selfmetrics.js';
import type { Middleware } from '../../src/http/state.js';

async function serve(t: Test, answer: Middleware): Promise<string> {
  const app = new Koa();
  app.silent = true;
  app.use(errorRenderer(createLogger('fatal'), new SelfMetrics()) as Koa.Middleware);
  app.use(answer as Koa.Middleware);
  const server = http.createServer(app.callback());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  t.teardown(() => new Promise<void>((done) => server.close(() => done())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test('an answer that cannot be serialized is a 500 with the envelope', async (t) => {
  const url = await serve(t, async (ctx) => { ctx.body = { big: 1n }; });
  const r = await fetch(url);
  t.equal(r.status, 500);
  t.match(r.headers.get('content-type'), /^application\/json/);
  t.same(await r.json(), { errors: { system: ['Internal error; the service log has details'] } });
});

t.test('objects are still answered as JSON, with their status; text and buffers as they are', async (t) => {
  const url = await serve(t, async (ctx) => {
    if (ctx.path === '/created') { ctx.status = 201; ctx.body = { id: 1 }; }
    else if (ctx.path === '/text') ctx.body = 'plain';
    else if (ctx.path === '/empty') ctx.status = 204;
    else ctx.body = [1, 'a'];
  });
  const created = await fetch(`${url}/created`);
  t.equal(created.status, 201);
  t.match(created.headers.get('content-type'), /^application\/json; charset=utf-8/);
  t.same(await created.json(), { id: 1 });
  t.same(await (await fetch(`${url}/list`)).json(), [1, 'a']);
  const text = await fetch(`${url}/text`);
  t.match(text.headers.get('content-type'), /^text\/plain/);
  t.equal(await text.text(), 'plain');
  t.equal((await fetch(`${url}/empty`)).status, 204);
});
