// The checks every parsed request body passes before anything reads it: no keys that
// could pollute prototypes, no nesting beyond the configured depth, no non-finite
// numbers. The body parser runs them on every body; the tagged fast path, which never
// builds the object tree, refuses the same keys while it scans.
import { ApiError } from '../errors.js';

/** Keys that could pollute prototypes: refused anywhere in a body. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Rejects prototype-polluting keys, over-deep nesting and non-finite numbers (1e400). */
export function inspect(value: unknown, maxDepth: number): void {
  walk(value, maxDepth, 0, []);
}

/**
 * `path` holds the keys and indexes leading to `value`; it is turned into a field name
 * (`measurements[3].value`) only when something is wrong, so a large body costs no
 * string building.
 */
function walk(value: unknown, maxDepth: number, depth: number, path: (string | number)[]): void {
  if (depth > maxDepth) throw new ApiError(400, { request: [`Request body is nested deeper than ${maxDepth} levels`] });
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ApiError(400, { params: { [fieldName(path)]: ['is not a finite number'] } });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const tooDeep = () => new ApiError(400, { request: [`Request body is nested deeper than ${maxDepth} levels`] });
  if (Array.isArray(value)) {
    if (value.length > 0 && depth + 1 > maxDepth) throw tooDeep();
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === null || (typeof item !== 'object' && typeof item !== 'number')) continue;
      path.push(i);
      walk(item, maxDepth, depth + 1, path);
      path.pop();
    }
    return;
  }
  const obj = value as Record<string, unknown>;
  for (const key in obj) {
    if (depth + 1 > maxDepth) throw tooDeep();
    if (FORBIDDEN_KEYS.has(key)) throw new ApiError(400, { request: [`Request body may not contain the key "${key}"`] });
    const item = obj[key];
    if (item === null || (typeof item !== 'object' && typeof item !== 'number')) continue;
    path.push(key);
    walk(item, maxDepth, depth + 1, path);
    path.pop();
  }
}

function fieldName(path: (string | number)[]): string {
  let name = '';
  for (const p of path) name = typeof p === 'number' ? `${name || 'body'}[${p}]` : name ? `${name}.${p}` : p;
  return name || 'body';
}

/**
 * Form bodies: the form parser drops prototype keys silently (`__proto__[x]=1` becomes
 * `{}`), so the keys are checked in the raw text, each bracketed segment on its own, to
 * refuse them the way a JSON body's are.
 */
export function inspectFormKeys(text: string): void {
  for (const pair of text.split('&')) {
    const eq = pair.indexOf('=');
    let key = eq === -1 ? pair : pair.slice(0, eq);
    try { key = decodeURIComponent(key.replace(/\+/g, ' ')); } catch { /* the parser decides about bad escapes */ }
    for (const segment of key.split(/[[\]]+/)) {
      if (FORBIDDEN_KEYS.has(segment)) throw new ApiError(400, { request: [`Request body may not contain the key "${segment}"`] });
    }
  }
}
