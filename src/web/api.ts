// The public /v1 API, as the UI uses it: basic auth with the session's e-mail and token,
// JSON in and out, the spec's `errors` envelope turned into readable messages. The UI
// has no private endpoints: everything it shows, a script could fetch the same way.
import type { Session } from './session.js';

export class ApiFailure extends Error {
  constructor(readonly status: number, readonly messages: string[]) {
    super(messages.join('; ') || `HTTP ${status}`);
  }
}

export type Params = Record<string, string | number | boolean | readonly string[] | undefined>;

/** Where /v1 lives: beside the page, so the UI works under a proxy's sub-path too. */
export function apiBase(pageUrl: string): string {
  const url = new URL(pageUrl);
  url.hash = '';
  url.search = '';
  return new URL('.', url).href;
}

/**
 * A `links` `next` href as a path under the API base: the href is a path with its query,
 * or, behind a proxy with `http.external_url`, an absolute URL under that address (the one
 * this page reached the API by, whose path prefix the base already holds).
 */
export function nextPath(href: string, base: string): string {
  if (!/^https?:/i.test(href)) return href.replace(/^\//, '');
  const url = new URL(href);
  const prefix = new URL(base).pathname.replace(/\/?$/, '/');
  return (url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname.replace(/^\//, '')) + url.search;
}

/** `{errors: {params: {name: ['is required']}, request: ['…']}}` as `name is required`, `…`. */
export function errorMessages(body: unknown): string[] {
  const errors = (body as { errors?: unknown } | null)?.errors;
  if (!errors || typeof errors !== 'object') return [];
  const out: string[] = [];
  const walk = (value: unknown, field: string): void => {
    if (typeof value === 'string') out.push(field ? `${field} ${value}` : value);
    else if (Array.isArray(value)) for (const v of value) walk(v, field);
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k === 'request' || k === 'system' || k === 'params' ? field : k);
  };
  walk(errors, '');
  return out;
}

export function queryString(params: Params): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) q.append(k, item);
    else q.append(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

function utf8Base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export class Api {
  private readonly auth: string;

  /**
   * `onUnauthorized` runs when a request made with this session is refused with 401;
   * `mayUse` is asked before each request (a session that expired sends nothing more).
   */
  constructor(private readonly base: string, session: Session, private readonly onUnauthorized: () => void, private readonly mayUse: () => boolean = () => true) {
    this.auth = `Basic ${utf8Base64(`${session.email}:${session.token}`)}`;
  }

  get<T>(path: string, params: Params = {}): Promise<T> {
    return this.request<T>('GET', path + queryString(params));
  }

  send<T>(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    return this.request<T>(method, path, body);
  }

  /** Follows a `links` `next` href. */
  next<T>(href: string): Promise<T> {
    return this.request<T>('GET', nextPath(href, this.base));
  }

  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    if (!this.mayUse()) throw new ApiFailure(401, ['The session has ended: sign in again.']);
    const headers: Record<string, string> = { Authorization: this.auth, Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(this.base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer' });
    } catch {
      throw new ApiFailure(0, ['Gaugeway did not answer: check the address and that the service is running.']);
    }
    const text = await res.text();
    let parsed: unknown = undefined;
    try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = undefined; }
    if (res.status === 401) this.onUnauthorized();
    if (!res.ok) {
      const messages = errorMessages(parsed);
      throw new ApiFailure(res.status, messages.length ? messages : [`${method} ${path.split('?')[0]} answered ${res.status}`]);
    }
    return parsed as T;
  }
}

/**
 * Every item of a paged list (`{query: {found}, <key>: [...]}`), a page of 100 at a time,
 * at most `max`; `params`: the list's filters (a name search).
 */
export async function listAll<T>(api: Api, path: string, key: string, max = 2000, params: Params = {}): Promise<T[]> {
  const items: T[] = [];
  for (;;) {
    const page = await api.get<{ query: { found: number } } & Record<string, unknown>>(path, { ...params, offset: items.length, length: 100 });
    const got = (page[key] ?? []) as T[];
    items.push(...got);
    if (!got.length || items.length >= page.query.found || items.length >= max) return items;
  }
}
