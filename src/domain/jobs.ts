// Long batch operations run in the background and are reported through /v1/jobs/:id.
// A job is persisted with its kind and parameters before the 202 is sent, so a job cut
// off by a restart is run again from the start (every job kind is idempotent).
import type { Store } from '../store/db.js';
import type { CommitQueue } from '../store/commit.js';
import { Collection, idKey } from '../store/collection.js';
import { Sequence } from '../store/sequence.js';
import type { ErrorBody } from '../errors.js';
import type { Logger } from '../log.js';

export type JobState = 'queued' | 'working' | 'complete' | 'failed' | 'canceled';

export interface JobRecord {
  id: number;
  account_id: number;
  kind: string;
  params: unknown;
  state: JobState;
  progress: number;
  output?: unknown;
  errors?: ErrorBody;
  created_at: number;
  updated_at: number;
}

export interface JobView {
  id: number;
  state: JobState;
  progress: number;
  output?: unknown;
  errors?: ErrorBody;
}

/** Does the work of one job kind; calls `progress` with 0..100 as it goes. */
export type JobHandler = (accountId: number, params: unknown, progress: (pct: number) => void) => Promise<unknown>;

export class JobRunner {
  private readonly jobs: Collection<JobRecord>;
  private readonly ids: Sequence;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Set<Promise<void>>();
  private stopping = false;

  constructor(store: Store, private readonly commit: CommitQueue, private readonly log: Logger) {
    this.jobs = new Collection<JobRecord>(store, 'jobs');
    this.ids = new Sequence(store, 'jobs');
  }

  register(kind: string, handler: JobHandler): void {
    if (this.handlers.has(kind)) throw new Error(`job kind ${kind} registered twice`);
    this.handlers.set(kind, handler);
  }

  /** Persists the job, starts it, and returns its id for the Location header. */
  async submit(accountId: number, kind: string, params: unknown): Promise<number> {
    if (!this.handlers.has(kind)) throw new Error(`no handler for job kind ${kind}`);
    const { id, op } = await this.ids.next();
    const t = Math.floor(Date.now() / 1000);
    const job: JobRecord = { id, account_id: accountId, kind, params, state: 'queued', progress: 0, created_at: t, updated_at: t };
    await this.commit.write([op, this.jobs.put(accountId, idKey(id), job)]);
    this.start(job);
    return id;
  }

  async get(accountId: number, id: number): Promise<JobView | undefined> {
    const job = await this.jobs.get(accountId, idKey(id));
    if (!job) return undefined;
    const view: JobView = { id: job.id, state: job.state, progress: job.progress };
    if (job.output !== undefined) view.output = job.output;
    if (job.errors !== undefined) view.errors = job.errors;
    return view;
  }

  /** Restarts jobs that a previous run left unfinished. */
  async recover(): Promise<void> {
    const unfinished: JobRecord[] = [];
    for await (const job of this.allJobs()) if (job.state === 'queued' || job.state === 'working') unfinished.push(job);
    for (const job of unfinished) {
      this.log.info({ job: job.id, kind: job.kind }, 'resuming unfinished job');
      this.start(job);
    }
  }

  private async *allJobs(): AsyncGenerator<JobRecord> {
    for await (const j of this.jobs.level.values()) yield j;
  }

  private start(job: JobRecord): void {
    const p = this.run(job).finally(() => this.running.delete(p));
    this.running.add(p);
  }

  private async run(job: JobRecord): Promise<void> {
    const handler = this.handlers.get(job.kind);
    let current: JobRecord = { ...job, state: 'working' };
    const save = async (patch: Partial<JobRecord>) => {
      current = { ...current, ...patch, updated_at: Math.floor(Date.now() / 1000) };
      await this.commit.write([this.jobs.put(job.account_id, idKey(job.id), current)]);
    };
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      await save({ state: 'working' });
      let lastSaved = 0;
      const output = await handler(job.account_id, job.params, (pct) => {
        current.progress = Math.round(Math.min(100, Math.max(0, pct)) * 100) / 100;
        if (this.stopping) throw new Error('shutting down');
        const nowMs = Date.now();
        if (nowMs - lastSaved > 250) {
          lastSaved = nowMs;
          void save({}).catch(() => {});
        }
      });
      await save({ state: 'complete', progress: 100, output });
    } catch (err) {
      if (this.stopping) return; // left as 'working': resumed at the next start
      this.log.error({ err, job: job.id }, 'job failed');
      await save({ state: 'failed', errors: { system: [(err as Error).message] } }).catch(() => {});
    }
  }

  /** Lets running jobs reach their next progress report, then stops them. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.running]);
  }
}
