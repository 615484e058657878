// One strict body parser for every route: JSON or form-urlencoded (Rails-style nesting,
// `attributes[color]`, `names[]`, `links[0][href]`) parsed to the same plain object,
// with size, depth, key and number checks before anything else sees it.
import { HttpMethodEnum, koaBody } from 'koa-body';
import { ApiError } from '../errors.js';
import type { Middleware } from './state.js';
import { isRawTaggedSubmission, readRawBody } from './raw-json.js';
import { bodyCharset } from './request.js';
import { inspect, inspectFormKeys } from '../schema/inspect.js';

export interface BodyLimits {
  bytes: number;
  depth: number;
}

const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The most items a list in a form body may have: the longest list a schema takes. */
const MAX_FORM_LIST = 10_000;

export function bodyParser(limits: BodyLimits): Middleware[] {
  const options = {
    json: true,
    urlencoded: true,
    text: false,
    multipart: false,
    jsonStrict: false,
    // the raw text of form bodies is checked for prototype keys the form parser would drop
    includeUnparsed: true,
    jsonLimit: limits.bytes,
    formLimit: limits.bytes,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    // allowDots off: metric names contain dots (`gauges[cpu.load][value]`).
    // arrayLimit: the longest list a body may hold (a batch's `names[]` and `exclude[]`
    // take 10,000); past it qs turns the list into an object, which a form batch of 1,001
    // names met as "names must be an array". Sparse indices are compacted, so a large
    // index costs nothing.
    queryString: { allowDots: false, depth: limits.depth, arrayLimit: MAX_FORM_LIST, parameterLimit: 50000, allowPrototypes: false },
  };
  const parse = koaBody(options);
  // co-body reads every body as UTF-8 whatever its charset says: a Latin-1 "café" would be
  // stored as "caf\ufffd". Latin-1 is what form encoders of old HTTP clients declare (Apache
  // HttpClient's default), so it is read as such, percent escapes included; any other
  // charset is a 415 (JSON is UTF-8, RFC 8259) rather than text stored changed.
  const parseLatin1 = koaBody({ ...options, encoding: 'latin1', queryString: { ...options.queryString, charset: 'iso-8859-1' } });
  const guard: Middleware = async (ctx, next) => {
    if (PARSED_METHODS.has(ctx.method) && hasBody(ctx.req.headers)) {
      const declared = Number(ctx.get('content-length') || 0);
      if (declared > limits.bytes) throw new ApiError(413, { request: ['Request body is larger than the configured limit'] });
      if (!ctx.is('application/json', 'application/x-www-form-urlencoded')) {
        throw new ApiError(415, { request: ['Content-Type must be application/json or application/x-www-form-urlencoded'] });
      }
      const charset = ctx.request.charset;
      if (bodyCharset(charset) === null) {
        throw new ApiError(415, { request: [`Unsupported charset ${charset}: send UTF-8`] });
      }
    }
    await next();
  };
  // The tagged submission route reads its JSON as text and validates while it scans;
  // it parses and inspects the text itself only when its fast path declines.
  const parseOrRead: Middleware = async (ctx, next) => {
    if (!isRawTaggedSubmission(ctx)) {
      try {
        await (bodyCharset(ctx.request.charset) === 'latin1' ? parseLatin1 : parse)(ctx, async () => undefined);
      } catch (err) {
        throw isDecompressionError(err) ? new ApiError(400, { request: [`Request body is not valid ${ctx.get('content-encoding')} data`] }) : err;
      }
      return next();
    }
    ctx.state.rawJson = await readRawBody(ctx);
    return next();
  };
  const check: Middleware = async (ctx, next) => {
    // Zero bytes are no body, whatever the Content-Type says (co-body reads them as ''):
    // clients that send `Content-Type: application/json` and `Content-Length: 0` on every
    // request must be able to POST /v1/alerts/:id/clear or DELETE a metric.
    if (ctx.request.body === '') ctx.request.body = undefined;
    const body: unknown = ctx.request.body;
    // JSON `null` or a bare value is not an empty body: read as {} it would, say, create a
    // gauge or wipe an alert's conditions (arrays are left to each route's schema)
    if (body === null || (body !== undefined && typeof body !== 'object')) {
      throw new ApiError(400, { request: ['The request body must be a JSON object'] });
    }
    if (body !== undefined) {
      const raw: unknown = ctx.request.rawBody;
      if (typeof raw === 'string' && ctx.is('application/x-www-form-urlencoded')) inspectFormKeys(raw);
      inspect(body, limits.depth);
    }
    await next();
  };
  return [guard, parseOrRead, check];
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** zlib and brotli stream errors (bad or truncated compressed data): the client's mistake. */
function isDecompressionError(err: unknown): boolean {
  if (typeof err !== 'object' || err === null || 'type' in err) return false;
  const code: unknown = Reflect.get(err, 'code');
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_') || code.startsWith('ERR_BROTLI'));
}
