// Builds the Koa application: middleware order and routers, no sockets (server.ts owns
// those), so tests can drive it through a real listener of their own.
import Koa, { type Next } from 'koa';
import type { RouterContext } from '@koa/router';
import { randomUUID } from 'node:crypto';
import type { Runtime } from './runtime.js';
import type { RequestState } from './http/state.js';
import { errorRenderer } from './http/errors.js';
import { requireHttps } from './http/https.js';
import { externalLocations } from './http/external-url.js';
import { loadUiFiles, webUi } from './http/ui.js';
import { requireHost } from './http/client-error.js';
import { basicAuth, rolePolicy } from './http/auth.js';
import { rateLimit } from './http/ratelimit.js';
import { bodyParser } from './http/body.js';
import { opsRoutes } from './http/routes/ops.js';
import { apiRouters } from './http/routes/index.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function buildApp(rt: Runtime): Koa<RequestState> {
  // (Koa's own proxy switch stays off: requireHttps decides which peers' headers count)
  const app = new Koa<RequestState>();
  app.silent = true;
  const routers = apiRouters(rt);
  // A request refused before routing (401, 429) is labelled with the route it was aimed
  // at, so /metrics shows which endpoint the failed logins went for.
  const aimedRoute = (ctx: { path: string; method: string }): string | undefined => {
    for (const r of routers) {
      const route = r.match(ctx.path, ctx.method).pathAndMethod.find((layer) => layer.opts.end !== false)?.path;
      if (route !== undefined) return String(route);
    }
    return undefined;
  };

  app.use(async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    ctx.state.requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = matchedRoute(ctx) ?? aimedRoute(ctx) ?? 'unmatched';
      rt.metrics.requestDuration.observe({ method: ctx.method, route, status: String(ctx.status) }, seconds);
      rt.log.debug({ requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1000), account: ctx.state.principal?.account.email }, 'request');
    }
  });
  app.use(errorRenderer(rt.log, rt.metrics));
  app.use(requireHost());
  app.use(webUi(loadUiFiles(), () => rt.config.http.external_url));
  app.use(requireHttps(() => rt.config.http.trust_proxy));
  app.use(externalLocations(() => rt.config.http.external_url));

  const ops = opsRoutes(rt);
  app.use(ops.routes());

  const v1 = compose([
    basicAuth(() => rt.accounts),
    rateLimit(() => rt.limiter),
    rolePolicy(),
    ...bodyParser({ bytes: rt.config.limits.body_bytes, depth: rt.config.limits.max_body_depth }),
    ...routers.flatMap((r) => [r.routes(), r.allowedMethods()]),
  ]);
  // Every /v1 path, matched or not, is authenticated first: an unknown path says 404
  // only to a client that may ask.
  app.use(async (ctx: V1Context, next) => {
    if (ctx.path === '/v1' || ctx.path.startsWith('/v1/')) return v1(ctx, next);
    return next();
  });
  return app;
}

/** The context the /v1 chain sees: the routers add their fields (params, matched route). */
type V1Context = RouterContext<RequestState>;
type V1Middleware = (ctx: V1Context, next: Next) => unknown;

/** Runs middleware in order, as Koa does, for the /v1 sub-chain. */
function compose(middleware: V1Middleware[]): (ctx: V1Context, next: Next) => Promise<unknown> {
  return (ctx, next) => {
    const dispatch = (i: number): Promise<unknown> => {
      if (i === middleware.length) return next();
      return Promise.resolve(middleware[i]!(ctx, () => dispatch(i + 1)));
    };
    return dispatch(0);
  };
}

/** The route pattern @koa/router matched (it sets `_matchedRoute` on the context), if any. */
function matchedRoute(ctx: object): string | undefined {
  return '_matchedRoute' in ctx && ctx._matchedRoute != null ? String(ctx._matchedRoute) : undefined;
}
