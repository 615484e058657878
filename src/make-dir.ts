// A directory and its missing parents, made one level at a time. Not mkdirSync's
// `recursive`: on Linux, Node 20's walk makes a missing parent and retries the child,
// and where the parent exists but cannot hold children (anything under /proc or /sys)
// the child's ENOENT comes back for ever: `serve --data-dir /proc/x` spun at 100 % CPU
// in native code and no signal stopped it.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Makes `path` (and its missing parents, with `mode`); throws mkdir's own error where one cannot be made. */
export function makeDirectory(path: string, mode: number): void {
  const missing: string[] = [];
  for (let dir = resolve(path); !isPresent(dir); dir = dirname(dir)) {
    missing.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, { mode });
    } catch (err) {
      // made meanwhile by someone else: what we wanted
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !isDirectory(dir)) throw err;
    }
  }
  if (!isDirectory(path)) {
    throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: 'ENOTDIR', path, syscall: 'mkdir' });
  }
}

function isPresent(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
