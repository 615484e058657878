// An engine over a real LevelDB in a temp dir, with a commit queue that can "die": what
// the crash tests of the storage engine share.
import type { Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/db.js';
import { CommitQueue, type WriteOp } from '../../src/store/commit.js';
import { Engine, type EngineOptions } from '../../src/tsdb/engine.js';
import { createLogger } from '../../src/log.js';

const log = createLogger('silent');

/** A commit queue whose writes stop landing after `left` more calls: the process "died". */
export class DyingQueue extends CommitQueue {
  left = Infinity;
  override write(ops: WriteOp[]): Promise<void> {
    if (this.left <= 0) return new Promise(() => {});
    this.left--;
    return super.write(ops);
  }
}

/**
 * `writesLeft`: how many commit-queue writes land before the process "dies"; `crash()`
 * closes LevelDB without the engine's final checkpoint.
 */
export async function openEngine(dir: string, opts: Partial<EngineOptions> = {}, writesLeft = Infinity) {
  const store = await Store.open(dir, { sync: false });
  const commit = new DyingQueue(store.db, false);
  commit.left = writesLeft;
  const engine = await Engine.open(store, commit, log, { checkpointMs: 3_600_000, checkpointWalBytes: 1 << 30, sealIdleMs: 3_600_000, ...opts });
  const crash = async () => { await commit.idle(); await store.close(); };
  return { store, commit, engine, crash };
}

/** A temp dir removed when the test ends. */
export function engineDir(t: Test, prefix = 'gw-engine-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
