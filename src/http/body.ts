// One strict body parser for every route: JSON or form-urlencoded (Rails-style nesting,
// `attributes[color]`, `names[]`, `links[0][href]`) parsed to the same plain object,
// with size, depth, key and number checks before anything else sees it.
import { koaBody } from 'koa-body';
import { ApiError } from '../errors.js';
import type { Middleware } from './state.js';
import { isRawTaggedSubmission, readRawText } from './raw-json.js';

export interface BodyLimits {
  bytes: number;
  depth: number;
}

/** Keys that could pollute prototypes: refused anywhere in a body. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function bodyParser(limits: BodyLimits): Middleware[] {
  const parse = koaBody({
    json: true,
    urlencoded: true,
    text: false,
    multipart: false,
    jsonStrict: false,
    jsonLimit: limits.bytes,
    formLimit: limits.bytes,
    parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'] as never,
    // allowDots off: metric names contain dots (`gauges[cpu.load][value]`).
    queryString: { allowDots: false, depth: limits.depth, arrayLimit: 1000, parameterLimit: 50000, allowPrototypes: false },
  });
  const guard: Middleware = async (ctx, next) => {
    if (PARSED_METHODS.has(ctx.method) && hasBody(ctx.req.headers)) {
      const declared = Number(ctx.get('content-length') || 0);
      if (declared > limits.bytes) throw new ApiError(413, { request: ['Request body is larger than the configured limit'] });
      if (!ctx.is('application/json', 'application/x-www-form-urlencoded')) {
        throw new ApiError(415, { request: ['Content-Type must be application/json or application/x-www-form-urlencoded'] });
      }
    }
    await next();
  };
  // The tagged submission route reads its JSON as text and validates while it scans;
  // it parses and inspects the text itself only when its fast path declines.
  const parseOrRead: Middleware = async (ctx, next) => {
    if (!isRawTaggedSubmission(ctx)) return parse(ctx, next);
    ctx.state.rawJson = await readRawText(ctx);
    return next();
  };
  const check: Middleware = async (ctx, next) => {
    const body = (ctx.request as { body?: unknown }).body;
    if (body !== undefined) inspect(body, limits.depth);
    await next();
  };
  return [guard, parseOrRead, check];
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** Rejects prototype-polluting keys, over-deep nesting and non-finite numbers (1e400). */
export function inspect(value: unknown, maxDepth: number): void {
  walk(value, maxDepth, 0, []);
}

/**
 * `path` holds the keys and indexes leading to `value`; it is turned into a field name
 * (`measurements[3].value`) only when something is wrong, so a large body costs no
 * string building.
 */
function walk(value: unknown, maxDepth: number, depth: number, path: (string | number)[]): void {
  if (depth > maxDepth) throw new ApiError(400, { request: [`Request body is nested deeper than ${maxDepth} levels`] });
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ApiError(400, { params: { [fieldName(path)]: ['is not a finite number'] } });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const tooDeep = () => new ApiError(400, { request: [`Request body is nested deeper than ${maxDepth} levels`] });
  if (Array.isArray(value)) {
    if (value.length > 0 && depth + 1 > maxDepth) throw tooDeep();
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === null || (typeof item !== 'object' && typeof item !== 'number')) continue;
      path.push(i);
      walk(item, maxDepth, depth + 1, path);
      path.pop();
    }
    return;
  }
  const obj = value as Record<string, unknown>;
  for (const key in obj) {
    if (depth + 1 > maxDepth) throw tooDeep();
    if (FORBIDDEN_KEYS.has(key)) throw new ApiError(400, { request: [`Request body may not contain the key "${key}"`] });
    const item = obj[key];
    if (item === null || (typeof item !== 'object' && typeof item !== 'number')) continue;
    path.push(key);
    walk(item, maxDepth, depth + 1, path);
    path.pop();
  }
}

function fieldName(path: (string | number)[]): string {
  let name = '';
  for (const p of path) name = typeof p === 'number' ? `${name || 'body'}[${p}]` : name ? `${name}.${p}` : p;
  return name || 'body';
}
