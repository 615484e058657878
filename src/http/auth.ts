// HTTP basic auth (user = account e-mail, password = API token) and the role policy.
import { ApiError } from '../errors.js';
import type { AccountDirectory } from '../auth/accounts.js';
import type { Role } from '../config/types.js';
import type { Ctx, Middleware } from './state.js';

const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="gaugeway"' };

/**
 * A browser answers a Basic challenge with its own login dialog, even to a script's
 * fetch: the web UI (which has its own sign-in form) marks its requests the way
 * XMLHttpRequest libraries do, and gets the 401 without the challenge.
 */
function challenge(ctx: Ctx): Record<string, string> | undefined {
  return ctx.get('x-requested-with').toLowerCase() === 'xmlhttprequest' ? undefined : CHALLENGE;
}

export function basicAuth(accounts: () => AccountDirectory): Middleware {
  return async (ctx, next) => {
    const creds = parseBasic(ctx.get('authorization'));
    if (!creds) throw new ApiError(401, { request: ['Please provide credentials for authentication.'] }, challenge(ctx));
    const principal = accounts().authenticate(creds.user, creds.password);
    if (!principal) throw new ApiError(401, { request: ['Authorization failed: unknown e-mail, wrong or disabled token.'] }, challenge(ctx));
    ctx.state.principal = principal;
    await next();
  };
}

export function parseBasic(header: string): { user: string; password: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  // Clients put credentials in the URL with @ escaped as %40; some send them still escaped.
  const user = safeDecode(decoded.slice(0, colon));
  return { user, password: decoded.slice(colon + 1) };
}

function safeDecode(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}

/**
 * Librato's token roles: viewer reads; recorder reads and submits measurements;
 * admin does everything. One table, enforced for every /v1 route.
 */
const SUBMISSIONS = new Set(['POST /v1/measurements', 'POST /v1/metrics']);
/** POSTs that only read (they store nothing): every role may send them */
const READS = new Set(['POST /v1/alerts/preview']);

export function permitted(role: Role, method: string, path: string): boolean {
  if (role === 'admin') return true;
  // the router matches paths whatever their case, so the table does too
  const route = `${method} ${path.replace(/\/+$/, '').toLowerCase()}`;
  // OPTIONS only lists a path's methods (the router's answer): a read
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || READS.has(route)) return true;
  return role === 'recorder' && SUBMISSIONS.has(route);
}

export function rolePolicy(): Middleware {
  return async (ctx: Ctx, next) => {
    const role = ctx.state.principal!.token.role;
    if (!permitted(role, ctx.method, ctx.path)) {
      throw new ApiError(403, { request: ['This token is not permitted to perform this action on this resource'] });
    }
    await next();
  };
}
