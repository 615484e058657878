// Checks made before `serve` writes anything: a start that is bound to fail (a busy or
// privileged port, a data directory it cannot create) must not leave a half-made data
// directory behind, and must say what to do.
import net from 'node:net';
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { GaugewayError } from '../errors.js';
import { storeProblem } from '../store/db.js';

/** What went wrong binding host:port, in words an operator can act on. */
export function listenProblem(err: unknown, host: string, port: number): string | null {
  const code = typeof err === 'object' && err !== null ? Reflect.get(err, 'code') : undefined;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is in use by another process: stop that process (ss -ltnp 'sport = :${port}' names it), or choose another port with http.listen or --listen`;
    case 'EACCES':
      return `port ${port} on ${host} needs privileges: use a port above 1023, or give the service CAP_NET_BIND_SERVICE`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine: fix http.listen or --listen`;
    default:
      return null;
  }
}

/** Binds and releases host:port, so a busy port is found before the data dir is touched. */
export async function checkPort(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((ok, fail) => {
    probe.once('error', (err) => {
      const problem = listenProblem(err, host, port);
      fail(problem ? new GaugewayError('E_LISTEN', problem) : err);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => ok()));
  });
}

/** The data dir, or the nearest folder above it that exists, must be writable. */
export function checkDataDir(dataDir: string): void {
  let dir = resolve(dataDir);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    const cause = (err as NodeJS.ErrnoException).code;
    const why = cause === 'EROFS' ? `${dir} is on a read-only filesystem; remount it read-write or choose another data_dir`
      : cause === 'EACCES' ? `${dir} is not writable by this user; fix data_dir or the folder's owner`
        : `${dir}: ${(err as Error).message}`;
    throw new GaugewayError('E_DATA_DIR', `cannot create or write the data directory ${resolve(dataDir)}: ${why}`);
  }
}

/**
 * What went wrong in a start that threw something other than a GaugewayError, in words an
 * operator can act on, or null. Only errors of listen() are about the port: an EACCES
 * reading a file (a TLS key, a database folder of another user) said "port 0 needs
 * privileges".
 */
export function startProblem(err: unknown, config: { data_dir: string; http: { host: string; port: number } }): { code: string; message: string } | null {
  const e = (typeof err === 'object' && err !== null ? err : {}) as NodeJS.ErrnoException;
  if (e.syscall === 'listen' || e.syscall === 'bind') {
    const problem = listenProblem(err, config.http.host, config.http.port);
    return problem === null ? null : { code: 'E_LISTEN', message: problem };
  }
  const store = storeProblem(err, join(config.data_dir, 'db'));
  if (store) return { code: store.code, message: store.message };
  if (typeof e.path !== 'string') return null;
  const what = `${e.syscall ?? 'opening'} ${e.path}`;
  switch (e.code) {
    case 'EACCES':
    case 'EPERM':
      return { code: 'E_DATA_DIR', message: `${what}: permission denied; the data directory and everything in it must belong to the user gaugeway runs as (chown -R that user ${resolve(config.data_dir)})` };
    case 'EROFS':
      return { code: 'E_DATA_DIR', message: `${what}: read-only filesystem; remount it read-write or choose another data_dir` };
    default:
      return { code: 'E_DATA_DIR', message: `${what}: ${e.message}` };
  }
}
