// Loading a config: read YAML, expand ${VAR}, validate against the schema (which fills
// defaults), then apply GAUGEWAY_* environment overrides and command-line flags.
// Precedence: flags > environment > file > schema defaults.
import { readFileSync } from 'node:fs';
import { dirname, resolve, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject } from 'ajv';
import { parseDocument, LineCounter, isMap, isSeq, isScalar, type Node, parse as parseYaml } from 'yaml';
import { configSchema } from './schema.js';
import type { Config } from './types.js';
import { GaugewayError } from '../errors.js';

/** The config that `npm start` runs with no edits. */
export const EMBEDDED_DEFAULT = resolve(dirname(fileURLToPath(import.meta.url)), '../../config/default.yaml');

export interface LoadOptions {
  /** path given with --config, or null for $GAUGEWAY_CONFIG / the embedded default */
  file?: string | null;
  env?: NodeJS.ProcessEnv;
  /** command-line overrides */
  flags?: { listen?: string; dataDir?: string };
}

export interface ConfigProblem {
  file: string;
  line: number;
  path: string;
  message: string;
}

export class ConfigError extends GaugewayError {
  readonly problems: ConfigProblem[];
  constructor(problems: ConfigProblem[]) {
    super('E_CONFIG_INVALID', problems.map(formatProblem).join('\n'));
    this.problems = problems;
  }
}

export function formatProblem(p: ConfigProblem): string {
  return `${p.file}:${p.line}: ${p.path || '(root)'}: ${p.message}`;
}

export function configPath(opts: LoadOptions): string {
  const env = opts.env ?? process.env;
  return resolve(opts.file ?? env.GAUGEWAY_CONFIG ?? EMBEDDED_DEFAULT);
}

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
const validate = ajv.compile(configSchema);

export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const file = configPath(opts);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([{ file, line: 0, path: '', message: `cannot read: ${(err as Error).message}` }]);
  }
  return parseConfig(text, file, env, opts.flags ?? {});
}

export function parseConfig(text: string, file: string, env: NodeJS.ProcessEnv, flags: LoadOptions['flags'] = {}): Config {
  const problems: ConfigProblem[] = [];
  const expanded = expandVariables(text, env, (line, message) => problems.push({ file, line, path: '', message }));
  const lineCounter = new LineCounter();
  const doc = parseDocument(expanded, { lineCounter, prettyErrors: false, uniqueKeys: true });
  for (const e of doc.errors) {
    problems.push({ file, line: lineCounter.linePos(e.pos[0]).line, path: '', message: e.message.split('\n')[0] ?? e.message });
  }
  if (problems.length) throw new ConfigError(problems);

  const raw: unknown = doc.toJS() ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError([{ file, line: 1, path: '', message: 'must be a mapping of keys to values' }]);
  }
  const data = raw as Record<string, unknown>;
  resolveFilePaths(data, dirname(file));
  applyEnvironment(data, env, (path, message) => problems.push({ file: 'environment', line: 0, path, message }));
  if (flags?.listen) setPath(data, ['http', 'listen'], flags.listen);
  if (flags?.dataDir) setPath(data, ['data_dir'], resolve(flags.dataDir));
  if (problems.length) throw new ConfigError(problems);

  if (!validate(data)) {
    for (const e of validate.errors ?? []) problems.push(describeAjvError(e, doc.contents, lineCounter, file));
    throw new ConfigError(problems);
  }
  return finish(data, file);
}

/** `${VAR}`, `${VAR:-default}`, `${VAR:?message}`, and `$$` for a literal dollar. */
export function expandVariables(text: string, env: NodeJS.ProcessEnv, fail: (line: number, message: string) => void): string {
  return text.split('\n').map((lineText, i) =>
    lineText.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)([^}]*))?\}/g, (whole, name: string | undefined, op: string | undefined, arg: string | undefined) => {
      if (whole === '$$') return '$';
      const value = env[name!];
      if (value !== undefined && value !== '') return value;
      if (op === ':-') return arg ?? '';
      if (op === ':?') { fail(i + 1, `\${${name}} is not set: ${arg || 'required'}`); return ''; }
      if (value === '') return '';
      fail(i + 1, `\${${name}} is not set and has no default (write \${${name}:-default})`);
      return '';
    }),
  ).join('\n');
}

