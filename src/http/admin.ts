// The admin API on a Unix socket in the data dir (mode 0600): the CLI manages accounts
// and tokens through it while the service runs, since LevelDB admits one process.
// Reaching the socket at all needs the service user's (or root's) file permissions,
// which is the authentication.
import Koa from 'koa';
import { Readable } from 'node:stream';
import { koaBody } from 'koa-body';
import { AccountError, type AccountDirectory } from '../auth/accounts.js';
import { findOperation } from '../auth/admin-operations.js';
import type { Logger } from '../log.js';

/**
 * `snapshot`: the database as frames (store/snapshot.ts), for `gaugeway backup` while the
 * service runs; the CLI writes the files, as its own user, wherever the operator says.
 */
export function buildAdminApp(accounts: () => AccountDirectory, log: Logger, snapshot?: () => AsyncIterable<Buffer>): Koa {
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
  app.use(koaBody({ json: true, urlencoded: false, multipart: false, jsonLimit: 65536 }));
  app.use(async (ctx) => {
    if (snapshot && ctx.method === 'GET' && ctx.path === '/backup') {
      log.info('backup started: streaming a snapshot of the database to the CLI');
      ctx.type = 'application/octet-stream';
      ctx.body = Readable.from(snapshot());
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
  });
  return app;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
