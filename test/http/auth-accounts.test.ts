// The admin API's account and token operations (src/auth/admin-operations.ts), run on a
// server's account directory as the admin socket runs them: a refused request writes
// nothing, and every account they create can sign in.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { findOperation } from '../../src/auth/admin-operations.js';

t.test('an account create refused for its token name creates no account', async (t) => {
  const s = await startTestServer(t);
  const accounts = s.server.rt.accounts;
  const create = findOperation('POST', '/accounts')!.op;
  await t.rejects(create.run(accounts, {}, { email: 'new@example.com', token_name: 'has space' }), { kind: 'invalid', message: /token name/ });
  t.equal(accounts.findAccount('new@example.com'), undefined, 'nothing was written');
  // the corrected retry is not told the account already exists
  const created = await create.run(accounts, {}, { email: 'new@example.com', token_name: 'laptop' }) as { secret: string };
  t.equal((await s.get('/v1/metrics', { auth: { user: 'new@example.com', password: created.secret } })).status, 200);
});

t.test("an e-mail with ':' or a control character is refused: Basic auth could never name it", async (t) => {
  const s = await startTestServer(t);
  const accounts = s.server.rt.accounts;
  const create = findOperation('POST', '/accounts')!.op;
  for (const email of ['ops:team@example.com', 'ops@example.com:8443', 'ops\u0000@example.com', 'ops\u007f@example.com']) {
    await t.rejects(create.run(accounts, {}, { email }), { kind: 'invalid', message: /not an e-mail address/ }, JSON.stringify(email));
    t.equal(accounts.findAccount(email), undefined, JSON.stringify(email));
  }
  // a config file naming one changes nothing, not even the accounts listed before it
  await t.rejects(accounts.applyConfig([
    { email: 'fine@example.com', token_sha256: 'a'.repeat(64), role: 'admin', name: 'config' },
    { email: 'a:b@example.com', token_sha256: 'b'.repeat(64), role: 'admin', name: 'config' },
  ]), { kind: 'invalid' });
  t.equal(accounts.findAccount('fine@example.com'), undefined);
  const ok = await create.run(accounts, {}, { email: 'ops+team@example.com' }) as { secret: string };
  t.equal((await s.get('/v1/metrics', { auth: { user: 'ops+team@example.com', password: ok.secret } })).status, 200);
});

t.test('changes at the same moment cannot make two accounts of one e-mail or two tokens of one name', async (t) => {
  const s = await startTestServer(t);
  const accounts = s.server.rt.accounts;
  const both = await Promise.allSettled([accounts.createAccount('twice@example.com'), accounts.createAccount('Twice@example.com')]);
  t.same(both.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  t.equal(accounts.listAccounts().filter((a) => a.email === 'twice@example.com').length, 1);
  const tokens = await Promise.allSettled([accounts.createToken('twice@example.com', 'ci', 'admin'), accounts.createToken('twice@example.com', 'ci', 'viewer')]);
  t.same(tokens.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
  t.same(accounts.listTokens('twice@example.com').map((x) => x.name), ['ci']);
  // a config reload at the same moment as a create of its e-mail: still one account
  await Promise.allSettled([
    accounts.createAccount('cfg@example.com'),
    accounts.applyConfig([{ email: 'cfg@example.com', token_sha256: 'c'.repeat(64), role: 'viewer', name: 'config' }]),
  ]);
  t.equal(accounts.listAccounts().filter((a) => a.email === 'cfg@example.com').length, 1);
});
