// The one place errors become responses: always the spec's {"errors": {...}} envelope.
import { ApiError, type ErrorBody } from '../errors.js';
import type { Logger } from '../log.js';
import type { Ctx, Middleware } from './state.js';
import type { SelfMetrics } from '../selfmetrics.js';
import { RefusalLog } from './refusal-log.js';

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  message: string;
}

/** Body-parser (co-body/raw-body) error types we can explain to the client. */
const PARSER_MESSAGES: Record<string, [number, string, string]> = {
  'entity.parse.failed': [400, 'Request body is not valid JSON', 'malformed_body'],
  'entity.too.large': [413, 'Request body is larger than the configured limit', 'body_too_large'],
  'encoding.unsupported': [415, 'Unsupported content encoding', 'unsupported_encoding'],
  'charset.unsupported': [415, 'Unsupported charset', 'unsupported_encoding'],
  'request.aborted': [400, 'Request was aborted before the body was read', 'aborted'],
  'request.size.invalid': [400, 'Request body size did not match Content-Length', 'malformed_body'],
  'parameters.too.many': [413, 'Too many form parameters', 'body_too_large'],
};

export function errorRenderer(log: Logger, metrics: SelfMetrics, refusals = new RefusalLog(log)): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new ApiError(404, { request: [`No route for ${ctx.method} ${ctx.path}`] });
      }
      // 501 is what the router says to a method it does not know at all (TRACE)
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
        throw new ApiError(405, { request: [`Method ${ctx.method} is not allowed on ${ctx.path}`] });
      }
      // serialized here, not in Koa's respond(): a failure there (an answer too large for
      // one string) would be Koa's plain-text 500, outside this envelope
      serializeJson(ctx);
    } catch (err) {
      const { status, body, reason, headers } = classify(err);
      if (isRefusal(err)) refusals.refused(status, err.message, ctx.path, ctx.state.requestId);
      else if (status >= 500) log.error({ err, requestId: ctx.state.requestId, path: ctx.path }, 'request failed');
      metrics.rejected.inc({ reason });
      render(ctx, status, body, headers);
      // A body left unread (a 413, a refused encoding) would hold a kept-alive connection
      // until it arrived: answer, then close, so the client's next request goes out at once.
      if (status === 413 || !ctx.req.complete) ctx.set('Connection', 'close');
    }
  };
}

/** A 503 or 507 the code chose to answer (storage refusing writes, a wide read's turn that never came), not a failure. */
function isRefusal(err: unknown): err is ApiError {
  return err instanceof ApiError && (err.status === 503 || err.status === 507);
}

/** An object or array body becomes its JSON text, typed as Koa would type it. */
function serializeJson(ctx: Ctx): void {
  const body: unknown = ctx.body;
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return;
  ctx.body = JSON.stringify(body);
  ctx.type = 'application/json';
}

function classify(err: unknown): { status: number; body: ErrorBody; reason: string; headers: Record<string, string> } {
  if (err instanceof ApiError) {
    return { status: err.status, body: err.body, reason: err.reason ?? reasonFor(err.status), headers: err.headers };
  }
  const e = err as HttpLikeError & { name?: string };
  if (e?.name === 'SyntaxError' && (e.status ?? e.statusCode) === 400) {
    return { status: 400, body: { request: [`Request body is not valid JSON: ${e.message}`] }, reason: 'malformed_body', headers: {} };
  }
  const known = e?.type ? PARSER_MESSAGES[e.type] : undefined;
  if (known) return { status: known[0], body: { request: [known[1]] }, reason: known[2], headers: {} };
  const status = e?.status ?? e?.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    return { status, body: { request: [e.expose !== false ? e.message : 'Bad request'] }, reason: reasonFor(status), headers: {} };
  }
  return { status: 500, body: { system: ['Internal error; the service log has details'] }, reason: 'internal', headers: {} };
}

function reasonFor(status: number): string {
  switch (status) {
    case 400: return 'invalid';
    case 401: return 'unauthenticated';
    case 403: return 'forbidden';
    case 404: return 'not_found';
    case 413: return 'body_too_large';
    case 415: return 'content_type';
    case 422: return 'conflict';
    case 429: return 'rate_limited';
    case 503: case 507: return 'unavailable';
    default: return status >= 500 ? 'internal' : 'other';
  }
}

export function render(ctx: Ctx, status: number, errors: ErrorBody, headers: Record<string, string> = {}): void {
  ctx.status = status;
  for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
  ctx.type = 'application/json';
  ctx.body = { errors };
}
