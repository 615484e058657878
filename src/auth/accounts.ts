// Accounts and their API tokens. A token is shown once, at creation; only its SHA-256
// is stored (tokens are 256 random bits, so a fast hash is enough; there is nothing to
// brute-force). Every request looks its credentials up here, so the directory keeps all
// accounts and tokens in memory and writes through to LevelDB.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from '../store/db.js';
import { putOp, type CommitQueue } from '../store/commit.js';
import { Sequence } from '../store/sequence.js';
import type { ConfigAccount, Role } from '../config/types.js';

export interface Account {
  id: number;
  email: string;
  active: boolean;
  created_at: number;
}

export interface TokenRecord {
  id: number;
  account_id: number;
  name: string;
  role: Role;
  sha256: string;
  active: boolean;
  /** 'config' tokens come from the config file and are never stored */
  origin: 'stored' | 'config';
  created_at: number;
  updated_at: number;
}

export type PublicToken = Omit<TokenRecord, 'sha256'>;

export interface Principal {
  account: Account;
  token: PublicToken;
}

export class AccountError extends Error {
  constructor(readonly kind: 'not_found' | 'exists' | 'invalid', message: string) {
    super(message);
  }
}

// No ':' (Basic auth ends the user at the first colon: such an account could sign in
// only with the colon escaped as %3A) and no control characters (the e-mail is logged
// and listed).
const EMAIL = /^[^@\s:\p{Cc}]+@[^@\s:\p{Cc}]+$/u;
const TOKEN_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Throws unless `email` may name an account. */
export function checkEmail(email: string): void {
  if (!EMAIL.test(email) || email.length > 254) throw new AccountError('invalid', `not an e-mail address (name@domain without spaces, ':' or control characters): ${email}`);
}

