// The account and token operations of the admin API, defined once: the admin socket
// (src/http/admin.ts) serves them while the service runs, and the CLI runs them on the
// data dir itself while it is stopped (src/cli/admin-client.ts).
import { AccountError, checkTokenName, type AccountDirectory } from './accounts.js';
import type { Role } from '../config/types.js';

export type AdminMethod = 'GET' | 'POST';
type Params = Record<string, string>;
type Body = Record<string, unknown>;

export interface AdminOperation {
  method: AdminMethod;
  /** router-style path: `:name` segments become params */
  path: string;
  /** status of a successful answer */
  status: number;
  /** what a successful change did, for the service log ("token rotated"); null for a read */
  logs: string | null;
  run(accounts: AccountDirectory, params: Params, body: Body): unknown;
}

const ROLES: readonly Role[] = ['admin', 'recorder', 'viewer'];

function role(v: unknown): Role {
  const r = (v ?? 'admin') as Role;
  if (!ROLES.includes(r)) throw new AccountError('invalid', 'role must be admin, recorder or viewer');
  return r;
}

const op = (method: AdminMethod, path: string, run: AdminOperation['run'], status = 200, logs: string | null = null): AdminOperation => ({ method, path, status, run, logs });

export const ADMIN_OPERATIONS: readonly AdminOperation[] = [
  op('GET', '/accounts', (a) => a.listAccounts()),
  op('POST', '/accounts', async (a, _p, b) => {
    const tokenRole = role(b.role);
    // checked first: a bad name refused after the account was written would leave an
    // account without a token, and a retry would say it already exists
    const tokenName = String(b.token_name ?? 'default');
    checkTokenName(tokenName);
    const account = await a.createAccount(String(b.email ?? ''));
    const created = await a.createToken(account.email, tokenName, tokenRole);
    return { account, token: created.token, secret: created.secret };
  }, 201, 'account created'),
  op('POST', '/accounts/:email/enable', (a, p) => a.setAccountActive(p.email!, true), 200, 'account enabled'),
  op('POST', '/accounts/:email/disable', (a, p) => a.setAccountActive(p.email!, false), 200, 'account disabled'),
  op('GET', '/accounts/:email/tokens', (a, p) => a.listTokens(p.email!)),
  op('POST', '/accounts/:email/tokens', (a, p, b) => a.createToken(p.email!, String(b.name ?? ''), role(b.role)), 201, 'token created'),
  op('POST', '/accounts/:email/tokens/:name/enable', (a, p) => a.setTokenActive(p.email!, p.name!, true), 200, 'token enabled'),
  op('POST', '/accounts/:email/tokens/:name/disable', (a, p) => a.setTokenActive(p.email!, p.name!, false), 200, 'token disabled'),
  op('POST', '/accounts/:email/tokens/:name/rotate', (a, p) => a.rotateToken(p.email!, p.name!), 200, 'token rotated'),
];

/** The operation for a request line, with its decoded params. */
export function findOperation(method: string, path: string): { op: AdminOperation; params: Params } | null {
  for (const candidate of ADMIN_OPERATIONS) {
    if (candidate.method !== method) continue;
    const params = matchPath(candidate.path, path);
    if (params) return { op: candidate, params };
  }
  return null;
}

function matchPath(pattern: string, path: string): Params | null {
  const want = pattern.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return null;
  const params: Params = {};
  for (let i = 0; i < want.length; i++) {
    const [w, h] = [want[i]!, have[i]!];
    if (!w.startsWith(':')) {
      if (w !== h) return null;
      continue;
    }
    if (h === '') return null;
    try { params[w.slice(1)] = decodeURIComponent(h); } catch { return null; }
  }
  return params;
}
