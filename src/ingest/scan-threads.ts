// Where tagged submission bodies are scanned: on parse threads (worker_threads running
// scan-thread.ts), so the engine's thread only appends columns and the second core does
// the text work; or on the calling thread, for small bodies (a round trip costs more than
// their scan), when no thread is configured, or when a thread has died.
import { Worker } from 'node:worker_threads';
import type { Logger } from '../log.js';
import { scanTaggedBody, type ScannedBatch } from './tagged-fast.js';
import { rowColumns } from '../tsdb/sample.js';
import { TagSetMirror, type TagSetNews } from './tag-sets.js';
import type { TaggedBatch, TaggedLimits } from './tagged.js';

export interface TaggedScanner {
  /** The batch of a body in the common shape, or null: parse it the ordinary way. */
  scan(body: Uint8Array, limits: TaggedLimits, maxDepth: number): Promise<ScannedBatch | null>;
  close(): Promise<void>;
}

export interface ScanRequest {
  id: number;
  body: Uint8Array;
  limits: TaggedLimits;
  maxDepth: number;
}

export interface ScanReply {
  id: number;
  tags: TagSetNews;
  batch: { length: number; capacity: number; metrics: string[]; buffer: ArrayBuffer; metricInputs: TaggedBatch['metricInputs'] } | null;
}

export interface ScanThreadsOptions {
  /** parse threads; 0: every body on the calling thread */
  threads: number;
  /** bodies smaller than this are scanned on the calling thread */
  minBytes: number;
  log: Logger;
  /** the thread's module (tests: one that misbehaves) */
  file?: URL;
}

/** Bodies below this go faster scanned in place than sent to a thread and back. */
export const SCAN_THREAD_MIN_BYTES = 16 * 1024;

const THREAD_FILE = new URL(`./scan-thread.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);

export class ScanThreads implements TaggedScanner {
  private readonly threads: ScanThread[] = [];

  constructor(private readonly opts: ScanThreadsOptions) {
    for (let i = 0; i < opts.threads; i++) this.threads.push(new ScanThread(opts.file ?? THREAD_FILE, opts.log));
  }

  async scan(body: Uint8Array, limits: TaggedLimits, maxDepth: number): Promise<ScannedBatch | null> {
    if (body.length >= this.opts.minBytes) {
      let best: ScanThread | null = null;
      for (const t of this.threads) if (t.usable && (best === null || t.pending < best.pending)) best = t;
      if (best !== null) {
        try {
          return await best.scan(body, limits, maxDepth);
        } catch {
          // the thread died with this body in it (logged there): scanned here instead
        }
      }
    }
    return scanTaggedBody(body, limits, maxDepth);
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.close()));
  }
}

/** One parse thread, started on first use and again after it dies. */
class ScanThread {
  private worker: Worker | null = null;
  private mirror = new TagSetMirror();
  private readonly waiting = new Map<number, { resolve: (b: ScannedBatch | null) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  /** threads in a row that exited without answering once (a broken install) */
  private failedStarts = 0;
  /** false once closed, or when threads keep failing to start: scans stay on the calling thread */
  usable = true;

  constructor(private readonly file: URL, private readonly log: Logger) {}

  get pending(): number {
    return this.waiting.size;
  }

  scan(body: Uint8Array, limits: TaggedLimits, maxDepth: number): Promise<ScannedBatch | null> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.waiting.size === 0) worker.ref(); // a body in it keeps the process alive
      this.waiting.set(id, { resolve, reject });
      // copied, not transferred: the body may share its memory with others (a pooled Buffer)
      const req: ScanRequest = { id, body, limits, maxDepth };
      worker.postMessage(req);
    });
  }

  private start(): Worker {
    let worker: Worker;
    try {
      worker = new Worker(this.file);
    } catch (err) {
      this.usable = false;
      this.log.error({ err }, 'cannot start a parse thread; tagged submissions are parsed on the request thread');
      throw err;
    }
    worker.unref(); // an idle parse thread never keeps the process alive (see scan)
    this.mirror = new TagSetMirror(); // a new thread numbers from 0
    let answered = false;
    worker.on('message', (reply: ScanReply) => {
      answered = true;
      this.failedStarts = 0;
      this.answer(reply);
    });
    worker.on('error', (err) => this.log.error({ err }, 'a parse thread failed; it is started again on the next large submission'));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      if (!answered && this.usable && ++this.failedStarts >= 3) {
        this.usable = false;
        this.log.error('parse threads keep exiting before their first answer; tagged submissions are parsed on the request thread');
      }
      const gone = [...this.waiting.values()];
      this.waiting.clear();
      for (const w of gone) w.reject(new Error('parse thread exited'));
    });
    this.worker = worker;
    return worker;
  }

  private answer(reply: ScanReply): void {
    const w = this.waiting.get(reply.id);
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.worker?.unref();
    if (!this.mirror.apply(reply.tags)) {
      // cannot happen while both sides follow tag-sets.ts; if it does, start both afresh
      this.log.error('a parse thread\'s tag numbering went out of step; it is started again');
      void this.worker?.terminate();
      w?.resolve(null);
      return;
    }
    const b = reply.batch;
    if (w === undefined) return;
    if (b === null) return w.resolve(null);
    const cols = rowColumns(b.buffer, b.capacity);
    w.resolve({ values: { length: b.length, metrics: b.metrics, tagSets: this.mirror.sets, ...cols }, metricInputs: b.metricInputs });
  }

  async close(): Promise<void> {
    this.usable = false;
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}
