// The admin API on a Unix socket in the data dir (mode 0600): the CLI manages accounts
// and tokens through it while the service runs, since LevelDB admits one process.
// Reaching the socket at all needs the service user's (or root's) file permissions,
// which is the authentication.
import Koa from 'koa';
import { Readable } from 'node:stream';
import { koaBody } from 'koa-body';
import { AccountError, type AccountDirectory } from '../auth/accounts.js';
import { findOperation } from '../auth/admin-operations.js';
import { GaugewayError } from '../errors.js';
import type { Logger } from '../log.js';

/** What the admin socket offers beyond accounts and tokens, while the service runs. */
export interface AdminExtras {
  /** the database as frames (store/snapshot.ts), for `gaugeway backup`: the CLI writes the files, as its own user */
  snapshot?: () => AsyncIterable<Buffer>;
  /** `gaugeway export` / `import` */
  exportDefinitions?: () => Promise<unknown>;
  importDefinitions?: (body: unknown) => Promise<unknown>;
}

export function buildAdminApp(accounts: () => AccountDirectory, log: Logger, extras: AdminExtras = {}): Koa {
  const { snapshot } = extras;
  const app = new Koa();
  app.silent = true;
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const e = err as { status?: number; message: string };
      const status = err instanceof AccountError ? { not_found: 404, exists: 422, invalid: 400 }[err.kind]
        : e.status && e.status >= 400 && e.status < 500 ? e.status : 500;
      if (status === 500) log.error({ err }, 'admin API request failed');
      ctx.status = status;
      ctx.body = { errors: { request: [status === 500 ? 'internal error; the service log has details' : e.message] } };
    }
  });
  // (definitions files can be large: the socket is reachable by root and the service user only)
  app.use(koaBody({ json: true, urlencoded: false, multipart: false, jsonLimit: 64 * 1024 * 1024 }));
  app.use(async (ctx) => {
    if (snapshot && ctx.method === 'GET' && ctx.path === '/backup') {
      log.info('backup started: streaming a snapshot of the database to the CLI');
      ctx.type = 'application/octet-stream';
      ctx.body = Readable.from(snapshot());
      return;
    }
    if (ctx.path === '/definitions' && ctx.method === 'GET' && extras.exportDefinitions) {
      ctx.body = await extras.exportDefinitions();
      return;
    }
    if (ctx.path === '/definitions' && ctx.method === 'POST' && extras.importDefinitions) {
      try {
        ctx.body = await extras.importDefinitions(ctx.request.body);
      } catch (err) {
        if (err instanceof GaugewayError) throw Object.assign(new Error(err.message), { status: 400 });
        throw err;
      }
      return;
    }
    const found = findOperation(ctx.method, ctx.path);
    if (!found) {
      ctx.status = 404;
      ctx.body = { errors: { request: [`no admin operation ${ctx.method} ${ctx.path}`] } };
      return;
    }
    // operations read named fields; any other JSON (an array) names none
    const body = isObject(ctx.request.body) ? ctx.request.body : {};
    ctx.body = await found.op.run(accounts(), found.params, body);
    ctx.status = found.op.status;
    // who may sign in changed: the log is the only record of when (never the secret;
    // `token_name`, since fields named token are redacted)
    if (found.op.logs) {
      const email = found.params.email ?? body.email;
      const tokenName = found.params.name ?? body.name ?? body.token_name ?? (found.op.logs === 'account created' ? 'default' : undefined);
      const role = found.op.logs.endsWith('created') ? body.role ?? 'admin' : undefined;
      log.info({ component: 'admin', email: typeof email === 'string' ? email.toLowerCase() : email, token_name: tokenName, role }, `${found.op.logs} through the admin socket`);
    }
  });
  return app;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
