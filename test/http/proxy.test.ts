// Behind a proxy: http.trust_proxy as a list of addresses and CIDR blocks, and
// http.external_url for the Location headers Gaugeway sends.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { proxyEntryProblem, proxyTrust } from '../../src/match/address.js';
import { parseConfig, ConfigError, formatProblem } from '../../src/config/load.js';

t.test('addresses and CIDR blocks, IPv4 and IPv6', async (t) => {
  const trusts = proxyTrust(['127.0.0.1', '10.0.0.0/8', 'fd00::/8', '2001:db8::1']);
  for (const a of ['127.0.0.1', '10.1.2.3', '::ffff:10.9.9.9', 'fd12::1', '2001:db8::1']) t.ok(trusts(a), `${a} trusted`);
  for (const a of ['127.0.0.2', '11.0.0.1', '::1', 'fe80::1', '2001:db8::2', undefined]) t.notOk(trusts(a), `${String(a)} not trusted`);
  t.ok(proxyTrust(true)('203.0.113.9'));
  t.notOk(proxyTrust(false)('127.0.0.1'));
  t.notOk(proxyTrust([])('127.0.0.1'));
  t.equal(proxyEntryProblem('10.0.0.0/33'), '"10.0.0.0/33": the prefix length must be 0-32');
  t.equal(proxyEntryProblem('fd00::/129'), '"fd00::/129": the prefix length must be 0-128');
  t.equal(proxyEntryProblem('proxy.local'), '"proxy.local" is not an IP address or CIDR block');
  t.equal(proxyEntryProblem('::1'), null);
});

t.test('config: bad entries are named with their line; external_url must be an http(s) URL', async (t) => {
  const problems = (text: string) => {
    try { parseConfig(text, '/c.yaml', {}); return []; } catch (err) { return (err as ConfigError).problems.map(formatProblem); }
  };
  t.same(problems('http:\n  trust_proxy:\n    - 127.0.0.1\n    - 10.0.0.0/33\n'), ['/c.yaml:4: http.trust_proxy[1]: "10.0.0.0/33": the prefix length must be 0-32']);
  t.same(problems('http:\n  trust_proxy: ["::1", "fd00::/8"]\n'), []);
  t.equal(problems('http:\n  external_url: ftp://example.com\n').length, 1);
  t.same(problems('http:\n  external_url: https://metrics.example.com/gw\n'), []);
});

t.test('a listed proxy may mark requests HTTPS; any other peer may not', async (t) => {
  const trusted = await startTestServer(t, 'http:\n  listen: "127.0.0.1:0"\n  trust_proxy: ["127.0.0.1", "fd00::/8"]\n');
  const r = await trusted.get('/v1/metrics', { plain: true, headers: { 'x-forwarded-proto': 'https' } });
  t.equal(r.status, 200, 'the proxy at 127.0.0.1 is listed');
  t.equal((await trusted.get('/v1/metrics', { plain: true })).status, 403, 'without the header: plain HTTP');
  const other = await startTestServer(t, 'http:\n  listen: "127.0.0.1:0"\n  trust_proxy: ["10.0.0.0/8"]\n');
  const refused = await other.get('/v1/metrics', { plain: true, headers: { 'x-forwarded-proto': 'https' } });
  t.equal(refused.status, 403, 'a peer outside the list cannot claim HTTPS');
  t.same(refused.body, { errors: { request: ['Please use secured connection through https!'] } });
});

t.test('external_url builds the Location headers', async (t) => {
  const s = await startTestServer(t, 'http:\n  listen: "127.0.0.1:0"\n  external_url: https://metrics.example.com/gw/\n');
  const created = await s.request('PUT', '/v1/metrics/ext.metric', { json: {} });
  t.equal(created.status, 201);
  t.equal(created.headers.location, 'https://metrics.example.com/gw/v1/metrics/ext.metric');
  const space = await s.request('POST', '/v1/spaces', { json: { name: 'ext' } });
  t.equal(space.headers.location, `https://metrics.example.com/gw/v1/spaces/${space.body.id}`);
  // answers without a Location are left alone (they once failed with a 500 here)
  t.equal((await s.get('/v1/metrics/ext.metric')).status, 200);
  t.equal((await s.request('PUT', '/v1/metrics/ext.metric', { json: { description: 'd' } })).status, 204);
  const plain = await startTestServer(t);
  t.equal((await plain.request('PUT', '/v1/metrics/ext.metric', { json: {} })).headers.location, '/v1/metrics/ext.metric', 'unset: paths as before');

  // the next page of a series read: a generic client follows the href as given
  const time = Math.floor(Date.now() / 1000) - 120;
  for (const server of [s, plain]) {
    const posted = await server.request('POST', '/v1/measurements', { json: { time, measurements: Array.from({ length: 101 }, (_, i) => ({ name: 'paged', value: i, tags: { host: `h${i}` } })) } });
    t.equal(posted.status, 200, posted.text);
  }
  const next = async (server: typeof s) => (await server.get(`/v1/measurements/paged?start_time=${time}&end_time=${time}&resolution=1`)).body.links.find((l: { rel: string }) => l.rel === 'next').href as string;
  t.match(await next(s), /^https:\/\/metrics\.example\.com\/gw\/v1\/measurements\/paged\?/, 'under external_url');
  t.match(await next(plain), /^\/v1\/measurements\/paged\?/, 'unset: a path');
});
