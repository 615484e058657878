// Where the running service's admin socket lives: shared by the server and the CLI,
// which must not load the whole server to find it.
import { join } from 'node:path';

export function adminSocketPath(dataDir: string): string {
  return join(dataDir, 'admin.sock');
}
