// Where the running service's admin socket lives: shared by the server and the CLI,
// which must not load the whole server to find it.
import { join } from 'node:path';

export function adminSocketPath(dataDir: string): string {
  return join(dataDir, 'admin.sock');
}

/** A Unix socket path must fit in sun_path (108 bytes on Linux); the server binds none longer than this. */
export const MAX_ADMIN_SOCKET_PATH_BYTES = 100;

export function adminSocketPathTooLong(dataDir: string): boolean {
  return Buffer.byteLength(adminSocketPath(dataDir)) > MAX_ADMIN_SOCKET_PATH_BYTES;
}
