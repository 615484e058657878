// The admin API on a Unix socket in the data dir (mode 0600): the CLI manages accounts
// and tokens through it while the service runs, since LevelDB admits one process.
// Reaching the socket at all needs the service user's (or root's) file permissions,
// which is the authentication.
import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { AccountError, type AccountDirectory } from '../auth/accounts.js';
import type { Role } from '../config/types.js';

const ROLES = new Set<Role>(['admin', 'recorder', 'viewer']);

export function buildAdminApp(accounts: () => AccountDirectory): Koa {
  const app = new Koa();
  app.silent = true;
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const status = err instanceof AccountError ? { not_found: 404, exists: 422, invalid: 400 }[err.kind] : 500;
      ctx.status = status;
      ctx.body = { errors: { request: [status === 500 ? 'internal error' : (err as Error).message] } };
    }
  });
  app.use(koaBody({ json: true, urlencoded: false, multipart: false, jsonLimit: 65536 }));
  const r = new Router();
  const input = (ctx: Koa.Context) => (ctx.request as unknown as { body: Record<string, unknown> }).body ?? {};
  const role = (v: unknown): Role => {
    const x = (v ?? 'admin') as Role;
    if (!ROLES.has(x)) throw new AccountError('invalid', 'role must be admin, recorder or viewer');
    return x;
  };

  r.get('/accounts', (ctx) => { ctx.body = accounts().listAccounts(); });
  r.post('/accounts', async (ctx) => {
    const { email, token_name } = input(ctx);
    const account = await accounts().createAccount(String(email ?? ''));
    const created = await accounts().createToken(account.email, String(token_name ?? 'default'), role(input(ctx).role));
    ctx.status = 201;
    ctx.body = { account, token: created.token, secret: created.secret };
  });
  for (const action of ['enable', 'disable']) {
    r.post(`/accounts/:email/${action}`, async (ctx) => {
      ctx.body = await accounts().setAccountActive(ctx.params.email!, action === 'enable');
    });
    r.post(`/accounts/:email/tokens/:name/${action}`, async (ctx) => {
      ctx.body = await accounts().setTokenActive(ctx.params.email!, ctx.params.name!, action === 'enable');
    });
  }
  r.get('/accounts/:email/tokens', (ctx) => { ctx.body = accounts().listTokens(ctx.params.email!); });
  r.post('/accounts/:email/tokens', async (ctx) => {
    const { name } = input(ctx);
    ctx.status = 201;
    ctx.body = await accounts().createToken(ctx.params.email!, String(name ?? ''), role(input(ctx).role));
  });
  r.post('/accounts/:email/tokens/:name/rotate', async (ctx) => {
    ctx.body = await accounts().rotateToken(ctx.params.email!, ctx.params.name!);
  });
  app.use(r.routes());
  app.use(r.allowedMethods());
  return app;
}