/** Throws unless `name` may name a token: checked before anything is written. */
export function checkTokenName(name: string): void {
  if (!TOKEN_NAME.test(name)) throw new AccountError('invalid', 'token name must be 1-64 letters, digits, _ . : -');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function newTokenSecret(): string {
  return randomBytes(32).toString('hex');
}

const now = () => Math.floor(Date.now() / 1000);

export class AccountDirectory {
  private readonly accounts;
  private readonly tokens;
  private readonly accountIds;
  private readonly tokenIds;
  private byEmail = new Map<string, Account>();
  private byId = new Map<number, Account>();
  private stored = new Map<number, TokenRecord[]>();
  private fromConfig = new Map<number, TokenRecord[]>();
  /** compared against when the e-mail is unknown, so timing does not reveal which e-mails exist */
  private readonly decoy = Buffer.from(sha256Hex(newTokenSecret()), 'hex');
  /**
   * Every change runs alone: each checks (is the e-mail or token name taken?) and then
   * awaits its write, and two admin-socket calls (or one and a config reload) in between
   * made two accounts of one e-mail, or two tokens of one name.
   */
  private changes: Promise<unknown> = Promise.resolve();
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const result = this.changes.then(work, work);
    this.changes = result.catch(() => undefined); // a refused change does not stop the next
    return result;
  }

  private constructor(store: Store, private readonly commit: CommitQueue) {
    this.accounts = store.json<Account>('accounts');
    this.tokens = store.json<TokenRecord>('tokens');
    this.accountIds = new Sequence(store, 'accounts');
    this.tokenIds = new Sequence(store, 'tokens');
  }

  static async load(store: Store, commit: CommitQueue, configured: ConfigAccount[]): Promise<AccountDirectory> {
    const dir = new AccountDirectory(store, commit);
    for (const a of await dir.accounts.values().all()) dir.remember(a);
    for (const t of await dir.tokens.values().all()) dir.tokensOf(dir.stored, t.account_id).push(t);
    await dir.applyConfig(configured);
    return dir;
  }

  /** Config-file accounts: created on first sight; their tokens live only in memory. */
  applyConfig(configured: ConfigAccount[]): Promise<void> {
    return this.serial(() => this.applyConfigNow(configured));
  }

  private async applyConfigNow(configured: ConfigAccount[]): Promise<void> {
    // every e-mail is checked before any account is created: a refused file changes nothing
    for (const c of configured) checkEmail(c.email);
    const next = new Map<number, TokenRecord[]>();
    let n = 0;
    for (const c of configured) {
      const account = this.byEmail.get(c.email.toLowerCase()) ?? (await this.createAccountNow(c.email));
      this.tokensOf(next, account.id).push({
        id: -++n, account_id: account.id, name: c.name, role: c.role, sha256: c.token_sha256,
        active: true, origin: 'config', created_at: account.created_at, updated_at: account.created_at,
      });
    }
    this.fromConfig = next;
  }

  get size(): number {
    return this.byEmail.size;
  }

  authenticate(email: string, secret: string): Principal | null {
    const digest = Buffer.from(sha256Hex(secret), 'hex');
    const account = this.byEmail.get(email.toLowerCase());
    if (!account) {
      timingSafeEqual(digest, this.decoy);
      return null;
    }
    let found: TokenRecord | null = null;
    for (const t of this.allTokens(account.id)) {
      if (timingSafeEqual(digest, Buffer.from(t.sha256, 'hex')) && t.active) found = t;
    }
    if (!found || !account.active) return null;
    return { account, token: publicToken(found) };
  }

  findAccount(email: string): Account | undefined {
    return this.byEmail.get(email.toLowerCase());
  }

  accountById(id: number): Account | undefined {
    return this.byId.get(id);
  }

  listAccounts(): Account[] {
    return [...this.byId.values()].sort((a, b) => a.id - b.id);
  }

  listTokens(email: string): PublicToken[] {
    return this.allTokens(this.mustFind(email).id).map(publicToken);
  }

  createAccount(email: string): Promise<Account> {
    return this.serial(() => this.createAccountNow(email));
  }

  private async createAccountNow(email: string): Promise<Account> {
    checkEmail(email);
    if (this.byEmail.has(email.toLowerCase())) throw new AccountError('exists', `account ${email} already exists`);
    const { id, op } = await this.accountIds.next();
    const account: Account = { id, email: email.toLowerCase(), active: true, created_at: now() };
    await this.commit.write([op, putOp(this.accounts, String(id), account)]);
    this.remember(account);
    return account;
  }

  setAccountActive(email: string, active: boolean): Promise<Account> {
    return this.serial(() => this.setAccountActiveNow(email, active));
  }

  private async setAccountActiveNow(email: string, active: boolean): Promise<Account> {
    const account = { ...this.mustFind(email), active };
    await this.commit.write([putOp(this.accounts, String(account.id), account)]);
    this.remember(account);
    return account;
  }

  /** Creates a token and returns its secret: the only time the secret exists outside the caller. */
  createToken(email: string, name: string, role: Role): Promise<{ token: PublicToken; secret: string }> {
    return this.serial(() => this.createTokenNow(email, name, role));
  }

  private async createTokenNow(email: string, name: string, role: Role): Promise<{ token: PublicToken; secret: string }> {
    const account = this.mustFind(email);
    checkTokenName(name);
    if (this.allTokens(account.id).some((t) => t.name === name)) throw new AccountError('exists', `token ${name} already exists for ${email}`);
    const { id, op } = await this.tokenIds.next();
    const secret = newTokenSecret();
    const t = now();
    const record: TokenRecord = { id, account_id: account.id, name, role, sha256: sha256Hex(secret), active: true, origin: 'stored', created_at: t, updated_at: t };
    await this.commit.write([op, putOp(this.tokens, String(id), record)]);
    this.tokensOf(this.stored, account.id).push(record);
    return { token: publicToken(record), secret };
  }

  setTokenActive(email: string, name: string, active: boolean): Promise<PublicToken> {
    return this.serial(() => this.setTokenActiveNow(email, name, active));
  }

  private async setTokenActiveNow(email: string, name: string, active: boolean): Promise<PublicToken> {
    const record = this.mustFindStoredToken(email, name);
    const updated = { ...record, active, updated_at: now() };
    await this.saveToken(updated);
    return publicToken(updated);
  }

  /** A new secret for the same token name and role; the old secret stops working at once. */
  rotateToken(email: string, name: string): Promise<{ token: PublicToken; secret: string }> {
    return this.serial(() => this.rotateTokenNow(email, name));
  }

  private async rotateTokenNow(email: string, name: string): Promise<{ token: PublicToken; secret: string }> {
    const record = this.mustFindStoredToken(email, name);
    const secret = newTokenSecret();
    const updated = { ...record, sha256: sha256Hex(secret), updated_at: now() };
    await this.saveToken(updated);
    return { token: publicToken(updated), secret };
  }

  private async saveToken(record: TokenRecord): Promise<void> {
    await this.commit.write([putOp(this.tokens, String(record.id), record)]);
    const list = this.tokensOf(this.stored, record.account_id);
    list[list.findIndex((t) => t.id === record.id)] = record;
  }

  private mustFind(email: string): Account {
    const a = this.byEmail.get(email.toLowerCase());
    if (!a) throw new AccountError('not_found', `no account ${email}`);
    return a;
  }

  private mustFindStoredToken(email: string, name: string): TokenRecord {
    const account = this.mustFind(email);
    const t = this.tokensOf(this.stored, account.id).find((x) => x.name === name);
    if (!t) {
      if (this.tokensOf(this.fromConfig, account.id).some((x) => x.name === name)) {
        throw new AccountError('invalid', `token ${name} comes from the config file: change it there`);
      }
      throw new AccountError('not_found', `no token ${name} for ${email}`);
    }
    return t;
  }

  private allTokens(accountId: number): TokenRecord[] {
    return [...(this.fromConfig.get(accountId) ?? []), ...(this.stored.get(accountId) ?? [])];
  }

  private tokensOf(map: Map<number, TokenRecord[]>, accountId: number): TokenRecord[] {
    let list = map.get(accountId);
    if (!list) map.set(accountId, (list = []));
    return list;
  }

  private remember(a: Account): void {
    this.byEmail.set(a.email, a);
    this.byId.set(a.id, a);
  }
}

function publicToken(t: TokenRecord): PublicToken {
  const { sha256: _omit, ...rest } = t;
  return rest;
}
