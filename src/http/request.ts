// Small readers of the request that every route file needs.
import type { Ctx } from './state.js';
import { ApiError, paramError } from '../errors.js';
import type { Config } from '../config/types.js';
import type { QueryOptions } from '../query/bounds.js';

export function isForm(ctx: Ctx): boolean {
  return ctx.is('application/x-www-form-urlencoded') === 'application/x-www-form-urlencoded';
}

export function body(ctx: Ctx): unknown {
  return ctx.request.body ?? {};
}

export function userAgent(ctx: Ctx): string | null {
  return ctx.get('user-agent') || null;
}

/**
 * A query parameter that takes one value. Given twice it is a 400, as in the series
 * queries: taking either value silently would answer a question the client did not ask.
 */
export function queryOne(ctx: Ctx, name: string): string | undefined {
  const v = ctx.query[name];
  if (Array.isArray(v)) throw paramError(name, 'must be given once');
  return v;
}

const clientSignals = new WeakMap<Ctx, AbortSignal>();

/**
 * Aborted when the client closes its connection before the response is sent: a query
 * still waiting for its turn, or between batches of a wide read, then stops rather than
 * run for nobody (a dashboard that gave up and asked again would otherwise queue the same
 * read twice).
 */
export function clientSignal(ctx: Ctx): AbortSignal {
  const known = clientSignals.get(ctx);
  if (known) return known;
  const ac = new AbortController();
  const res = ctx.res;
  const gone = () => ac.abort(new ApiError(400, { request: ['The client closed the connection before the response'] }, {}, 'aborted'));
  if (!res.writableFinished && ctx.req.socket.destroyed) gone();
  else res.once('close', () => { if (!res.writableFinished) gone(); });
  clientSignals.set(ctx, ac.signal);
  return ac.signal;
}

/** A query's options from its request: the client's signal, and the configured answer size. */
export function queryOptions(ctx: Ctx, config: { limits: Pick<Config['limits'], 'answer_measurements'> }): QueryOptions {
  return { reads: { signal: clientSignal(ctx) }, maxAnswer: config.limits.answer_measurements };
}

/** How a body in this charset is read: UTF-8 (also for US-ASCII, its subset, and when none is said), Latin-1, or not at all (null). */
export function bodyCharset(charset: string): 'utf-8' | 'latin1' | null {
  switch (charset.toLowerCase()) {
    case '': case 'utf-8': case 'utf8': case 'us-ascii': case 'ascii': return 'utf-8';
    case 'iso-8859-1': case 'latin1': return 'latin1';
    default: return null;
  }
}
