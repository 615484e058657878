// Temporary folders removed when the test ends, and a minimal serve config in one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';

export function tempDir(t: Test, prefix = 'gw-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * `<dir>/config.yaml` with data_dir ./data (so `<dir>/data`), an ephemeral loopback
 * port and `extra` appended (keys must not repeat; `extra` may continue `http:`).
 */
export function writeServeConfig(dir: string, extra = ''): string {
  const file = join(dir, 'config.yaml');
  writeFileSync(file, `data_dir: ./data\nlog:\n  level: info\nhttp:\n  listen: 127.0.0.1:0\n${extra}`);
  return file;
}
