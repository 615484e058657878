// Builds the Koa application: middleware order and routers, no sockets (server.ts owns
// those), so tests can drive it through a real listener of their own.
import Koa from 'koa';
import { randomUUID } from 'node:crypto';
import type { Runtime } from './runtime.js';
import type { RequestState } from './http/state.js';
import { errorRenderer } from './http/errors.js';
import { requireHttps } from './http/https.js';
import { basicAuth, rolePolicy } from './http/auth.js';
import { rateLimit } from './http/ratelimit.js';
import { bodyParser } from './http/body.js';
import { opsRoutes } from './http/routes/ops.js';
import { apiRouters } from './http/routes/index.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function buildApp(rt: Runtime): Koa<RequestState> {
  const app = new Koa<RequestState>({ proxy: rt.config.http.trust_proxy });
  app.silent = true;

  app.use(async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    ctx.state.requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      rt.metrics.requestDuration.observe({ method: ctx.method, route: String(route), status: String(ctx.status) }, seconds);
      rt.log.debug({ requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1000), account: ctx.state.principal?.account.email }, 'request');
    }
  });
  app.use(errorRenderer(rt.log, rt.metrics));
  app.use(requireHttps());

  const ops = opsRoutes(rt);
  app.use(ops.routes());

  const v1 = compose([
    basicAuth(() => rt.accounts),
    rateLimit(() => rt.limiter),
    rolePolicy(),
    ...bodyParser({ bytes: rt.config.limits.body_bytes, depth: rt.config.limits.max_body_depth }),
    ...apiRouters(rt).flatMap((r) => [r.routes(), r.allowedMethods()]),
  ]);
  // Every /v1 path, matched or not, is authenticated first: an unknown path says 404
  // only to a client that may ask.
  app.use(async (ctx, next) => {
    if (ctx.path === '/v1' || ctx.path.startsWith('/v1/')) return v1(ctx, next);
    return next();
  });
  return app;
}

type Mw = (ctx: never, next: () => Promise<unknown>) => unknown;

/** Runs middleware in order, as Koa does, for the /v1 sub-chain. */
function compose(middleware: unknown[]): (ctx: unknown, next: () => Promise<unknown>) => Promise<unknown> {
  const fns = middleware as Mw[];
  return (ctx, next) => {
    const dispatch = (i: number): Promise<unknown> => {
      if (i === fns.length) return next();
      return Promise.resolve(fns[i]!(ctx as never, () => dispatch(i + 1)));
    };
    return dispatch(0);
  };
}
