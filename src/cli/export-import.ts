// `gaugeway export FILE` and `gaugeway import FILE`: definitions (cli/definitions.ts)
// through the running service's admin socket, or on the data dir of a stopped one.
import http from 'node:http';
import { resolve } from 'node:path';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/types.js';
import { GaugewayError } from '../errors.js';
import { adminSocketPath } from '../admin-socket.js';
import { parse, configOption } from './args.js';
import { asDataDirOwner } from './data-dir.js';
import { serviceUnreachable } from './admin-client.js';
import { exportDefinitions, importDefinitions, type ImportReport } from './definitions.js';

const EXPORT_USAGE = `usage:
  gaugeway export FILE [--config FILE] [--data-dir DIR]
    writes the definitions of every account (metrics, spaces and charts, annotation
    streams) as JSON to FILE (- for standard output); no tokens, no measurements.`;
const IMPORT_USAGE = `usage:
  gaugeway import FILE [--config FILE] [--data-dir DIR]
    creates or updates, by name, the definitions in FILE; run it again and it changes
    nothing. Accounts missing here are created without tokens.`;

type Out = (line: string) => void;

function socketCall(config: Config, method: 'GET' | 'POST', body?: string): Promise<{ status: number; text: string } | null> {
  const socketPath = adminSocketPath(config.data_dir);
  if (!existsSync(socketPath)) return Promise.resolve(null);
  return new Promise((resolve) => {
    const req = http.request({ socketPath, path: '/definitions', method, headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 500, text }));
    });
    req.on('error', () => resolve(null)); // a stale socket: the service is not running
    req.end(body);
  });
}

/**
 * Runs `fn` on a runtime over the stopped service's data dir (as its owner when run as
 * root, and only while `fn` runs: the file an export writes is the CLI user's).
 */
async function offline<T>(config: Config, fn: (rt: Awaited<ReturnType<typeof import('../runtime.js').createRuntime>>) => Promise<T>): Promise<T> {
  const [{ createLogger }, { createRuntime, closeRuntime }] = await Promise.all([import('../log.js'), import('../runtime.js')]);
  return asDataDirOwner(config, async (location) => {
    const rt = await createRuntime(location === 'db' ? { ...config, data_dir: '.' } : config, createLogger('warn')).catch((err: unknown) => {
      throw err instanceof GaugewayError && err.code === 'E_STORE_LOCKED' ? serviceUnreachable(config) : err;
    });
    try { return await fn(rt); } finally { await closeRuntime(rt); }
  });
}

function configFrom(values: Record<string, unknown>): Config {
  return loadConfig({ file: values.config as string | undefined, flags: { dataDir: values['data-dir'] as string | undefined } });
}

export async function exportCommand(args: string[], out: Out = console.log, err: Out = console.error): Promise<number> {
  const { values, positionals } = parse(args, { ...configOption, 'data-dir': { type: 'string' } }, EXPORT_USAGE);
  if (positionals.length !== 1) throw new GaugewayError('E_USAGE', EXPORT_USAGE);
  const config = configFrom(values);
  // resolved now, against the operator's working directory
  const file = positionals[0] === '-' ? '-' : resolve(positionals[0]!);
  const viaSocket = await socketCall(config, 'GET');
  const defs = viaSocket && viaSocket.status === 200 ? JSON.parse(viaSocket.text) : await offline(config, (rt) => exportDefinitions(rt));
  const text = JSON.stringify(defs, null, 2) + '\n';
  if (file === '-') out(text.trimEnd());
  else {
    writeFileSync(file, text, { mode: 0o600 });
    const counts = (defs.accounts as { metrics: unknown[]; spaces: { charts: unknown[] }[] }[]).reduce(
      (n, a) => ({ metrics: n.metrics + a.metrics.length, spaces: n.spaces + a.spaces.length, charts: n.charts + a.spaces.reduce((c, s) => c + s.charts.length, 0) }),
      { metrics: 0, spaces: 0, charts: 0 });
    err(`exported ${defs.accounts.length} accounts: ${counts.metrics} metrics, ${counts.spaces} spaces, ${counts.charts} charts to ${file}`);
  }
  return 0;
}

export async function importCommand(args: string[], out: Out = console.log): Promise<number> {
  const { values, positionals } = parse(args, { ...configOption, 'data-dir': { type: 'string' } }, IMPORT_USAGE);
  if (positionals.length !== 1) throw new GaugewayError('E_USAGE', IMPORT_USAGE);
  const config = configFrom(values);
  const text = readFileSync(positionals[0] === '-' ? 0 : positionals[0]!, 'utf8');
  let defs: unknown;
  try { defs = JSON.parse(text); } catch (e) { throw new GaugewayError('E_USAGE', `${positionals[0]} is not JSON: ${(e as Error).message}`); }
  const viaSocket = await socketCall(config, 'POST', JSON.stringify(defs));
  let report: ImportReport;
  if (viaSocket) {
    const body = JSON.parse(viaSocket.text);
    if (viaSocket.status !== 200) throw new GaugewayError('E_USAGE', body?.errors?.request?.[0] ?? `the service answered ${viaSocket.status}`);
    report = body as ImportReport;
  } else {
    report = await offline(config, (rt) => importDefinitions(rt, defs));
  }
  for (const [email, kinds] of Object.entries(report)) {
    out(`${email}: ${Object.entries(kinds).map(([kind, t]) => `${kind} ${t.created} created, ${t.updated} updated, ${t.skipped} skipped`).join('; ')}`);
  }
  return 0;
}
