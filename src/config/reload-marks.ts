// Which config keys a SIGHUP applies and which wait for a restart, read from the
// `reload` marks next to each key in the schema: one place to say it, so a new key
// cannot be left out (test/config/reload-marks.test.ts fails on an unmarked key).
import { isDeepStrictEqual } from 'node:util';
import { configSchema } from './schema.js';

export type ReloadMark = 'live' | 'restart';

export interface MarkedKey {
  path: string[];
  /** null: the key has no mark (a schema bug the test reports) */
  reload: ReloadMark | null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Every leaf key of a schema (a marked object or list counts as one leaf). */
export function markedKeys(schema: unknown = configSchema, path: string[] = []): MarkedKey[] {
  if (!isRecord(schema)) return [];
  const mark = schema.reload;
  if (mark === 'live' || mark === 'restart') return [{ path, reload: mark }];
  if (isRecord(schema.properties)) {
    return Object.entries(schema.properties).flatMap(([key, sub]) => markedKeys(sub, [...path, key]));
  }
  return [{ path, reload: null }];
}

export function valueAt(obj: unknown, path: string[]): unknown {
  let v = obj;
  for (const key of path) v = isRecord(v) ? v[key] : undefined;
  return v;
}

function setAt(obj: object, path: string[], value: unknown): void {
  let target: unknown = obj;
  for (const key of path.slice(0, -1)) target = isRecord(target) ? target[key] : undefined;
  if (isRecord(target)) Reflect.set(target, path[path.length - 1]!, value);
}

/**
 * Keeps the running value of every restart-only key in `next` and names the keys whose
 * new value waits for a restart. Live keys are left as `next` has them.
 */
export function holdRestartKeys(old: object, next: object): string[] {
  const waiting: string[] = [];
  for (const { path, reload } of markedKeys()) {
    if (reload !== 'restart') continue;
    const before = valueAt(old, path);
    if (isDeepStrictEqual(before, valueAt(next, path))) continue;
    waiting.push(path.join('.'));
    setAt(next, path, before);
  }
  return waiting;
}

/** The live keys whose value differs between two configs (what a reload changed). */
export function changedLiveKeys(old: object, next: object): string[] {
  return markedKeys()
    .filter(({ path, reload }) => reload === 'live' && !isDeepStrictEqual(valueAt(old, path), valueAt(next, path)))
    .map(({ path }) => path.join('.'));
}
