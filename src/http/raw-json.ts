// The raw JSON text of a tagged submission (POST /v1/measurements), read without
// koa-body: the route scans the text itself (ingest/tagged-fast.ts) and only falls back
// to parsing it into objects when the fast path declines. `parseJsonBody` is that
// fallback, with koa-body's exact results and errors (co-body + @hapi/bourne, then the
// body inspector), so the route answers every body as it did when koa-body parsed it.
import { inspect } from '../schema/inspect.js';
import type { Ctx } from './state.js';
import { bodyCharset } from './request.js';

const SUSPECT_PROTO = /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

/**
 * Whether this request's body is read as raw text for the tagged route: JSON with a
 * declared length and no content encoding. Anything else (chunked, gzip, forms) goes
 * through koa-body as before.
 */
export function isRawTaggedSubmission(ctx: Ctx): boolean {
  if (ctx.method !== 'POST' || (ctx.path !== '/v1/measurements' && ctx.path !== '/v1/measurements/')) return false;
  const h = ctx.req.headers;
  if (h['transfer-encoding'] !== undefined || !(Number(h['content-length'] ?? 0) > 0)) return false;
  const encoding = h['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  // the fast path reads bytes as UTF-8; a Latin-1 body goes through koa-body, which decodes it
  return ctx.is('application/json') === 'application/json' && bodyCharset(ctx.request.charset) === 'utf-8';
}

/** Errors shaped as raw-body's, so the error renderer explains them the same way. */
function bodyError(type: string, message: string): Error {
  return Object.assign(new Error(message), { type, status: 400, expose: true });
}

/** The body's bytes (ingest/tagged-fast.ts `bodyText` reads them as co-body would). */
export function readRawBody(ctx: Ctx): Promise<Buffer> {
  const req = ctx.req;
  const expected = Number(req.headers['content-length']);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const done = (err: Error | null) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('error', onError);
      if (err) return reject(err);
      if (received !== expected) return reject(bodyError('request.size.invalid', 'request size did not match content length'));
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
    };
    const onData = (chunk: Buffer) => { received += chunk.length; chunks.push(chunk); };
    const onEnd = () => done(null);
    const onAborted = () => done(bodyError('request.aborted', 'request aborted'));
    const onError = (err: Error) => done(err);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', onError);
  });
}

/** The body as koa-body would have set it (JSON.parse, prototype-key check), inspected. */
export function parseJsonBody(text: string, maxDepth: number): unknown {
  if (text === '') return text; // co-body hands an empty body on as ''
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && SUSPECT_PROTO.test(text)) rejectProtoKeys(parsed);
  } catch (err) {
    (err as { status?: number }).status = 400;
    throw err;
  }
  inspect(parsed, maxDepth);
  return parsed;
}

/** @hapi/bourne's scan: any own `__proto__` key anywhere is refused. */
function rejectProtoKeys(root: object): void {
  let next: object[] = [root];
  while (next.length) {
    const nodes = next;
    next = [];
    for (const node of nodes) {
      if (Object.prototype.hasOwnProperty.call(node, '__proto__')) throw new SyntaxError('Object contains forbidden prototype property');
      for (const value of Object.values(node)) if (value !== null && typeof value === 'object') next.push(value as object);
    }
  }
}
