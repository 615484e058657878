// Commands that open a stopped service's data dir themselves (accounts/tokens while the
// service is down, store repair) first make sure it is the right folder and that they
// will not leave files the service cannot read.
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/types.js';
import { GaugewayError } from '../errors.js';

/** Checks the data dir, becomes its owner if run as root, and returns the database path to open. */
export function enterStoppedDataDir(config: Config): string {
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
  return becomeOwnerOf(config.data_dir) ? 'db' : location;
}

/**
 * Run as root on a stopped service's data dir, the CLI would leave root-owned LevelDB
 * files (LOCK, log, MANIFEST) that the service user then cannot open. So root acts as
 * the directory's owner, as `sudo -u gaugeway` would. It enters the directory first:
 * with DynamicUser the path runs through /var/lib/private (0700 root), which the owner
 * itself may not traverse. Returns true when it did so (paths are then relative).
 */
function becomeOwnerOf(dir: string): boolean {
  if (process.getuid?.() !== 0) return false;
  const { uid, gid } = statSync(dir);
  if (uid === 0) return false;
  process.chdir(dir);
  process.setgroups!([gid]);
  process.setgid!(gid);
  process.setuid!(uid);
  return true;
}
