// Commands that open a stopped service's data dir themselves (accounts/tokens while the
// service is down, store repair and compact, backup, export and import) first make sure
// it is the right folder and that they will not leave files the service cannot read.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/types.js';
import { GaugewayError } from '../errors.js';

/** Checks the data dir, becomes its owner for good if run as root, and returns the database path to open. */
export function enterStoppedDataDir(config: Config): string {
  const location = checkStoppedDataDir(config);
  const owner = ownerToActAs(config.data_dir);
  if (!owner) return location;
  process.chdir(config.data_dir);
  process.setgroups!([owner.gid]);
  process.setgid!(owner.gid);
  process.setuid!(owner.uid);
  return 'db';
}

/**
 * Runs `fn` on the stopped service's database as the data dir's owner when run as root,
 * like enterStoppedDataDir, but for a while only: afterwards the CLI is root again, in the
 * working directory it started in, so what the command writes for the operator (a backup,
 * an export) is written as root, where the operator asked. Only the effective ids change,
 * which root can take back. `fn` must close the database before it returns: LevelDB
 * creates files from its own threads while it is open, and they must be the owner's.
 */
export async function asDataDirOwner<T>(config: Config, fn: (location: string) => Promise<T>): Promise<T> {
  const location = checkStoppedDataDir(config);
  const owner = ownerToActAs(config.data_dir);
  if (!owner) return fn(location);
  const cwd = process.cwd();
  const groups = process.getgroups!();
  process.chdir(config.data_dir);
  process.setgroups!([owner.gid]);
  process.setegid!(owner.gid);
  process.seteuid!(owner.uid);
  try {
    return await fn('db');
  } finally {
    process.seteuid!(0);
    process.setegid!(0);
    process.setgroups!(groups);
    process.chdir(cwd);
  }
}

/** The database path, once the data dir is known to be readable and to hold one. */
function checkStoppedDataDir(config: Config): string {
  const location = join(config.data_dir, 'db');
  try {
    accessSync(config.data_dir, constants.R_OK | constants.X_OK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EACCES') {
      throw new GaugewayError('E_NOT_RUNNING', `permission denied on ${config.data_dir}: run gaugeway as the service user or root (sudo)`);
    }
  }
  // Opening creates a database; an operator who got --config or --data-dir wrong would
  // get tokens for an empty database nobody serves.
  if (!existsSync(location)) {
    throw new GaugewayError('E_NOT_RUNNING', `no database in ${config.data_dir} (config ${config.source}): check --config / --data-dir, or start the service once to create it`);
  }
  return location;
}

/**
 * Run as root on a stopped service's data dir, the CLI would leave root-owned LevelDB
 * files (LOCK, log, MANIFEST) that the service user then cannot open. So root acts as
 * the directory's owner, as `sudo -u gaugeway` would. It enters the directory first:
 * with DynamicUser the path runs through /var/lib/private (0700 root), which the owner
 * itself may not traverse; paths are then relative to it.
 */
function ownerToActAs(dir: string): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const { uid, gid } = statSync(dir);
  return uid === 0 ? null : { uid, gid };
}
