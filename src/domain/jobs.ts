// Long batch operations run in the background and are reported through /v1/jobs/:id.
// A job is persisted with its kind and parameters before the 202 is sent, so a job cut
// off by a restart is run again from the start (every job kind is idempotent). Key layouts:
//   jobs        <account>!<job id>   the small record progress rewrites
//   job_params  <account>!<job id>   what the job was asked (up to a request body), until it ends
import type { Store } from '../store/db.js';
import type { CommitQueue } from '../store/commit.js';
import { BatchedWrites } from '../store/batched-writes.js';
import { Collection, idKey } from '../store/collection.js';
import { Sequence } from '../store/sequence.js';
import { ApiError, type ErrorBody } from '../errors.js';
import type { Logger } from '../log.js';

export type JobState = 'queued' | 'working' | 'complete' | 'failed' | 'canceled';

export interface JobRecord {
  id: number;
  account_id: number;
  kind: string;
  /** only in records written before the parameters had their own key */
  params?: unknown;
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

/** Jobs of one account that run at once; the rest wait their turn, `queued`. */
export const JOBS_RUNNING_PER_ACCOUNT = 2;
/** How long a finished job stays readable. */
export const FINISHED_JOB_KEPT_SECONDS = 86_400;
const SWEEP_INTERVAL_MS = 3_600_000;

export class JobRunner {
  private readonly jobs: Collection<JobRecord>;
  private readonly params: Collection<unknown>;
  private readonly ids: Sequence;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Set<Promise<void>>();
  /** by account: how many run, and the jobs waiting for a turn */
  private readonly turns = new Map<number, { running: number; waiting: JobRecord[] }>();
  private sweeper: NodeJS.Timeout | null = null;
  private stopping = false;

  constructor(store: Store, private readonly commit: CommitQueue, private readonly log: Logger, private readonly clock = () => Math.floor(Date.now() / 1000)) {
    this.jobs = new Collection<JobRecord>(store, 'jobs');
    this.params = new Collection<unknown>(store, 'job_params');
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
    const t = this.clock();
    const job: JobRecord = { id, account_id: accountId, kind, state: 'queued', progress: 0, created_at: t, updated_at: t };
    await this.commit.write([op, this.jobs.put(accountId, idKey(id), job), this.params.put(accountId, idKey(id), params)]);
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

  /** Restarts jobs that a previous run left unfinished, deletes expired ones, and sweeps hourly from now on. */
  async recover(): Promise<void> {
    const unfinished: JobRecord[] = [];
    for await (const job of this.jobs.level.values()) if (job.state === 'queued' || job.state === 'working') unfinished.push(job);
    for (const job of unfinished) {
      this.log.info({ job: job.id, kind: job.kind }, 'resuming unfinished job');
      this.start(job);
    }
    await this.sweep();
    this.sweeper = setInterval(() => void this.sweep().catch((err: unknown) => this.log.error({ err }, 'could not delete expired jobs')), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  /** Deletes jobs that finished more than FINISHED_JOB_KEPT_SECONDS ago, in batches. */
  async sweep(): Promise<void> {
    const cutoff = this.clock() - FINISHED_JOB_KEPT_SECONDS;
    const batches = new BatchedWrites(this.commit);
    for await (const job of this.jobs.level.values()) {
      if (job.state === 'queued' || job.state === 'working' || job.updated_at >= cutoff) continue;
      await batches.add(this.jobs.del(job.account_id, idKey(job.id)), this.params.del(job.account_id, idKey(job.id)));
    }
    await batches.flush();
  }

  /** Runs the job now, or queues it behind the account's running ones. */
  private start(job: JobRecord): void {
    let turn = this.turns.get(job.account_id);
    if (!turn) this.turns.set(job.account_id, (turn = { running: 0, waiting: [] }));
    if (turn.running >= JOBS_RUNNING_PER_ACCOUNT) {
      turn.waiting.push(job);
      return;
    }
    turn.running++;
    const p = this.run(job).finally(() => {
      this.running.delete(p);
      turn.running--;
      const next = turn.waiting.shift();
      if (next && !this.stopping) this.start(next);
      else if (turn.running === 0 && turn.waiting.length === 0) this.turns.delete(job.account_id);
    });
    this.running.add(p);
  }

  private async run(job: JobRecord): Promise<void> {
    const handler = this.handlers.get(job.kind);
    const { params: inline, ...small } = job;
    let current: JobRecord = { ...small, state: 'working' };
    const key = idKey(job.id);
    const save = async (patch: Partial<JobRecord>, finished = false) => {
      current = { ...current, ...patch, updated_at: this.clock() };
      // progress rewrites the small record only; the parameters go when the job ends
      await this.commit.write([this.jobs.put(job.account_id, key, current), ...(finished ? [this.params.del(job.account_id, key)] : [])]);
    };
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      const params = inline !== undefined ? inline : await this.params.get(job.account_id, key);
      await save({ state: 'working' });
      let lastSaved = 0;
      const output = await handler(job.account_id, params, (pct) => {
        current.progress = Math.round(Math.min(100, Math.max(0, pct)) * 100) / 100;
        if (this.stopping) throw new Error('shutting down');
        const nowMs = Date.now();
        if (nowMs - lastSaved > 250) {
          lastSaved = nowMs;
          void save({}).catch(() => {});
        }
      });
      await save({ state: 'complete', progress: 100, output }, true);
    } catch (err) {
      if (this.stopping) return; // left as 'working': resumed at the next start
      // a request refused once processed is the client's error, in the envelope a
      // synchronous refusal would have had; anything else is the service's
      if (err instanceof ApiError && err.status < 500) {
        this.log.info({ job: job.id, errors: err.body }, 'job refused');
        await save({ state: 'failed', errors: err.body }, true).catch(() => {});
        return;
      }
      this.log.error({ err, job: job.id }, 'job failed');
      await save({ state: 'failed', errors: { system: [(err as Error).message] } }, true).catch(() => {});
    }
  }

  /** Lets running jobs reach their next progress report, then stops them; waiting ones stay queued for the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.allSettled([...this.running]);
  }
}
