// What the middleware chain learns about a request and hands to the routes.
import type { ParameterizedContext, Next } from 'koa';
import type { Principal } from '../auth/accounts.js';

export interface RequestState {
  requestId: string;
  /** set by the basic-auth middleware on every /v1 route */
  principal?: Principal;
  /** POST /v1/measurements with a JSON body: its bytes, read unparsed (http/raw-json.ts) */
  rawJson?: Buffer;
}

export type Ctx = ParameterizedContext<RequestState>;
export type Middleware = (ctx: Ctx, next: Next) => Promise<unknown>;

/** The authenticated account id; routes behind auth always have one. */
export function accountId(ctx: Ctx): number {
  return ctx.state.principal!.account.id;
}
