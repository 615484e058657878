// The spec serves /v1 over HTTPS only. ctx.secure is true on the TLS listener and, when
// http.trust_proxy is on, for requests a proxy marks with X-Forwarded-Proto: https.
import { ApiError } from '../errors.js';
import type { Middleware } from './state.js';

/** Paths a plain-HTTP client (load balancer, Prometheus) may still reach. */
const OPEN_PATHS = new Set(['/health', '/ready', '/metrics', '/-/healthy', '/-/ready']);

export function requireHttps(): Middleware {
  return async (ctx, next) => {
    if (!ctx.secure && !OPEN_PATHS.has(ctx.path)) {
      throw new ApiError(403, { request: ['Please use secured connection through https!'] });
    }
    await next();
  };
}
