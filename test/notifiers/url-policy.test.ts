// The outbound URL policy: schemes, default refusals (link-local, cloud metadata, by
// address and by the addresses a name resolves to), operator allow and deny rules, and
// its use by /v1/services.
import t from 'tap';
import { UrlPolicy, type OutboundRules } from '../../src/notifiers/url-policy.js';
import { outboundEntryProblem } from '../../src/match/address.js';
import { startTestServer } from '../helpers/server.js';

const dns: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'rebind.example.com': ['10.0.0.5', '169.254.169.254'],
  'mapped.example.com': ['::ffff:169.254.169.254'],
  'intranet.corp': ['10.1.2.3'],
};
const policy = (rules: Partial<OutboundRules> = {}) => new UrlPolicy(() => ({ allow: [], deny: [], ...rules }), async (host) => dns[host] ?? []);

t.test('defaults: http(s) only; link-local and metadata refused; private addresses allowed', async (t) => {
  const p = policy();
  t.equal(p.check('ftp://example.com/'), 'must be an http or https URL');
  t.equal(p.check('not a url'), 'is not a valid URL');
  t.match(p.check('http://169.254.169.254/latest/meta-data/'), /^is refused: 169\.254\.169\.254 is a link-local or cloud metadata address/);
  t.match(p.check('http://[fe80::1]/'), /is refused: fe80::1/);
  t.match(p.check('http://[fd00:ec2::254]/'), /is refused/);
  t.match(p.check('http://metadata.google.internal/'), /cloud metadata endpoint/);
  t.equal(p.check('http://10.0.0.5:8080/hook'), null, 'on-premise receivers are normal');
  t.equal(p.check('http://127.0.0.1/'), null);
  t.equal(await p.checkResolved('https://hooks.example.com/x'), null);
  t.match(await p.checkResolved('https://rebind.example.com/x'), /^is refused: rebind\.example\.com resolves to 169\.254\.169\.254/, 'checked on every resolved address');
  t.match(await p.checkResolved('https://mapped.example.com/x'), /resolves to ::ffff:169\.254\.169\.254/);
});

t.test('a resolver that never answers is given up on, and the URL refused for now', async (t) => {
  const p = new UrlPolicy(() => ({ allow: [], deny: [] }), () => new Promise<string[]>(() => {}), 50);
  t.equal(await p.checkResolved('https://hooks.example.com/x'), 'is refused for now: hooks.example.com did not resolve within 50 ms');
  t.equal(p.check('https://hooks.example.com/x'), null, 'the check without resolving is unchanged');
});

t.test('operator rules: deny wins, allow re-opens a default refusal; entries are checked', async (t) => {
  const p = policy({ allow: ['169.254.169.254', 'rebind.example.com'], deny: ['10.1.0.0/16', '*.example.org'] });
  t.equal(p.check('http://169.254.169.254/'), null);
  t.match(p.check('http://169.254.1.1/'), /is refused/, 'only the allowed address');
  t.equal(await p.checkResolved('https://rebind.example.com/'), null, 'an allowed name is not resolved');
  t.match(p.check('http://hooks.example.org/'), /denied by notifications\.outbound\.deny/);
  t.match(await p.checkResolved('http://intranet.corp/'), /resolves to 10\.1\.2\.3; 10\.1\.2\.3 is denied/);
  t.equal(outboundEntryProblem('*.example.com'), null);
  t.equal(outboundEntryProblem('10.0.0.0/8'), null);
  t.equal(outboundEntryProblem('10.0.0.0/33'), '"10.0.0.0/33": the prefix length must be 0-32');
  t.equal(outboundEntryProblem('exa mple'), '"exa mple" is not an address, a CIDR block or a host name');
});

t.test('services: a refused URL is a 400 under its setting; the config names a bad rule', async (t) => {
  const s = await startTestServer(t, 'notifications:\n  outbound:\n    deny: ["*.blocked.example"]');
  const post = (url: string) => s.request('POST', '/v1/services', { json: { title: 'x', type: 'webhook', settings: { url } } });
  t.same((await post('http://169.254.169.254/')).body, { errors: { params: { 'settings.url': ['is refused: 169.254.169.254 is a link-local or cloud metadata address (allow it in notifications.outbound.allow)'] } } });
  t.same((await post('https://a.blocked.example/')).body, { errors: { params: { 'settings.url': ['is refused: a.blocked.example is denied by notifications.outbound.deny'] } } });
  t.equal((await post('http://10.0.0.1/hook')).status, 201);
  const { loadConfig } = await import('../../src/config/load.js');
  const { writeFileSync, mkdtempSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'gw-cfg-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'c.yaml');
  writeFileSync(file, 'notifications:\n  outbound:\n    allow:\n      - "bad entry"\n');
  t.throws(() => loadConfig({ file, env: {} }), /notifications\.outbound\.allow\[0\]: "bad entry" is not an address/);
});
