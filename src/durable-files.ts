// Folders and files of the data directory, made so that nothing can hang or be left
// half-written. Folders one level at a time, not with mkdirSync's `recursive`: on Linux,
// Node 20's walk makes a missing parent and retries the child, and where the parent exists
// but cannot hold children (anything under /proc or /sys) the child's ENOENT comes back
// for ever: `serve --data-dir /proc/x` spun at 100 % CPU in native code and no signal
// stopped it.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes `text` to `file` whole or not at all: a crash (or power loss) mid-write leaves the
 * old file or none, never part of one.
 */
export function writeFileAtomically(file: string, text: string, mode: number): void {
  const tmp = `${file}.tmp`;
  // a new file, so that it gets `mode` (one left by a crash may have another)
  rmSync(tmp, { force: true });
  const fd = openSync(tmp, 'wx', mode);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  syncDirectory(dirname(file));
}

/** Makes what was created or renamed in `dir` survive a power loss. */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes `path` (and its missing parents, with `mode`); throws mkdir's own error where one cannot be made. */
export function makeDirectory(path: string, mode: number): void {
  // as given, not resolved: a relative path may lead where an absolute one cannot (a
  // process running as the data dir's owner inside it, behind a 0700 root folder)
  if (madeOrThere(path, mode, true)) return;
  makeDirectory(dirname(path), mode);
  // once: a parent that exists and still cannot hold the child (/proc) is the answer
  madeOrThere(path, mode, false);
}

/**
 * mkdir of one folder: true once it is made or was there, false when its parent is
 * missing and `parentMayBeMissing`; any other failure is thrown.
 */
function madeOrThere(dir: string, mode: number, parentMayBeMissing: boolean): boolean {
  try {
    mkdirSync(dir, { mode });
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      if (isFile(dir)) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${dir}'`), { code: 'ENOTDIR', path: dir, syscall: 'mkdir' });
      return true;
    }
    if (code === 'ENOENT' && parentMayBeMissing && dirname(dir) !== dir) return false;
    throw err;
  }
}

/** Whether `path` is there and not a folder (false when it cannot be told). */
function isFile(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}
