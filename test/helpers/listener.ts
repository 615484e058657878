// A real HTTP receiver on loopback for notifications: records every request, answers
// with `status` (changeable, to play a receiver that is down).
import type { Test } from 'tap';
import http from 'node:http';

export interface Received { method: string; url: string; headers: http.IncomingHttpHeaders; body: string; /** what it was answered */ status: number }

export async function listener(t: Test, status = 200): Promise<{ url: string; received: Received[]; setStatus(s: number): void }> {
  const received: Received[] = [];
  let answer = status;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => { received.push({ method: req.method!, url: req.url!, headers: req.headers, body, status: answer }); res.statusCode = answer; res.end('ok'); });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, received, setStatus: (s) => { answer = s; } };
}
