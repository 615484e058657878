// Refuse writes before LevelDB meets a full disk: free space is checked about once a
// second, and below the configured floor every write is refused (reads keep working).
import { statfs } from 'node:fs/promises';

export class DiskGuard {
  private timer: NodeJS.Timeout | null = null;
  /** bytes free at the last check, or null before the first */
  free: number | null = null;

  constructor(private readonly path: string, private floor: number, private readonly onChange: (refusing: boolean, free: number) => void = () => {}) {}

  get refusing(): boolean {
    return this.free !== null && this.free < this.floor;
  }

  setFloor(bytes: number): void {
    this.floor = bytes;
  }

  async check(): Promise<void> {
    const before = this.refusing;
    try {
      const s = await statfs(this.path);
      this.free = s.bavail * s.bsize;
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
