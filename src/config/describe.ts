// Turning ajv's errors into problems an operator can act on: the file and line of the
// offending key, a dotted path, a plain message and a "did you mean" hint for typos.
// A value that came from the environment or a flag is blamed on that, not on the file.
import type { ErrorObject } from 'ajv';
import { isMap, isScalar, isSeq, type LineCounter, type Node } from 'yaml';
import { configSchema } from './schema.js';

export interface ConfigProblem {
  /** the config file, or the variable / flag a value came from */
  file: string;
  /** 1-based; 0 when the source has no lines (environment, flags) */
  line: number;
  path: string;
  message: string;
}

export interface ValueOrigin {
  path: string[];
  /** e.g. `environment GAUGEWAY_HTTP__LISTEN` or `--listen` */
  label: string;
}

export function formatProblem(p: ConfigProblem): string {
  return `${p.file}${p.line > 0 ? `:${p.line}` : ''}: ${p.path || '(root)'}: ${p.message}`;
}

/**
 * One problem per real mistake: a wrong duration fails both branches of an anyOf and
 * the anyOf itself, and only the anyOf explains what is wanted.
 */
export function relevantErrors(errors: ErrorObject[]): ErrorObject[] {
  return errors.filter((e) => !e.schemaPath.includes('/anyOf/'));
}

export function describeAjvError(e: ErrorObject, root: unknown, lc: LineCounter, file: string, origins: ValueOrigin[]): ConfigProblem {
  const segments = e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let message = e.message ?? 'is invalid';
  let target = segments;
  if (e.keyword === 'additionalProperties') {
    const extra = String((e.params as { additionalProperty: string }).additionalProperty);
    target = [...segments, extra];
    const hint = closest(extra, Object.keys(schemaAt(segments)));
    message = `unknown key "${extra}"${hint ? ` (did you mean "${hint}"?)` : ''}`;
  } else if (e.keyword === 'enum') {
    message = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  } else if (e.keyword === 'type') {
    const type = (e.params as { type: string | string[] }).type;
    message = `must be ${(Array.isArray(type) ? type : String(type).split(',')).join(' or ')}`;
  } else if (e.keyword === 'pattern' && isSizeKey(segments)) {
    message = 'must be a number of bytes or a size such as 512KiB, 5MB, 1GiB';
  } else if (e.keyword === 'pattern' && invalidMessage(segments) !== null) {
    // an operator cannot act on "must match pattern ^(\[[0-9a-fA-F:.]+\]|...)$"
    message = invalidMessage(segments)!;
  } else if (e.keyword === 'anyOf' && segments.length) {
    message = invalidMessage(segments) ?? 'must be a number of seconds or a duration such as 30s, 5m, 2h, 8d, 1w, 1y';
  }
  const origin = origins.find((o) => o.path.every((s, i) => target[i] === s));
  if (origin) return { file: origin.label, line: 0, path: formatPath(target), message };
  return { file, line: lineOf(root, target, lc), path: formatPath(target), message };
}

export function formatPath(segments: string[]): string {
  return segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

/** The schema's `invalid` message for the key at `segments`, or null. */
function invalidMessage(segments: string[]): string | null {
  const leaf = schemaAt(segments.slice(0, -1))[segments[segments.length - 1] ?? ''];
  return typeof leaf === 'object' && leaf !== null && 'invalid' in leaf && typeof leaf.invalid === 'string' ? leaf.invalid : null;
}

function isSizeKey(segments: string[]): boolean {
  const leaf = schemaAt(segments.slice(0, -1))[segments[segments.length - 1] ?? ''];
  return typeof leaf === 'object' && leaf !== null && 'unit' in leaf && leaf.unit === 'bytes';
}

function schemaAt(segments: string[]): Record<string, unknown> {
  let s: { properties?: Record<string, unknown>; items?: unknown } = configSchema;
  for (const seg of segments) {
    if (/^\d+$/.test(seg)) s = (s.items ?? {}) as typeof s;
    else s = (s.properties?.[seg] ?? {}) as typeof s;
  }
  return s.properties ?? {};
}

/** The key of `known` nearest to `word` by edit distance, if it is near enough to be a typo. */
export function closest(word: string, known: string[]): string | null {
  let best: string | null = null;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const k of known) {
    const d = editDistance(word, k);
    if (d < bestDistance) { best = k; bestDistance = d; }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

/** The line of the deepest YAML node that still exists along `path` (keys point at the key itself). */
export function lineOf(root: unknown, path: string[], lc: LineCounter): number {
  let node = root as Node | null;
  let offset = (node as { range?: [number] } | null)?.range?.[0] ?? 0;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === seg);
      if (!pair) break;
      offset = (pair.key as { range?: [number] }).range?.[0] ?? offset;
      node = pair.value as Node | null;
    } else if (isSeq(node)) {
      const item = node.items[Number(seg)] as Node | undefined;
      if (!item) break;
      offset = (item as { range?: [number] }).range?.[0] ?? offset;
      node = item;
    } else break;
  }
  return lc.linePos(offset).line;
}
