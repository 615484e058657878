// Config keys that name files or folders. A relative path in the file resolves against
// the file's folder (so a config works from any working directory); one given in the
// environment or on the command line resolves against the working directory, as a shell
// user expects.
import { isAbsolute, resolve } from 'node:path';

const PATH_KEYS = ['data_dir', 'tls.cert_file', 'tls.key_file', 'notifications.plugin_dirs', 'notifications.mail.ca_file'];

export function isPathKey(path: string[]): boolean {
  return PATH_KEYS.includes(path.join('.'));
}

export function absolutePath(value: unknown, base: string): unknown {
  if (Array.isArray(value)) return value.map((v) => absolutePath(v, base)); // a list of paths
  return typeof value === 'string' && value !== '' && !isAbsolute(value) ? resolve(base, value) : value;
}

/** Resolves every path key present in `data` against `base`, in place. */
export function resolvePathKeys(data: Record<string, unknown>, base: string): void {
  for (const key of PATH_KEYS) {
    const segments = key.split('.');
    let node: unknown = data;
    for (const s of segments.slice(0, -1)) node = isRecord(node) ? node[s] : undefined;
    const leaf = segments[segments.length - 1]!;
    if (isRecord(node) && leaf in node) node[leaf] = absolutePath(node[leaf], base);
  }
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Sets `value` at `path`, creating (or replacing non-object) sections on the way. */
export function setPath(data: Record<string, unknown>, path: string[], value: unknown): void {
  let node = data;
  for (const key of path.slice(0, -1)) {
    if (!isRecord(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}
