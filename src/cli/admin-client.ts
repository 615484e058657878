// How the CLI reaches accounts: through the running service's admin socket when it is
// up, otherwise by opening the data directory itself (LevelDB admits one process).
import http from 'node:http';
import { existsSync } from 'node:fs';
import type { Config } from '../config/types.js';
import { findOperation } from '../auth/admin-operations.js';
import { adminSocketPath, adminSocketPathTooLong, MAX_ADMIN_SOCKET_PATH_BYTES } from '../admin-socket.js';
import { GaugewayError } from '../errors.js';
import { enterStoppedDataDir } from './data-dir.js';

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
    if (err instanceof GaugewayError && err.code === 'E_STORE_LOCKED') throw serviceUnreachable(config);
    throw err;
  }
}

/** The running service holds the data dir (LevelDB's lock) and its admin socket does not answer: why, and what to do. */
export function serviceUnreachable(config: Config): GaugewayError {
  const socket = adminSocketPath(config.data_dir);
  if (adminSocketPathTooLong(config.data_dir)) {
    return new GaugewayError('E_NOT_RUNNING', `the service holds ${config.data_dir}, and that path is too long for a Unix socket (${socket} would be over ${MAX_ADMIN_SOCKET_PATH_BYTES} bytes), so it has no admin socket: stop the service to run this command, or move data_dir to a shorter path`);
  }
  return new GaugewayError('E_NOT_RUNNING', `the service holds ${config.data_dir} but its admin socket ${socket} does not answer; is the CLI run as the service user (or root)?`);
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
  const location = enterStoppedDataDir(config);
  // LevelDB and the account code load only here: through the socket they are not needed.
  const [{ Store }, { CommitQueue }, { AccountDirectory }] = await Promise.all([
    import('../store/db.js'), import('../store/commit.js'), import('../auth/accounts.js'),
  ]);
  const store = await Store.open(location, { sync: true });
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