function resolveFilePaths(data: Record<string, unknown>, base: string): void {
  const abs = (p: unknown) => (typeof p === 'string' && p !== '' && !isAbsolute(p) ? resolve(base, p) : p);
  data.data_dir = abs(data.data_dir ?? './data');
  const tls = data.tls;
  if (tls && typeof tls === 'object' && !Array.isArray(tls)) {
    const t = tls as Record<string, unknown>;
    if ('cert_file' in t) t.cert_file = abs(t.cert_file);
    if ('key_file' in t) t.key_file = abs(t.key_file);
  }
}

/**
 * GAUGEWAY_HTTP__LISTEN=0.0.0.0:8443 sets http.listen: a double underscore separates
 * levels, single underscores stay part of the key. Values are read as YAML scalars.
 */
function applyEnvironment(data: Record<string, unknown>, env: NodeJS.ProcessEnv, fail: (path: string, message: string) => void): void {
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('GAUGEWAY_') || name === 'GAUGEWAY_CONFIG' || value === undefined) continue;
    const path = name.slice('GAUGEWAY_'.length).toLowerCase().split('__');
    if (!(path[0]! in configSchema.properties)) {
      fail(path.join('.'), `${name} names no config key`);
      continue;
    }
    let parsed: unknown;
    try { parsed = parseYaml(value); } catch { parsed = value; }
    if (path.length === 1 && path[0] === 'data_dir' && typeof parsed === 'string') parsed = resolve(parsed);
    setPath(data, path, parsed);
  }
}

function setPath(data: Record<string, unknown>, path: string[], value: unknown): void {
  let node = data;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (!next || typeof next !== 'object' || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

function describeAjvError(e: ErrorObject, root: unknown, lc: LineCounter, file: string): ConfigProblem {
  const segments = e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let message = e.message ?? 'is invalid';
  let target = segments;
  if (e.keyword === 'additionalProperties') {
    const extra = String((e.params as { additionalProperty: string }).additionalProperty);
    target = [...segments, extra];
    const known = Object.keys(schemaAt(segments));
    const hint = closest(extra, known);
    message = `unknown key "${extra}"${hint ? ` (did you mean "${hint}"?)` : ''}`;
  } else if (e.keyword === 'enum') {
    message = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  } else if (e.keyword === 'anyOf' && segments.length) {
    message = 'must be a number of seconds or a duration such as 30s, 5m, 2h, 8d, 1w, 1y';
  }
  return { file, line: lineOf(root, target, lc), path: formatPath(target), message };
}

function formatPath(segments: string[]): string {
  return segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

function schemaAt(segments: string[]): Record<string, unknown> {
  let s: { properties?: Record<string, unknown>; items?: unknown } = configSchema as never;
  for (const seg of segments) {
    if (/^\d+$/.test(seg)) s = (s.items ?? {}) as typeof s;
    else s = (s.properties?.[seg] ?? {}) as typeof s;
  }
  return s.properties ?? {};
}

/** The key of `known` nearest to `word` by edit distance, if it is near enough to be a typo. */
function closest(word: string, known: string[]): string | null {
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
function lineOf(root: unknown, path: string[], lc: LineCounter): number {
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

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000 };

export function durationSeconds(v: number | string): number {
  if (typeof v === 'number') return v;
  const m = /^([0-9]+)([smhdwy])$/.exec(v)!;
  return Number(m[1]) * UNIT_SECONDS[m[2]!]!;
}

function finish(data: Record<string, unknown>, file: string): Config {
  const c = data as unknown as Config & { storage: { retention: Record<string, number | string> } };
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(c.http.listen)!;
  c.http.host = m[1] ?? m[2]!;
  c.http.port = Number(m[3]);
  const r = c.storage.retention;
  for (const k of Object.keys(r)) r[k] = durationSeconds(r[k]!);
  c.source = file;
  return c as Config;
}
