// Protection against cardinality explosions (spec "Limits": above 40,000 unique tag sets
// an hour the service may reject measurements): each account may create at most
// `limits.new_series_per_hour` new series in any hour. A request that would go past it
// is refused whole with a 429 naming the metric and the limit; series that already exist
// keep accepting data. Counts live in memory in one-minute buckets (a restart forgets the
// last hour, which errs on the side of accepting data), with the latest new series kept
// so GET /v1/cardinality can show an operator where they come from.
import { ApiError } from '../errors.js';
import type { TagPairs } from '../tsdb/sample.js';

export interface NewSeries {
  metric: string;
  tags: TagPairs;
}

export interface RecentSeries {
  metric: string;
  tags: Record<string, string>;
  /** epoch seconds */
  created_at: number;
}

const MINUTE = 60_000;
const HOUR_MINUTES = 60;
/** new series remembered per account for GET /v1/cardinality */
const RECENT_KEPT = 1000;

interface AccountCounts {
  /** minute number -> series created in it */
  minutes: Map<number, number>;
  recent: RecentSeries[];
}

export class CardinalityGuard {
  private readonly accounts = new Map<number, AccountCounts>();

  constructor(
    /** read per request: a reload changes it at once; 0 turns the limit off */
    private readonly limit: () => number,
    private readonly onRefused: (account: number) => void = () => {},
    private readonly clock: () => number = Date.now,
  ) {}

  /** Series created in the last hour by the account. */
  createdLastHour(account: number): number {
    const counts = this.accounts.get(account);
    if (!counts) return 0;
    const now = Math.floor(this.clock() / MINUTE);
    let n = 0;
    for (const [minute, c] of counts.minutes) {
      if (minute > now - HOUR_MINUTES) n += c;
      else counts.minutes.delete(minute);
    }
    return n;
  }

  recent(account: number): readonly RecentSeries[] {
    const cutoff = Math.floor(this.clock() / 1000) - 3600;
    return (this.accounts.get(account)?.recent ?? []).filter((r) => r.created_at > cutoff);
  }

  /**
   * Admits a request that creates `fresh` series, counting them, or throws the 429.
   * Admitted series count even if the write then fails: the limit errs on the strict side
   * for a client that retries, never letting a burst through.
   */
  admit(account: number, fresh: readonly NewSeries[]): void {
    if (fresh.length === 0) return;
    const limit = this.limit();
    const created = this.createdLastHour(account);
    if (limit > 0 && created + fresh.length > limit) {
      this.onRefused(account);
      const metric = mostNew(fresh);
      throw new ApiError(429, { request: [
        `metric ${metric}: this request would create ${fresh.length} new series, and the account created ${created} in the last hour; ` +
        `the limit is ${limit} new series per hour (limits.new_series_per_hour). Series that already exist keep accepting data; GET /v1/cardinality shows where new series come from`,
      ] });
    }
    this.count(account, fresh);
  }

  /**
   * For a scrape: admits the first of `fresh` up to what the hour leaves, counting them;
   * returns how many. A target with more new series than the budget then stores some each
   * hour instead of none in any (a scrape is not one request its client can split).
   */
  admitUpTo(account: number, fresh: readonly NewSeries[]): number {
    if (fresh.length === 0) return 0;
    const limit = this.limit();
    const room = limit > 0 ? Math.max(0, limit - this.createdLastHour(account)) : fresh.length;
    const admitted = Math.min(room, fresh.length);
    if (admitted < fresh.length) this.onRefused(account);
    if (admitted > 0) this.count(account, admitted === fresh.length ? fresh : fresh.slice(0, admitted));
    return admitted;
  }

  private count(account: number, fresh: readonly NewSeries[]): void {
    let counts = this.accounts.get(account);
    if (!counts) this.accounts.set(account, (counts = { minutes: new Map(), recent: [] }));
    const nowMs = this.clock();
    const minute = Math.floor(nowMs / MINUTE);
    counts.minutes.set(minute, (counts.minutes.get(minute) ?? 0) + fresh.length);
    const at = Math.floor(nowMs / 1000);
    for (const s of fresh.slice(-RECENT_KEPT)) counts.recent.push({ metric: s.metric, tags: Object.fromEntries(s.tags), created_at: at });
    if (counts.recent.length > RECENT_KEPT) counts.recent.splice(0, counts.recent.length - RECENT_KEPT);
  }
}

/** The metric contributing most of the new series: the one to name in the refusal. */
function mostNew(fresh: readonly NewSeries[]): string {
  const by = new Map<string, number>();
  let best = fresh[0]!.metric;
  for (const s of fresh) {
    const n = (by.get(s.metric) ?? 0) + 1;
    by.set(s.metric, n);
    if (n > (by.get(best) ?? 0)) best = s.metric;
  }
  return best;
}
