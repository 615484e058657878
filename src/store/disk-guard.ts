// Refuse writes before LevelDB meets a full disk: free space is checked about once a
// second, and below the floor every write is refused with 507 (reads keep working). A
// fill faster than the polling reaches LevelDB first; store/recovery.ts handles that.
//
// The floor is `storage.min_free_disk_bytes`, or when that is not set, 5 % of the
// filesystem and at most 1 GiB: a small appliance disk is not refused outright, a large
// one keeps a generous margin.
import { statfs } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const AUTO_FLOOR_SHARE = 0.05;
const AUTO_FLOOR_MAX = 1024 ** 3;
/** room LevelDB needs to reopen after a full disk (a new log, a manifest) */
const REOPEN_ROOM = 1024 * 1024;

export class DiskGuard {
  private timer: NodeJS.Timeout | null = null;
  /** bytes free at the last check, or null before the first */
  free: number | null = null;
  /** size of the filesystem, or null before the first check */
  size: number | null = null;

  constructor(private readonly path: string, private configuredFloor: number | null, private readonly onChange: (refusing: boolean, free: number) => void = () => {}) {}

  /** The floor in force: the configured one, or the automatic one once the size is known. */
  get floor(): number {
    if (this.configuredFloor !== null) return this.configuredFloor;
    return this.size === null ? 0 : Math.min(AUTO_FLOOR_MAX, Math.floor(this.size * AUTO_FLOOR_SHARE));
  }

  get automatic(): boolean {
    return this.configuredFloor === null;
  }

  get refusing(): boolean {
    return this.free !== null && this.free < this.floor;
  }

  /** Enough room to reopen LevelDB after it failed a write for want of space. */
  hasRoom(): boolean {
    return this.free !== null && this.free >= Math.max(this.floor, REOPEN_ROOM);
  }

  /** A new floor (a reload) can start or stop the refusal on its own: that is a change too. */
  setFloor(bytes: number | null): void {
    const before = this.refusing;
    this.configuredFloor = bytes;
    if (this.free !== null && this.refusing !== before) this.onChange(this.refusing, this.free);
  }

  async check(): Promise<void> {
    const before = this.refusing;
    try {
      const s = await statfs(existingAncestor(this.path));
      this.free = s.bavail * s.bsize;
      this.size = s.blocks * s.bsize;
    } catch {
      return; // keep the last reading; a transient statfs failure is no reason to refuse
    }
    if (this.refusing !== before) this.onChange(this.refusing, this.free);
  }

  async start(intervalMs = 1000): Promise<void> {
    await this.check();
    this.timer = setInterval(() => void this.check(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** The path, or the nearest folder above it that exists (a data dir not created yet). */
function existingAncestor(path: string): string {
  let dir = resolve(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
