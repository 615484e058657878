// Loading a config: read YAML, expand ${VAR}, validate against the schema (which fills
// defaults), then apply GAUGEWAY_* environment overrides and command-line flags.
// Precedence: flags > environment > file > schema defaults.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { parseDocument, LineCounter } from 'yaml';
import { configSchema } from './schema.js';
import type { Config } from './types.js';
import { GaugewayError } from '../errors.js';
import { expandDocument } from './expand.js';
import { applyEnvironment } from './environment.js';
import { describeAjvError, formatPath, formatProblem, lineOf, relevantErrors, type ConfigProblem, type ValueOrigin } from './describe.js';
import { isRecord, resolvePathKeys, setPath } from './paths.js';
import { crossKeyProblems } from './rules.js';
import { scrapeJobs } from './scrape-files.js';

export { formatProblem, type ConfigProblem };

/** The config that `npm start` runs with no edits. */
export const EMBEDDED_DEFAULT = resolve(dirname(fileURLToPath(import.meta.url)), '../../config/default.yaml');

/** Where a package installation keeps its config (docs/operations.md). */
export const SYSTEM_CONFIG = '/etc/gaugeway/config.yaml';

export interface LoadOptions {
  /** path given with --config, or null to look for one (see configPath) */
  file?: string | null;
  /** the installed config looked for after the environment; null to skip (tests) */
  systemConfig?: string | null;
  env?: NodeJS.ProcessEnv;
  /** command-line overrides */
  flags?: { listen?: string; dataDir?: string };
}

export class ConfigError extends GaugewayError {
  readonly problems: ConfigProblem[];
  constructor(problems: ConfigProblem[]) {
    super('E_CONFIG_INVALID', problems.map(formatProblem).join('\n'));
    this.problems = problems;
  }
}

/**
 * --config, else $GAUGEWAY_CONFIG, else config.yaml in systemd's
 * $CONFIGURATION_DIRECTORY, else /etc/gaugeway/config.yaml, else the embedded default.
 * The installed file comes before the embedded one so that `sudo gaugeway tokens ...`
 * on a server finds the service's data dir without --config.
 */
export function configPath(opts: LoadOptions): string {
  const env = opts.env ?? process.env;
  if (opts.file) return resolve(opts.file);
  if (env.GAUGEWAY_CONFIG) return resolve(env.GAUGEWAY_CONFIG);
  const installed = [
    env.CONFIGURATION_DIRECTORY ? join(env.CONFIGURATION_DIRECTORY.split(':')[0]!, 'config.yaml') : null,
    opts.systemConfig === undefined ? SYSTEM_CONFIG : opts.systemConfig,
  ];
  return installed.find((f): f is string => !!f && existsSync(f)) ?? EMBEDDED_DEFAULT;
}

/**
 * The config as the schema admits it, defaults filled in: what `finish` completes into a
 * Config (host and port split from `listen`, durations in seconds, the source).
 */
type ValidConfig = Omit<Config, 'source' | 'http' | 'storage' | 'notifications' | 'scrapeJobs'> & {
  http: Omit<Config['http'], 'host' | 'port'>;
  storage: Omit<Config['storage'], 'retention'> & { retention: Record<keyof Config['storage']['retention'], number | string> };
  notifications: Omit<Config['notifications'], 'retry_max_age'> & { retry_max_age: number | string };
};

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
// `reload` marks each key as applied by SIGHUP or waiting for a restart (config/reload-marks.ts)
ajv.addKeyword({ keyword: 'reload', schemaType: 'string' });
// `unit: 'bytes'` marks size keys, whose strings (5MB) are turned into integers before validation
ajv.addKeyword({ keyword: 'unit', schemaType: 'string' });
// `invalid`: the message for a value none of a key's `anyOf` forms admits
ajv.addKeyword({ keyword: 'invalid', schemaType: 'string' });
let validateConfig: ValidateFunction<ValidConfig> | null = null;

/**
 * Compiled at the first load, not at import: `--help` and usage errors of every command
 * import this module and need no schema, and ajv's compile was a third of their start.
 */
