// The spec serves /v1 over HTTPS only. A request is secure on the TLS listener and, when
// http.trust_proxy trusts the peer (all peers, or its address is in the list), when that
// proxy marks it X-Forwarded-Proto: https.
import { ApiError } from '../errors.js';
import type { Middleware } from './state.js';
import { proxyTrust, type ProxyTrust, type TrustProxySetting } from '../match/address.js';

/** Paths a plain-HTTP client (load balancer, Prometheus) may still reach. */
const OPEN_PATHS = new Set(['/health', '/ready', '/metrics', '/-/healthy', '/-/ready']);

/** `setting` is read per request, so a reload applies at once. */
export function requireHttps(setting: () => TrustProxySetting): Middleware {
  let last: TrustProxySetting | null = null;
  let trusts: ProxyTrust = () => false;
  return async (ctx, next) => {
    const now = setting();
    if (now !== last) { trusts = proxyTrust(now); last = now; }
    const forwarded = ctx.get('x-forwarded-proto').split(',')[0]!.trim().toLowerCase();
    const secure = Reflect.get(ctx.req.socket, 'encrypted') === true || (forwarded === 'https' && trusts(ctx.req.socket.remoteAddress));
    if (!secure && !OPEN_PATHS.has(ctx.path)) {
      throw new ApiError(403, { request: ['Please use secured connection through https!'] });
    }
    await next();
  };
}
