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
