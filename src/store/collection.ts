// JSON records of one kind, each under its account: key `<accountId>!<key>`. Listing an
// account's records is one range read; no account can reach another's keys.
import type { Store } from './db.js';
import { putOp, delOp, type WriteOp } from './commit.js';

export class Collection<T> {
  readonly level;

  constructor(store: Store, readonly name: string) {
    this.level = store.json<T>(name);
  }

  private key(accountId: number, key: string): string {
    return `${accountId}!${key}`;
  }

  async get(accountId: number, key: string): Promise<T | undefined> {
    return (await this.level.get(this.key(accountId, key))) ?? undefined;
  }

  /** All records of the account in key order, optionally those whose key starts with `prefix`. */
  async list(accountId: number, prefix = ''): Promise<T[]> {
    const base = this.key(accountId, prefix);
    return this.level.values({ gte: base, lt: base + '\uffff' }).all();
  }

  /** The account's records with keys from `from` (inclusive) to `to` (exclusive), in key order or reversed. */
  async *range(accountId: number, from: string, to: string, reverse = false): AsyncGenerator<T> {
    yield* this.level.values({ gte: this.key(accountId, from), lt: this.key(accountId, to), reverse });
  }

  /** The account's keys (without the account) that start with `prefix`, in key order, read as iterated. */
  async *keys(accountId: number, prefix = ''): AsyncGenerator<string> {
    const base = this.key(accountId, '');
    const start = base + prefix;
    for await (const k of this.level.keys({ gte: start, lt: start + '\uffff' })) yield k.slice(base.length);
  }

  put(accountId: number, key: string, value: T): WriteOp {
    return putOp(this.level, this.key(accountId, key), value);
  }

  del(accountId: number, key: string): WriteOp {
    return delOp(this.level, this.key(accountId, key));
  }
}

/** Zero-padded decimal, so that numeric ids sort in key order. */
export function idKey(id: number): string {
  return String(id).padStart(12, '0');
}
