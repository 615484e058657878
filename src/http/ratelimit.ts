// Per-account token buckets. "std" meters ordinary API calls, "agg" meters measurement
// submissions; both are reported on every authenticated response in Librato's header
// format (`limit=N,remaining=M,reset=EPOCH`), which agents parse for `remaining=`.
import { ApiError } from '../errors.js';
import type { RateBucketConfig } from '../config/types.js';
import type { Middleware } from './state.js';

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private buckets = new Map<string, Bucket>();

  constructor(private config: { std: RateBucketConfig; agg: RateBucketConfig }, private readonly clock: () => number = Date.now) {}

  reconfigure(config: { std: RateBucketConfig; agg: RateBucketConfig }): void {
    this.config = config;
  }

  /** Takes one token if there is one; returns what the headers should say either way. */
  take(kind: 'std' | 'agg', accountId: number): { allowed: boolean; header: string } {
    const { limit, interval_seconds } = this.config[kind];
    const now = this.clock();
    if (limit === 0) return { allowed: true, header: `limit=0,remaining=${2 ** 31 - 1},reset=${Math.ceil(now / 1000)}` };
    const key = `${kind}:${accountId}`;
    const perMs = limit / (interval_seconds * 1000);
    const b = this.buckets.get(key) ?? { tokens: limit, at: now };
    b.tokens = Math.min(limit, b.tokens + (now - b.at) * perMs);
    b.at = now;
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    this.buckets.set(key, b);
    const reset = Math.ceil((now + (limit - b.tokens) / perMs) / 1000);
    return { allowed, header: `limit=${limit},remaining=${Math.floor(b.tokens)},reset=${reset}` };
  }

  peek(kind: 'std' | 'agg', accountId: number): string {
    const { limit, interval_seconds } = this.config[kind];
    const now = this.clock();
    if (limit === 0) return `limit=0,remaining=${2 ** 31 - 1},reset=${Math.ceil(now / 1000)}`;
    const b = this.buckets.get(`${kind}:${accountId}`);
    const perMs = limit / (interval_seconds * 1000);
    const tokens = b ? Math.min(limit, b.tokens + (now - b.at) * perMs) : limit;
    return `limit=${limit},remaining=${Math.floor(tokens)},reset=${Math.ceil((now + (limit - tokens) / perMs) / 1000)}`;
  }
}

// The router matches paths whatever their case and trailing slashes, so this does too:
// `/v1/Measurements` is a submission, metered by agg, not a way around it.
const SUBMISSION = /^\/v1\/(measurements|metrics)\/*$/i;

export function rateLimit(limiter: () => RateLimiter): Middleware {
  return async (ctx, next) => {
    const account = ctx.state.principal!.account.id;
    const kind = ctx.method === 'POST' && SUBMISSION.test(ctx.path) ? 'agg' : 'std';
    const other = kind === 'agg' ? 'std' : 'agg';
    const { allowed, header } = limiter().take(kind, account);
    const headers = {
      [`X-Librato-RateLimit-${kind === 'agg' ? 'Agg' : 'Std'}`]: header,
      [`X-Librato-RateLimit-${other === 'agg' ? 'Agg' : 'Std'}`]: limiter().peek(other, account),
    };
    ctx.set(headers);
    if (!allowed) {
      throw new ApiError(429, { request: [`You have hit the API limit for ${kind === 'agg' ? 'measurement submissions' : 'API requests'}; retry after the reset time in the X-Librato-RateLimit-${kind === 'agg' ? 'Agg' : 'Std'} header`] }, headers);
    }
    await next();
  };
}
