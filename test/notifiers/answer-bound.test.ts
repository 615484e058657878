// A receiver's answer costs a delivery a few kilobytes, however much it sends back: the
// built-in plugins read at most 4 KiB of it through context.post and cancel the rest, and
// context.post puts URLs a plugin builds itself through the outbound policy.
import t, { type Test } from 'tap';
import http from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';
import { ANSWER_BYTES, readAtMost } from '../../src/notifiers/post.js';

const HUGE = 256 * 1024 * 1024;
// a deadline far beyond the test: what ends the delivery must be the bound, not the timeout
const YAML = 'notifications:\n  timeout_ms: 10000\n';

interface HugeReceiver { url: string; answers: { status: number; finished: boolean; written: number }[] }

/** Answers every request with `status` and a 256 MiB body, written as fast as the client reads it. */
async function hugeReceiver(t: Test, status: number): Promise<HugeReceiver> {
  const answers: HugeReceiver['answers'] = [];
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = { status, finished: false, written: 0 };
      answers.push(answer);
      res.writeHead(status, { 'content-type': 'text/plain', 'content-length': String(HUGE) });
      res.on('finish', () => { answer.finished = true; });
      const pump = (): void => {
        while (answer.written < HUGE && !res.destroyed) {
          answer.written += chunk.length;
          if (!res.write(chunk)) { res.once('drain', pump); return; }
        }
        if (!res.destroyed) res.end();
      };
      pump();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, answers };
}

t.test('a webhook receiver answering 256 MiB: the delivery is sent and the rest of the answer never read', async (t) => {
  const s = await startTestServer(t, YAML);
  const hook = await hugeReceiver(t, 200);
  const id = (await s.request('POST', '/v1/services', { json: { title: 'hook', type: 'webhook', settings: { url: hook.url } } })).body.id;
  const test = await s.request('POST', `/v1/services/${id}/test`);
  t.match(test.body, { status: 'sent', error: null });
  t.equal(hook.answers.length, 1);
  t.equal(hook.answers[0]!.finished, false, 'the connection closed before the receiver could send its whole answer');
});

t.test('slack answering 500 with 256 MiB: the error quotes its start, the rest is never read', async (t) => {
  const s = await startTestServer(t, YAML);
  const hook = await hugeReceiver(t, 500);
  const id = (await s.request('POST', '/v1/services', { json: { title: 'slack', type: 'slack', settings: { url: hook.url } } })).body.id;
  const test = await s.request('POST', `/v1/services/${id}/test`);
  t.same([test.body.status, test.body.error], ['failed', `Slack answered HTTP 500: ${'x'.repeat(200)}`]);
  t.equal(hook.answers[0]!.finished, false);
});

t.test('a URL a plugin builds itself goes through the outbound policy', async (t) => {
  const dir = tempDir(t, 'gw-plugins-');
  mkdirSync(join(dir, 'metadata'));
  // a plugin whose settings hold no URL at all: only context.post can catch where it goes
  writeFileSync(join(dir, 'metadata', 'index.mjs'), [
    'export default { type: "metadata", async send(n, settings, ctx) {',
    '  const res = await ctx.post(`http://169.254.169.254/${settings.path}`, { headers: {}, body: "x" });',
    '  throw new Error(`posted: HTTP ${res.status}`);',
    '} };',
  ].join('\n'));
  writeFileSync(join(dir, 'metadata', 'settings.schema.json'), JSON.stringify({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }));
  const s = await startTestServer(t, `notifications:\n  plugin_dirs: ["${dir}"]\n`);
  const id = (await s.request('POST', '/v1/services', { json: { title: 'm', type: 'metadata', settings: { path: 'latest/meta-data' } } })).body.id;
  const test = await s.request('POST', `/v1/services/${id}/test`);
  t.equal(test.body.status, 'failed');
  t.match(test.body.error, /^the URL is refused: 169\.254\.169\.254 /);
});

t.test('readAtMost: a short body whole, a long one cut at the bound, a character cut in two replaced', async (t) => {
  t.equal(await readAtMost(new Response('short'), ANSWER_BYTES), 'short');
  t.equal(await readAtMost(new Response(null, { status: 204 }), ANSWER_BYTES), '');
  t.equal(await readAtMost(new Response('y'.repeat(10_000)), 100), 'y'.repeat(100));
  // 'é' is two bytes in UTF-8: 7 bytes hold three of them and half of a fourth
  t.equal(await readAtMost(new Response('é'.repeat(10)), 7), 'ééé\uFFFD');
  // a body cut short by the peer still gives what arrived
  const failing = new ReadableStream<Uint8Array>({
    start(c) { c.enqueue(new TextEncoder().encode('partial')); },
    pull(c) { c.error(new Error('reset')); },
  });
  t.equal(await readAtMost(new Response(failing), ANSWER_BYTES), 'partial');
});
