// Notification services (Librato notes §4.1): an account's configured destinations, each
// of a plugin's `type` with that plugin's `settings`. Settings are checked by the plugin's
// schema (handed in: the domain knows no plugins). Secret settings are kept as sent and
// shown masked; a masked value sent back (a GET body PUT back) keeps the stored secret.
// The last deliveries of each service are kept with it, for the API.
import type { Store } from '../store/db.js';
import type { CommitQueue, WriteOp } from '../store/commit.js';
import { Collection, idKey } from '../store/collection.js';
import { Sequence } from '../store/sequence.js';
import { notFound, paramErrors } from '../errors.js';
import { AccountLock } from './account-lock.js';
import { atLimit, overLimit, type AccountLimitsOf } from './account-limits.js';
import { displayTextProblem } from './text.js';

export const MASK = '********';
/** deliveries kept per service */
/** A deletion's consequences elsewhere: operations for its batch, and what to do once it is written. */
export interface DeleteEffect {
  ops: WriteOp[];
  written(): void;
}

const DELIVERIES_KEPT = 20;

export interface ServiceRecord {
  id: number;
  title: string;
  type: string;
  settings: Record<string, unknown>;
  created_at: number;
  updated_at: number;
}

export interface ServiceInput {
  title?: string;
  type?: string;
  settings?: Record<string, unknown>;
}

export interface Delivery {
  /** epoch milliseconds */
  time: number;
  kind: 'trigger' | 'clear' | 'test';
  status: 'sent' | 'failed';
  error: string | null;
  duration_ms: number;
}

/** The plugin's verdict on type and settings: problems by field, or null. */
export type SettingsCheck = (type: string, settings: unknown) => Record<string, string[]> | null;
/** Setting names a type treats as secrets. */
export type SecretsOf = (type: string) => readonly string[];

const now = () => Math.floor(Date.now() / 1000);

export class Services {
  private readonly records: Collection<ServiceRecord>;
  private readonly deliveries: Collection<Delivery[]>;
  private readonly ids: Sequence;
  private readonly lock = new AccountLock();
  /** what a service's deletion changes elsewhere (alerts drop it), in the same batch */
  readonly deleteHooks: ((accountId: number, id: number) => Promise<DeleteEffect>)[] = [];

  constructor(
    store: Store,
    private readonly commit: CommitQueue,
    private readonly check: SettingsCheck,
    private readonly secretsOf: SecretsOf,
    private readonly limits: AccountLimitsOf,
  ) {
    this.records = new Collection<ServiceRecord>(store, 'services');
    this.deliveries = new Collection<Delivery[]>(store, 'service_deliveries');
    this.ids = new Sequence(store, 'services');
  }

  list(accountId: number): Promise<ServiceRecord[]> {
    return this.records.list(accountId);
  }

  /** One keyed read: an alert naming 50 services checks 50 keys, not 50 lists. */
  async exists(accountId: number, id: number): Promise<boolean> {
    return (await this.records.get(accountId, idKey(id))) !== undefined;
  }

  async get(accountId: number, id: number): Promise<ServiceRecord> {
    const s = await this.records.get(accountId, idKey(id));
    if (!s) throw notFound('Service');
    return s;
  }

  create(accountId: number, input: ServiceInput): Promise<ServiceRecord> {
    return this.lock.run(accountId, async () => {
      const title = this.title(input.title);
      const type = input.type ?? '';
      const settings = input.settings ?? {};
      this.checkSettings(type, settings);
      const limit = this.limits().services;
      if (await atLimit(this.records, accountId, limit)) throw overLimit('an account', limit, 'services', 'services');
      const { id, op } = await this.ids.next();
      const t = now();
      const record: ServiceRecord = { id, title, type, settings, created_at: t, updated_at: t };
      await this.commit.write([op, this.records.put(accountId, idKey(id), record)]);
      return record;
    });
  }

  update(accountId: number, id: number, input: ServiceInput): Promise<ServiceRecord> {
    return this.lock.run(accountId, async () => {
      const existing = await this.get(accountId, id);
      const title = input.title !== undefined ? this.title(input.title) : existing.title;
      const type = input.type ?? existing.type;
      let settings = input.settings ?? existing.settings;
      if (input.settings !== undefined && type === existing.type) settings = this.keepMaskedSecrets(type, input.settings, existing.settings);
      this.checkSettings(type, settings);
      const record: ServiceRecord = { ...existing, title, type, settings, updated_at: now() };
      await this.commit.write([this.records.put(accountId, idKey(id), record)]);
      return record;
    });
  }

  delete(accountId: number, id: number): Promise<void> {
    return this.lock.run(accountId, async () => {
      await this.get(accountId, id);
      const effects: DeleteEffect[] = [];
      for (const hook of this.deleteHooks) effects.push(await hook(accountId, id));
      await this.commit.write([...effects.flatMap((e) => e.ops), this.records.del(accountId, idKey(id)), this.deliveries.del(accountId, idKey(id))]);
      for (const e of effects) e.written();
    });
  }

  /**
   * Under the account's lock: two deliveries finishing together (an alert and a test)
   * would otherwise each read the list and the second write drop the first's record, and
   * one finishing after its service was deleted would leave a record of nothing.
   */
  recordDelivery(accountId: number, id: number, d: Delivery): Promise<void> {
    return this.lock.run(accountId, async () => {
      if (!(await this.records.get(accountId, idKey(id)))) return;
      const list = (await this.deliveries.get(accountId, idKey(id))) ?? [];
      list.unshift(d);
      await this.commit.write([this.deliveries.put(accountId, idKey(id), list.slice(0, DELIVERIES_KEPT))]);
    });
  }

  async lastDeliveries(accountId: number, id: number): Promise<Delivery[]> {
    await this.get(accountId, id);
    return (await this.deliveries.get(accountId, idKey(id))) ?? [];
  }

  /** The settings as answers show them: secrets masked, URL passwords masked. */
  masked(s: ServiceRecord): Record<string, unknown> {
    const secrets = new Set(this.secretsOf(s.type));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s.settings)) out[k] = secrets.has(k) && v !== null && v !== '' ? MASK : typeof v === 'string' ? maskUrlPassword(v) : v;
    return out;
  }

  private keepMaskedSecrets(type: string, next: Record<string, unknown>, stored: Record<string, unknown>): Record<string, unknown> {
    const secrets = new Set(this.secretsOf(type));
    const out: Record<string, unknown> = { ...next };
    for (const [k, v] of Object.entries(next)) {
      if (secrets.has(k) && v === MASK) out[k] = stored[k];
      else if (typeof v === 'string' && typeof stored[k] === 'string' && v === maskUrlPassword(stored[k]) && v !== stored[k]) out[k] = stored[k];
    }
    return out;
  }

  private checkSettings(type: string, settings: unknown): void {
    const problems = this.check(type, settings);
    if (problems) throw paramErrors(problems);
  }

  private title(raw: string | undefined): string {
    if (raw === undefined) throw paramErrors({ title: ['is required'] });
    const problem = displayTextProblem(raw);
    if (problem) throw paramErrors({ title: [problem] });
    return raw.trim();
  }
}

/** `https://user:secret@host/` -> `https://user:********@host/`; anything else as it is. */
export function maskUrlPassword(value: string): string {
  if (!/^https?:\/\//i.test(value)) return value;
  try {
    const u = new URL(value);
    if (!u.password) return value;
    u.password = MASK;
    return u.toString();
  } catch {
    return value;
  }
}
