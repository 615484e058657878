// Small readers of the request that every route file needs.
import type { Ctx } from './state.js';

export function isForm(ctx: Ctx): boolean {
  return ctx.is('application/x-www-form-urlencoded') === 'application/x-www-form-urlencoded';
}

export function body(ctx: Ctx): unknown {
  return ctx.request.body ?? {};
}

export function userAgent(ctx: Ctx): string | null {
  return ctx.get('user-agent') || null;
}

/** A query parameter given once (the first, if repeated). */
export function queryOne(ctx: Ctx, name: string): string | undefined {
  const v = ctx.query[name];
  return Array.isArray(v) ? v[0] : v;
}