function validator(): ValidateFunction<ValidConfig> {
  return (validateConfig ??= ajv.compile<ValidConfig>(configSchema));
}

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
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  for (const e of doc.errors) {
    problems.push({ file, line: lineCounter.linePos(e.pos[0]).line, path: '', message: e.message.split('\n')[0] ?? e.message });
  }
  if (problems.length) throw new ConfigError(problems);

  // A variable that is not set is reported once, on its own line; the empty value it
  // leaves behind would only repeat the complaint, so schema errors on that line are dropped.
  const unsetLines = new Set<number>();
  const referenced = expandDocument(doc, lineCounter, env, ({ line, path, message }) => {
    unsetLines.add(line);
    problems.push({ file, line, path: formatPath(path), message });
  });
  const raw: unknown = doc.toJS() ?? {};
  if (!isRecord(raw)) {
    throw new ConfigError([{ file, line: 1, path: '', message: 'must be a mapping of keys to values' }]);
  }
  const data = raw;
  const origins: ValueOrigin[] = applyEnvironment(data, env, referenced, (variable, path, message) =>
    problems.push({ file: `environment ${variable}`, line: 0, path: path.join('.'), message }),
  ).map((o) => ({ path: o.path, label: `environment ${o.variable}` }));
  if (flags.listen !== undefined) {
    setPath(data, ['http', 'listen'], flags.listen);
    origins.push({ path: ['http', 'listen'], label: '--listen' });
  }
  if (flags.dataDir !== undefined) {
    setPath(data, ['data_dir'], resolve(flags.dataDir));
    origins.push({ path: ['data_dir'], label: '--data-dir' });
  }

  convertSizes(data);
  const validate = validator();
  const valid = validate(data);
  if (!valid) {
    for (const e of relevantErrors(validate.errors ?? [])) {
      const problem = describeAjvError(e, doc.contents, lineCounter, file, origins);
      if (!(problem.line > 0 && problem.file === file && unsetLines.has(problem.line))) problems.push(problem);
    }
  } else if (!problems.length) {
    problems.push(...crossKeyProblems(data, doc.contents, lineCounter, file, origins));
    problems.push(...listenPortProblems(data.http.listen, doc.contents, lineCounter, file, origins));
  }
  let scrape: Config['scrapeJobs'] = [];
  if (valid && !problems.length) {
    const found = scrapeJobs(data.scrape, file, doc.contents, lineCounter, dirname(file));
    problems.push(...found.problems);
    scrape = found.jobs;
  }
  // (an invalid config always has a problem to show: its schema errors, or the unset variables they came from)
  if (!valid || problems.length) throw new ConfigError(inLineOrder(problems, file));
  // After validation, so defaults such as ./data resolve too; values from the
  // environment and flags are absolute already.
  resolvePathKeys(data, dirname(file));
  return finish(data, file, scrape);
}

/**
 * The schema's pattern admits any five digits after the colon; a socket takes 0 to 65535,
 * and serve would die on more with Node's own message instead of a file:line here.
 */
function listenPortProblems(listen: string, root: unknown, lc: LineCounter, file: string, origins: ValueOrigin[]): ConfigProblem[] {
  const port = Number(/:([0-9]+)$/.exec(listen)![1]);
  if (port <= 65535) return [];
  const message = `port ${port} does not exist: use 1 to 65535 (or 0 for any free port)`;
  const origin = origins.find((o) => o.path.join('.') === 'http.listen');
  return [origin
    ? { file: origin.label, line: 0, path: 'http.listen', message }
    : { file, line: lineOf(root, ['http', 'listen'], lc), path: 'http.listen', message }];
}

/** The file's problems by line, then those from the environment and flags, as they came. */
function inLineOrder(problems: ConfigProblem[], file: string): ConfigProblem[] {
  const inFile = problems.filter((p) => p.file === file).sort((a, b) => a.line - b.line);
  return [...inFile, ...problems.filter((p) => p.file !== file)];
}

const SIZE_UNITS: Record<string, number> = {
  B: 1, KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, KIB: 1024, MIB: 1024 ** 2, GIB: 1024 ** 3, TIB: 1024 ** 4,
};

/** `5MB` -> 5000000, `512KiB` -> 524288; null for anything else (left for the schema to refuse). Same grammar as the schema's pattern. */
export function sizeBytes(v: string): number | null {
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]i?b|b)\s*$/i.exec(v);
  if (!m) return null;
  // an absurd size stays a (non-finite) number, which the schema refuses as not an integer
  return Math.round(Number(m[1]) * SIZE_UNITS[m[2]!.toUpperCase()]!);
}

/** Size keys given as strings with a unit become integers, so the schema checks their bounds. */
function convertSizes(data: Record<string, unknown>): void {
  for (const path of sizeKeyPaths) {
    let parent: unknown = data;
    for (const key of path.slice(0, -1)) parent = isRecord(parent) ? parent[key] : undefined;
    const last = path[path.length - 1]!;
    if (!isRecord(parent) || typeof parent[last] !== 'string') continue;
    const bytes = sizeBytes(parent[last]);
    if (bytes !== null) parent[last] = bytes;
  }
}

/** Paths of the keys the schema marks `unit: 'bytes'`. */
function sizeKeys(schema: unknown, path: string[] = []): string[][] {
  if (!isRecord(schema)) return [];
  if (schema.unit === 'bytes') return [path];
  return isRecord(schema.properties) ? Object.entries(schema.properties).flatMap(([k, sub]) => sizeKeys(sub, [...path, k])) : [];
}
const sizeKeyPaths = sizeKeys(configSchema);

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000 };

export function durationSeconds(v: number | string): number {
  if (typeof v === 'number') return v;
  const m = /^([0-9]+)([smhdwy])$/.exec(v)!;
  return Number(m[1]) * UNIT_SECONDS[m[2]!]!;
}

function finish(c: ValidConfig, file: string, scrapeJobs: Config['scrapeJobs']): Config {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(c.http.listen)!;
  const r = c.storage.retention;
  return {
    ...c,
    source: file,
    http: { ...c.http, host: m[1] ?? m[2]!, port: Number(m[3]) },
    storage: {
      ...c.storage,
      retention: { raw: durationSeconds(r.raw), '60': durationSeconds(r['60']), '900': durationSeconds(r['900']), '3600': durationSeconds(r['3600']) },
    },
    notifications: { ...c.notifications, retry_max_age: durationSeconds(c.notifications.retry_max_age) },
    scrapeJobs,
  };
}
