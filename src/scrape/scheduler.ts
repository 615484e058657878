// Every configured job's targets, each in its own TargetLoop. apply() takes a new set of
// jobs (at start and on SIGHUP) and a job's file_sd discovery reports new target groups;
// both end in sync(), which keeps the loop of every target whose identity (job, URL,
// labels: its hash) is unchanged, stops the ones gone and starts the new ones, so an
// unchanged target keeps its slot and its series-added memory across reloads.
// Plain timers, not node-cron: a target is scraped at a fixed offset within an interval
// that need not divide a minute (7s, 90s), which a calendar cannot say (docs/scrape.md).
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '../log.js';
import type { ScrapeJob } from './config.js';
import { FileDiscovery } from './discovery.js';
import { TargetLoop, type ScrapeOutput, type TargetStatus } from './loop.js';
import { targetsOf, type LabelPairs, type TargetGroup } from './target.js';

/** A target as GET /v1/scrape/targets shows it. */
export interface TargetView extends TargetStatus {
  job: string;
  /** owning account id; null when the job's account does not exist */
  account: number | null;
  url: string;
  labels: LabelPairs;
  discoveredLabels: LabelPairs;
  intervalMs: number;
  timeoutMs: number;
}

/** Which account a job's data belongs to: its `account`, or the first admin account. */
export type AccountResolver = (email: string | null) => number | null;

class JobRun {
  private loops = new Map<string, TargetLoop>();
  /** the missing account last logged (undefined: none) */
  private missingAccount: string | null | undefined = undefined;
  private discoveries: FileDiscovery[] = [];
  private fileGroups: TargetGroup[][] = [];
  /** targets relabelling dropped, and ones it left invalid (with why) */
  dropped = 0;
  invalid: { labels: LabelPairs; error: string }[] = [];
  account: number | null = null;

  constructor(public job: ScrapeJob, private readonly out: ScrapeOutput, private readonly resolve: AccountResolver, private readonly log: Logger) {}

  async start(): Promise<void> {
    await this.startDiscovery();
    this.sync();
  }

  /** The same job name with new settings: discovery restarts only if its settings changed. */
  async update(job: ScrapeJob): Promise<void> {
    const rediscover = !isDeepStrictEqual(job.fileSdConfigs, this.job.fileSdConfigs);
    this.job = job;
    if (rediscover) {
      this.stopDiscovery();
      await this.startDiscovery();
    }
    this.sync();
  }

  private async startDiscovery(): Promise<void> {
    this.fileGroups = this.job.fileSdConfigs.map(() => []);
    this.discoveries = this.job.fileSdConfigs.map((c, i) => new FileDiscovery(c.files, c.refreshIntervalMs, (groups) => {
      this.fileGroups[i] = groups;
      this.sync();
    }, (file, error) => this.log.warn({ job: this.job.name, file, error }, 'file_sd file not read; its last good targets stay')));
    await Promise.all(this.discoveries.map((d) => d.start()));
  }

  private stopDiscovery(): void {
    for (const d of this.discoveries) d.stop();
    this.discoveries = [];
  }

  sync(): void {
    const job = this.job;
    this.account = this.resolve(job.account);
    const groups = [...job.staticConfigs, ...this.fileGroups.flat()];
    const wanted = new Map<string, ReturnType<typeof targetsOf>[number] & { status: 'active' }>();
    this.dropped = 0;
    this.invalid = [];
    for (const group of groups) {
      for (const outcome of targetsOf(job, group)) {
        if (outcome.status === 'active') wanted.set(outcome.target.hash, outcome);
        else if (outcome.status === 'dropped') this.dropped++;
        else this.invalid.push({ labels: outcome.discoveredLabels, error: outcome.error });
      }
    }
    for (const [hash, loop] of this.loops) {
      if (wanted.has(hash) && this.account !== null) continue;
      this.loops.delete(hash);
      void loop.stop();
    }
    if (this.account === null) {
      // said once per account named, not again at every reload and file_sd change
      if (this.missingAccount !== job.account) this.log.error({ job: job.name, account: job.account }, 'scrape job not run: its account does not exist');
      this.missingAccount = job.account;
      return;
    }
    this.missingAccount = undefined;
    for (const [hash, { target }] of wanted) {
      const running = this.loops.get(hash);
      if (running) {
        running.job = job;
        running.target = target;
        running.account = this.account;
        continue;
      }
      const loop = new TargetLoop(target, job, this.account, this.out);
      this.loops.set(hash, loop);
      loop.start();
    }
  }

  views(): TargetView[] {
    return [...this.loops.values()].map((l) => ({
      job: this.job.name, account: this.account, url: l.target.url, labels: l.target.labels, discoveredLabels: l.target.discoveredLabels,
      intervalMs: l.target.intervalMs, timeoutMs: l.target.timeoutMs, ...l.status,
    }));
  }

  get targets(): TargetLoop[] {
    return [...this.loops.values()];
  }

  async stop(): Promise<void> {
    this.stopDiscovery();
    await Promise.all([...this.loops.values()].map((l) => l.stop()));
    this.loops.clear();
  }
}

export class ScrapeScheduler {
  private readonly runs = new Map<string, JobRun>();
  private applying: Promise<void> = Promise.resolve();

  /** `out`: where every loop's samples go (read by bench/scrape-pipeline.js, which drives loops of its own into it) */
  constructor(readonly out: ScrapeOutput, private readonly resolve: AccountResolver, private readonly log: Logger) {}

  /** Runs exactly these jobs from now on (one apply at a time). */
  apply(jobs: readonly ScrapeJob[]): Promise<void> {
    this.applying = this.applying.then(() => this.applyNow(jobs));
    return this.applying;
  }

  private async applyNow(jobs: readonly ScrapeJob[]): Promise<void> {
    const names = new Set(jobs.map((j) => j.name));
    for (const [name, run] of this.runs) {
      if (names.has(name)) continue;
      this.runs.delete(name);
      await run.stop();
    }
    for (const job of jobs) {
      const run = this.runs.get(job.name);
      if (run) await run.update(job);
      else {
        const fresh = new JobRun(job, this.out, this.resolve, this.log);
        this.runs.set(job.name, fresh);
        await fresh.start();
      }
    }
  }

  /** Accounts may have changed (a reload): jobs whose account was missing may run now. */
  resync(): void {
    for (const run of this.runs.values()) run.sync();
  }

  targets(): TargetView[] {
    return [...this.runs.values()].flatMap((r) => r.views());
  }

  /** Per job: targets dropped by relabelling and targets relabelling left invalid. */
  jobs(): { job: string; account: number | null; dropped: number; invalid: { labels: LabelPairs; error: string }[] }[] {
    return [...this.runs.values()].map((r) => ({ job: r.job.name, account: r.account, dropped: r.dropped, invalid: r.invalid }));
  }

  /** Scrapes every target once now and waits (tests, and `gaugeway` tools). */
  async scrapeAll(): Promise<void> {
    await Promise.all([...this.runs.values()].flatMap((r) => r.targets.map((t) => t.scrapeNow())));
  }

  async stop(): Promise<void> {
    await this.applying;
    await Promise.all([...this.runs.values()].map((r) => r.stop()));
    this.runs.clear();
  }
}
