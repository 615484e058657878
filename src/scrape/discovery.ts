// file_sd_configs: the target groups of a job's files, re-read when a file changes (a
// watch on each file's folder) and every refresh_interval besides (a watch can miss an
// edit on some filesystems, and a glob can match a file created later). A file that does
// not parse keeps its last good groups, as Prometheus keeps them, and its error is kept
// for the targets page and the log.
// A file rewritten every fraction of a second (a generator gone wild) is read at most
// every MIN_REREAD_MS and parsed only when its text changed, and one past MAX_FILE_BYTES
// is refused: a 5.5 MB file rewritten every 0.3 s had kept the request thread ~2 s late.
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseFileSd } from './file-sd.js';
import type { TargetGroup } from './target.js';

/** `*`, `?` and `[...]` in the last part of a path, as Go's filepath.Match reads them. */
function globRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) { re += '\\['; continue; }
      let set = pattern.slice(i + 1, end);
      if (set.startsWith('^')) set = '^' + set.slice(1).replace(/[\\\]]/g, '\\$&');
      else set = set.replace(/[\\\]^]/g, '\\$&');
      re += `[${set}]`;
      i = end;
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

async function expand(pattern: string): Promise<string[]> {
  const name = basename(pattern);
  if (!/[*?[]/.test(name)) return [pattern];
  const dir = dirname(pattern);
  const re = globRegex(name);
  try {
    return (await readdir(dir)).filter((f) => re.test(f)).sort().map((f) => join(dir, f));
  } catch {
    return [];
  }
}

/** A file_sd file larger than this is refused (keeps its last good groups). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** Reads after the first change of a quiet spell wait at least this long after the last read. */
export const MIN_REREAD_MS = 5000;

export class FileDiscovery {
  private readonly watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private stopped = false;
  /** last good groups per file */
  private readonly byFile = new Map<string, TargetGroup[]>();
  /** the digest of the text each file's groups were parsed from */
  private readonly digests = new Map<string, string>();
  private lastRead = -Infinity;
  /** per file, what is wrong with it now */
  readonly errors = new Map<string, string>();
  private reading: Promise<void> = Promise.resolve();

  constructor(private readonly patterns: readonly string[], private readonly refreshMs: number, private readonly onChange: (groups: TargetGroup[]) => void, private readonly onError: (file: string, error: string) => void) {}

  /** Reads the files once (resolves when done), then watches them. */
  async start(): Promise<void> {
    await this.refresh();
    for (const dir of new Set(this.patterns.map(dirname))) {
      try {
        const w = watch(dir, { persistent: false }, () => this.soon());
        w.on('error', () => {}); // a folder removed: the refresh timer still reads what is there
        this.watchers.push(w);
      } catch {
        // no such folder yet: the refresh timer finds files created later
      }
    }
    this.timer = setInterval(() => this.soon(), this.refreshMs);
    this.timer.unref();
  }

  /** One read shortly (an editor's save is several events), and not sooner than MIN_REREAD_MS after the last. */
  private soon(): void {
    if (this.stopped || this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = null;
      void this.refresh();
    }, Math.max(100, this.lastRead + MIN_REREAD_MS - performance.now()));
    this.debounce.unref();
  }

  /** Re-reads every file now (one read at a time) and reports the groups if they changed. */
  refresh(): Promise<void> {
    this.reading = this.reading.then(() => this.read());
    return this.reading;
  }

  private async read(): Promise<void> {
    if (this.stopped) return;
    this.lastRead = performance.now();
    const files = new Set((await Promise.all(this.patterns.map(expand))).flat());
    let changed = false;
    const forget = (file: string) => {
      changed ||= this.byFile.delete(file);
      this.digests.delete(file);
      this.errors.delete(file);
    };
    // files gone from the listing, those that never parsed included (their error went with them)
    for (const file of new Set([...this.byFile.keys(), ...this.digests.keys(), ...this.errors.keys()])) if (!files.has(file)) forget(file);
    for (const file of files) {
      let text: string;
      try {
        const size = (await stat(file)).size;
        if (size > MAX_FILE_BYTES) { this.fail(file, `file larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB (${size} bytes)`); continue; }
        text = await readFile(file, 'utf8');
      } catch (e) {
        // gone between the listing and the read, or never there: it has no targets
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') { forget(file); continue; }
        this.fail(file, `cannot read: ${(e as Error).message}`);
        continue;
      }
      const digest = createHash('sha256').update(text).digest('hex');
      if (this.digests.get(file) === digest) continue;
      try {
        const groups = parseFileSd(text, file);
        changed ||= JSON.stringify(groups) !== JSON.stringify(this.byFile.get(file));
        this.byFile.set(file, groups);
        this.digests.set(file, digest);
        this.errors.delete(file);
      } catch (e) {
        // the same broken text is not parsed again: its error stands until the file changes
        this.digests.set(file, digest);
        this.fail(file, (e as Error).message);
      }
    }
    if (this.stopped) return;
    if (changed) this.onChange(this.groups());
  }

  private fail(file: string, error: string): void {
    if (this.errors.get(file) !== error) this.onError(file, error);
    this.errors.set(file, error);
  }

  groups(): TargetGroup[] {
    return [...this.byFile.values()].flat();
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watchers) w.close();
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
  }
}
