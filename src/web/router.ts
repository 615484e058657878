// Hash routes (`#/spaces/3?range=6h`): the page itself is one file at any path, so the
// UI works at `/` and under a proxy's sub-path alike, and nothing sensitive goes in the
// URL the server sees.

export interface Route { path: string[]; query: URLSearchParams }

/** The route of a hash, or null when a part of its path is not valid percent-encoding (no page has it). */
export function parseHash(hash: string): Route | null {
  const text = hash.replace(/^#\/?/, '');
  const q = text.indexOf('?');
  let path: string[];
  try {
    path = (q < 0 ? text : text.slice(0, q)).split('/').filter(Boolean).map((p) => decodeURIComponent(p));
  } catch {
    return null;
  }
  return { path, query: new URLSearchParams(q < 0 ? '' : text.slice(q + 1)) };
}

export function hashOf(path: readonly (string | number)[], query: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, v);
  const s = q.toString();
  return `#/${path.map((p) => encodeURIComponent(String(p))).join('/')}${s ? `?${s}` : ''}`;
}

/** Matches `pattern` (`spaces/:id`) against a path; the `:` parts come back by name. */
export function match(pattern: string, path: readonly string[]): Record<string, string> | null {
  const parts = pattern.split('/').filter(Boolean);
  if (parts.length !== path.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.startsWith(':')) params[p.slice(1)] = path[i]!;
    else if (p !== path[i]) return null;
  }
  return params;
}
