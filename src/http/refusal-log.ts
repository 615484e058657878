// Refusals the service means to give (507 while the disk is full, 503 while storage is
// being reopened or a wide read waited too long) come in floods: every request of every
// agent gets one, at the moment the disk (often the journal's disk too) is full. Each is
// counted in gaugeway_http_rejected_requests_total, and its cause is logged once where it
// arose ("the disk is full: ..."); the request log gets one warn line per kind of
// refusal a minute, with how many there were, and no stack.
import type { Logger } from '../log.js';

const EVERY_MS = 60_000;

export class RefusalLog {
  /** per kind of refusal: when it was last logged, and how many came since */
  private readonly kinds = new Map<string, { loggedAt: number; since: number }>();

  constructor(private readonly log: Logger, private readonly now: () => number = Date.now) {}

  refused(status: number, message: string, path: string, requestId: unknown): void {
    const key = `${status} ${message}`;
    const kind = this.kinds.get(key);
    if (kind && this.now() - kind.loggedAt < EVERY_MS) {
      kind.since++;
      return;
    }
    // `refused`: such answers since the last line of this kind, this one included
    this.log.warn({ status, refused: (kind?.since ?? 0) + 1, path, requestId }, `requests refused (logged once a minute): ${message}`);
    this.kinds.set(key, { loggedAt: this.now(), since: 0 });
  }
}
