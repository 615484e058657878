// The signed-in account: its e-mail and API token, in sessionStorage only (gone when the
// tab closes; never in a URL, a cookie or localStorage). A session left idle for
// IDLE_LIMIT_MS ends, so a token does not sit in a forgotten tab for days. Idle means no
// one used the page: a click, a key or a navigation counts, the requests a page makes by
// itself (auto-refresh) do not, or a space left open would keep its session for ever.

export interface Session {
  email: string;
  token: string;
  /** ms since the epoch of the last activity of the person using it */
  lastUsed: number;
}

const KEY = 'gaugeway.session';
export const IDLE_LIMIT_MS = 8 * 3600 * 1000;

export type SessionState = { kind: 'active'; session: Session } | { kind: 'none' } | { kind: 'expired' };

export function currentSession(now = Date.now()): SessionState {
  const raw = sessionStorage.getItem(KEY);
  if (!raw) return { kind: 'none' };
  try {
    const s = JSON.parse(raw) as Session;
    if (typeof s.email !== 'string' || typeof s.token !== 'string' || typeof s.lastUsed !== 'number') throw new Error('malformed');
    if (now - s.lastUsed > IDLE_LIMIT_MS) { endSession(); return { kind: 'expired' }; }
    return { kind: 'active', session: s };
  } catch {
    endSession();
    return { kind: 'none' };
  }
}

/** A session to try the credentials with; nothing is stored until startSession. */
export function newSession(email: string, token: string): Session {
  return { email, token, lastUsed: Date.now() };
}

export function startSession(s: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(s));
}

/** Marks a started session as used now (one being tried is not stored by this). */
export function touchSession(s: Session): void {
  s.lastUsed = Date.now();
  if (sessionStorage.getItem(KEY) !== null) sessionStorage.setItem(KEY, JSON.stringify(s));
}

export function endSession(): void {
  sessionStorage.removeItem(KEY);
}
