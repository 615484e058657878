// `gaugeway check-config`: validate a config file offline, print every problem as
// `file:line: path: message`, exit 1 if there is any.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { certificateFileProblem } from '../config/ca-file.js';
import { ConfigError, formatProblem, loadConfig, type ConfigProblem } from '../config/load.js';
import type { Config } from '../config/types.js';
import { parse, configOption } from './args.js';

const USAGE = `usage:
  gaugeway check-config [--config FILE] [--print]
    checks the config file (the one serve would use, or FILE), its TLS files, plugin
    folders and mail CA file; prints each problem as file:line: key: message and exits
    1 if there is any. --print writes the complete configuration, defaults filled in,
    as JSON on standard output (the OK line goes to standard error then, so \`| jq\`
    works).`;

export function checkConfig(args: string[], out: (line: string) => void = console.log, err: (line: string) => void = console.error): number {
  const { values } = parse(args, { ...configOption, print: { type: 'boolean' } }, USAGE);
  try {
    const config = loadConfig({ file: values.config as string | undefined });
    const fileProblems = [checkTlsFiles(config), ...checkNotificationFiles(config)].filter((p): p is ConfigProblem => p !== null);
    if (fileProblems.length) { for (const p of fileProblems) err(formatProblem(p)); return 1; }
    // with --print, standard output is only the JSON, for `| jq`
    if (values.print) {
      err(`${config.source ?? 'embedded default'}: OK`);
      out(JSON.stringify(config, printable, 2));
    } else {
      out(`${config.source}: OK`);
    }
    return 0;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    for (const p of e.problems) err(formatProblem(p));
    return 1;
  }
}

/** Setting names whose values are secrets written in clear: the SMTP password, a scrape job's password and credentials. */
const SECRET_KEYS = new Set(['password', 'credentials']);

/**
 * JSON.stringify's replacer for --print: the effective values, with the secrets masked,
 * and the scrape jobs' compiled relabel rules readable (JSON has no bigint, which threw
 * "Do not know how to serialize a BigInt" for any job with relabel rules, nor RegExp or Map).
 */
function printable(key: string, value: unknown): unknown {
  if (SECRET_KEYS.has(key) && typeof value === 'string') return '********';
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof RegExp) return value.source;
  if (value instanceof Map) return Object.fromEntries(value);
  return value;
}

/**
 * The configured certificate and key must be readable (by whoever runs this: systemd's
 * ExecReload runs it as the service user) and belong together, or a reload would fail.
 */
function checkTlsFiles(config: Config): ConfigProblem | null {
  const { cert_file, key_file } = config.tls;
  if (!cert_file || !key_file) return null;
  try {
    createSecureContext({ cert: readFileSync(cert_file), key: readFileSync(key_file) });
    return null;
  } catch (e) {
    return { file: config.source ?? 'config', line: 0, path: 'tls', message: `cannot use ${cert_file} with ${key_file}: ${(e as Error).message}` };
  }
}

/**
 * serve refuses to start without every plugin folder or with a mail CA file it cannot
 * read, and a reload with such a CA file fails: both are checked here too, so that an
 * install's check catches them before a start or `systemctl reload` does.
 */
function checkNotificationFiles(config: Config): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ file: config.source ?? 'config', line: 0, path, message });
  config.notifications.plugin_dirs.forEach((dir, i) => {
    try {
      if (!statSync(dir).isDirectory()) problem(`notifications.plugin_dirs[${i}]`, `${dir} is not a folder`);
      else readdirSync(dir);
    } catch (e) {
      problem(`notifications.plugin_dirs[${i}]`, `cannot read the plugin folder ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  });
  const ca = config.notifications.mail.ca_file;
  if (ca) {
    const caProblem = certificateFileProblem(ca);
    if (caProblem) problem('notifications.mail.ca_file', caProblem);
  }
  return problems;
}
