// Redirects of a scrape target, as Prometheus's client follows them: at most 10, within
// the one timeout, the job's credentials only to the target's own host.
import t from 'tap';
import http from 'node:http';
import { fetchExposition } from '../../src/scrape/fetch.js';

async function serve(t: { teardown(fn: () => Promise<void>): void }, handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

const job = { basicAuth: { username: 'scraper', password: 'pw', passwordFile: null }, authorization: null, tls: null, bodySizeLimit: 0 };

t.test('a redirect is followed; the credentials go to the target\'s host only', async (t) => {
  const seen: Record<string, string | undefined> = {};
  const other = await serve(t, (req, res) => { seen.other = req.headers.authorization; res.end('b 2\n'); });
  const origin = await serve(t, (req, res) => {
    seen[req.url!] = req.headers.authorization;
    if (req.url === '/metrics') { res.writeHead(302, { location: '/real' }); res.end(); return; }
    if (req.url === '/real') { res.end('a 1\n'); return; }
    if (req.url === '/away') { res.writeHead(307, { location: `${other}/metrics` }); res.end(); return; }
    if (req.url === '/loop') { res.writeHead(301, { location: '/loop' }); res.end(); return; }
    res.writeHead(308, { location: 'ftp://127.0.0.1/x' });
    res.end();
  });
  const a = await fetchExposition(`${origin}/metrics`, job, 5000);
  t.equal(a.body.toString(), 'a 1\n', 'the exposition at the Location');
  t.match(seen['/real'], /^Basic /, 'credentials on the same host');
  const b = await fetchExposition(`${origin}/away`, job, 5000);
  t.equal(b.body.toString(), 'b 2\n');
  t.equal(seen.other, undefined, 'none to another host');
  await t.rejects(fetchExposition(`${origin}/loop`, job, 5000), { message: 'server returned HTTP status 301: stopped after 10 redirects' });
  await t.rejects(fetchExposition(`${origin}/ftp`, job, 5000), { message: /HTTP status 308 to ftp: \(only http and https are scraped\)/ });
  await t.rejects(fetchExposition(`${origin}/metrics`, { ...job, followRedirects: false }, 5000), { message: 'server returned HTTP status 302 (follow_redirects is false)' });
});
