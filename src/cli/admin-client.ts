// How the CLI reaches accounts: through the running service's admin socket when it is
// up, otherwise by opening the data directory itself (LevelDB admits one process).
import { join } from 'node:path';
import http from 'node:http';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import type { Config } from '../config/types.js';
import { findOperation } from '../auth/admin-operations.js';
import { adminSocketPath } from '../admin-socket.js';
import { GaugewayError } from '../errors.js';

export interface AdminClient {
  call(method: 'GET' | 'POST', path: string, body?: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

export async function connectAdmin(config: Config): Promise<AdminClient> {
  const socket = adminSocketPath(config.data_dir);
  if (existsSync(socket) && (await reachable(socket))) return socketClient(socket);
  try {
    return await directClient(config);
  } catch (err) {
    if (err instanceof GaugewayError && err.code === 'E_STORE_LOCKED') {
      throw new GaugewayError('E_NOT_RUNNING', `the service holds ${config.data_dir} but its admin socket ${socket} does not answer; is the CLI run as the service user (or root)?`);
    }
    throw err;
  }
}

function reachable(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.request({ socketPath: path, path: '/accounts', method: 'GET', timeout: 2000 }, (res) => { res.resume(); resolve(true); });
    req.on('error', () => resolve(false));
    req.on('timeout', () => { req.destroy(); resolve(false); });
    req.end();
  });
}

function socketClient(socketPath: string): AdminClient {
  return {
    call: (method, path, body) => new Promise((resolve, reject) => {
      const payload = body ? JSON.stringify(body) : undefined;
      const req = http.request({ socketPath, path, method, headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {} }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          const data = text ? JSON.parse(text) : null;
          if ((res.statusCode ?? 500) >= 400) reject(new Error(data?.errors?.request?.[0] ?? `admin API answered ${res.statusCode}`));
          else resolve(data);
        });
      });
      req.on('error', reject);
      req.end(payload);
    }),
    close: async () => {},
  };
}

/** The same calls as the admin socket, made on the directory while the service is stopped. */
async function directClient(config: Config): Promise<AdminClient> {
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
  // LevelDB and the account code load only here: through the socket they are not needed.
  const [{ Store }, { CommitQueue }, { AccountDirectory }] = await Promise.all([
    import('../store/db.js'), import('../store/commit.js'), import('../auth/accounts.js'),
  ]);
  const store = await Store.open(becomeOwnerOf(config.data_dir) ? 'db' : location, { sync: true });
  const commit = new CommitQueue(store.db, true);
  const dir = await AccountDirectory.load(store, commit, config.accounts);
  return {
    async call(method, path, body = {}) {
      const found = findOperation(method, path);
      if (!found) throw new Error(`no admin operation ${method} ${path}`);
      return found.op.run(dir, found.params, body);
    },
    close: () => store.close(),
  };
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
