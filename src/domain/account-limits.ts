// How many of each resource one account may hold (`limits.per_account`). The spec leaves
// these counts open; without them one account's ten thousand alerts or spaces would make
// every create, list and evaluation round of that kind cost more for everyone, since
// names are checked and lists built across all of an account's records.
import { requestError, type ApiError } from '../errors.js';
import type { Collection } from '../store/collection.js';

export interface AccountLimits {
  spaces: number;
  charts_per_space: number;
  alerts: number;
  services: number;
  annotation_streams: number;
  composite_metrics: number;
}

/** Read on every create, so a reload applies at once. */
export type AccountLimitsOf = () => AccountLimits;

/** 403, as the spec answers an account that is over its limits. */
export function overLimit(holder: 'an account' | 'a space', limit: number, what: string, key: keyof AccountLimits): ApiError {
  return requestError(403, `${holder} has at most ${limit} ${what} (limits.per_account.${key}); delete some first`);
}

/** Whether the account already holds `limit` records of `records` under `prefix`: reads at most that many keys. */
export async function atLimit<T>(records: Collection<T>, accountId: number, limit: number, prefix = ''): Promise<boolean> {
  let n = 0;
  for await (const _ of records.keys(accountId, prefix)) if (++n >= limit) return true;
  return false;
}
