// One target's scrape loop: a plain timer fires at the target's slot in its interval
// (offset by a hash of the target, as Prometheus spreads targets), never two scrapes of
// one target at once (a slot that comes while the last scrape still runs is skipped), and
// each scrape fetches, parses, converts and stores through the same ingest path as a push,
// then writes the target's health series. A failure is the target's alone: it is recorded
// for /v1/scrape/targets and `up` becomes 0; nothing is thrown out of the loop.
import { ExpositionParser, formatForContentType, ExpositionError, SeriesMemo, type ScrapedSample } from './parse.js';
import type { TargetConnection } from './connection.js';
import { fetchExposition, targetConnection, ScrapeError, type Exposition } from './fetch.js';
import { convertScrapeInSlices, reservedKey, ScrapeLimitError, SeriesCache, type ConvertLimits, type RefusalReason } from './samples.js';
import type { StoreRefusals } from './sink.js';
import { delayToNextScrape, type ScrapeTarget } from './target.js';
import { tagsOf } from './labels.js';
import type { ScrapeJob } from './config.js';
import { ValueRows, type TagPairs, type ValueColumns } from '../tsdb/sample.js';
import type { Numbered } from './numbering.js';
import { TimeSlice } from '../tsdb/slice.js';

export type Health = 'up' | 'down' | 'unknown';

export interface TargetStatus {
  health: Health;
  /** epoch ms of the last scrape's start, or null before the first */
  lastScrape: number | null;
  lastScrapeDurationMs: number | null;
  lastError: string | null;
  /** samples in the last exposition */
  samplesScraped: number;
  /** samples stored from it */
  samplesStored: number;
}

/** What one scrape scraped, stored and refused. */
export interface ScrapeTally {
  scraped: number;
  stored: number;
  refused: Map<RefusalReason, number>;
}

/** What a scrape hands on: store its samples, record what it refused. */
export interface ScrapeOutput {
  /** Stores the rows (counters and gauges as `types` says); resolves with what was refused on the way. */
  /** `reserved`: the target's own series (its health), admitted before the exposed ones */
  store(account: number, values: ValueColumns, types: Map<string, { type: 'counter' | 'gauge'; spelling: string }>, reserved: ReadonlySet<string>): Promise<StoreRefusals>;
  limits(): ConvertLimits;
  /** a scrape ended (self-metrics) */
  scraped(job: string, ok: boolean, durationMs: number, stored: number, refused: Map<RefusalReason, number>): void;
}

/** The exposition is parsed this much at a time (a few milliseconds of work). */
const PARSE_PIECE_BYTES = 64 * 1024;

const HEALTH_SERIES = ['up', 'scrape_duration_seconds', 'scrape_samples_scraped', 'scrape_samples_post_metric_relabeling', 'scrape_series_added'] as const;
const HEALTH_TYPES: ReadonlyMap<string, { type: 'gauge'; spelling: string }> = new Map(HEALTH_SERIES.map((name) => [name, { type: 'gauge', spelling: name }]));

export class TargetLoop {
  readonly status: TargetStatus = { health: 'unknown', lastScrape: null, lastScrapeDurationMs: null, lastError: null, samplesScraped: 0, samplesStored: 0 };
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** the target's exposed series as mapped last time (samples.ts) */
  private readonly cache = new SeriesCache();
  /** ...and their label sets as parsed (parse.ts) */
  private readonly memo = new SeriesMemo();
  /** the health series, numbered with the exposed ones (their tags frozen: the engine keeps them as they are) */
  private healthSeries: readonly Numbered[] = [];
  private jobNow: ScrapeJob;
  /** the job changed: the mapping of series starts afresh at the next scrape, not inside this one */
  private jobChanged = false;
  /** the target's kept-open connection (connection.ts) */
  private readonly connection: TargetConnection;

  private targetNow: ScrapeTarget;

  constructor(target: ScrapeTarget, job: ScrapeJob, public account: number, private readonly out: ScrapeOutput) {
    this.targetNow = target;
    this.jobNow = job;
    this.connection = targetConnection(target.url, target.intervalMs);
    this.numberHealth();
  }

  /**
   * The health series with the target's labels and the job's external labels, as every
   * sample it stores has them: without those, an exposed `up` (which gets them) was not
   * recognised as the target's own and was stored beside it.
   */
  private numberHealth(): void {
    for (const h of this.healthSeries) {
      this.cache.numbering.release(h);
      this.cache.reserved.delete(reservedKey(h.metric, h.tags));
    }
    const labels = new Map(this.targetNow.labels);
    for (const [name, value] of this.jobNow.externalLabels) if (!labels.has(name)) labels.set(name, value);
    const tags: TagPairs = Object.freeze(tagsOf(labels).map((pair) => Object.freeze(pair)));
    this.healthSeries = HEALTH_SERIES.map((metric) => ({ number: -1, metricNo: -1, metric, tags }));
    for (const h of this.healthSeries) {
      this.cache.numbering.add(h);
      this.cache.reserved.add(reservedKey(h.metric, h.tags));
    }
  }

  get job(): ScrapeJob {
    return this.jobNow;
  }

  get target(): ScrapeTarget {
    return this.targetNow;
  }

  /**
   * The same target (job, URL and labels) after a reload, whose interval, timeout or
   * discovered labels may have changed: the next scrape is timed and bounded by them.
   * (They were kept as first seen: a reload from 1 s to 6 s went on scraping every second.)
   */
  set target(target: ScrapeTarget) {
    const rescheduled = target.intervalMs !== this.targetNow.intervalMs || target.offsetMs !== this.targetNow.offsetMs;
    this.targetNow = target;
    if (rescheduled && this.timer !== null && !this.stopped) {
      clearTimeout(this.timer);
      this.arm();
    }
  }

  /** A reload's settings, from the next scrape on; the mapping of series starts afresh. */
  set job(job: ScrapeJob) {
    if (job !== this.jobNow) this.jobChanged = true;
    this.jobNow = job;
  }

  start(): void {
    this.arm();
  }

  private arm(): void {
    if (this.stopped) return;
    const now = Date.now();
    // a whole interval when the slot is now: the scrape that just ran took it
    const delay = delayToNextScrape(this.target, now) || this.target.intervalMs;
    this.timer = setTimeout(() => this.fire(), delay);
    this.timer.unref();
  }

  private fire(): void {
    this.arm();
    if (this.running) return; // the last scrape still runs: this slot is skipped
    void this.scrapeNow();
  }

  /** A scrape now, or the one running: never two at once. */
  scrapeNow(): Promise<void> {
    this.running ??= this.scrape().finally(() => { this.running = null; });
    return this.running;
  }

  private async scrape(): Promise<void> {
    const started = Date.now();
    const t0 = performance.now();
    const job = this.job;
    const tally: ScrapeTally = { scraped: 0, stored: 0, refused: new Map() };
    let error: string | null = null;
    try {
      await this.accept(await fetchExposition(this.target.url, job, this.target.timeoutMs, this.connection), started, t0, tally);
    } catch (e) {
      error = e instanceof ScrapeError || e instanceof ExpositionError || e instanceof ScrapeLimitError ? e.message : `cannot store: ${(e as Error).message}`;
    }
    const { scraped, stored, refused } = tally;
    const durationMs = performance.now() - t0;
    Object.assign(this.status, {
      health: error === null ? 'up' : 'down', lastScrape: started, lastScrapeDurationMs: durationMs, lastError: error,
      samplesScraped: scraped, samplesStored: stored,
    });
    this.out.scraped(job.name, error === null, durationMs, stored, refused);
    if (error === null || this.stopped) return;
    const down = new ValueRows(HEALTH_SERIES.length);
    this.addHealth(down, started, 0, durationMs / 1000, scraped, 0, 0);
    try {
      await this.out.store(this.account, this.columns(down), new Map(HEALTH_TYPES), this.cache.reserved);
    } catch {
      // the store refuses writes (disk full, say): the next scrape tries again
    }
  }

  /**
   * What a scrape does with the exposition it fetched: parse, convert and store it with
   * the health series, in one write. `started`: the scrape's start (epoch ms, the time of
   * samples without their own); `t0`: the same on performance.now()'s clock.
   * `tally.scraped` is set once the exposition is parsed, so a limit that fails the
   * scrape after that still reports what was scraped.
   */
  async accept(exp: Exposition, started: number, t0: number, tally: ScrapeTally): Promise<void> {
    const job = this.job;
    if (this.jobChanged) {
      this.jobChanged = false;
      this.cache.clear();
      this.numberHealth(); // its external labels may have changed
    }
    const samples: ScrapedSample[] = [];
    // Without metric_relabel_configs every parsed sample counts against sample_limit, so a
    // target far past it is cut while parsing instead of parsed whole first (a million
    // series took 6.5 s of the request thread before the limit refused them).
    const early = job.sampleLimit > 0 && job.metricRelabelConfigs.length === 0 ? job.sampleLimit : Infinity;
    const parser = new ExpositionParser(formatForContentType(exp.contentType), (s) => {
      if (samples.push(s) > early) {
        tally.scraped = samples.length;
        throw new ScrapeLimitError(`sample_limit exceeded (more than ${job.sampleLimit} samples)`);
      }
    }, { memo: this.memo });
    // A piece at a time, the event loop given back between them: a body of a million
    // series takes seconds to parse, and other targets, pushes and queries must not wait.
    const slice = new TimeSlice();
    for (let at = 0; at < exp.body.length; at += PARSE_PIECE_BYTES) {
      parser.push(exp.body.subarray(at, at + PARSE_PIECE_BYTES));
      await slice.pause();
    }
    parser.end();
    tally.scraped = samples.length;
    const c = await convertScrapeInSlices(samples, this.target, job, started, this.out.limits(), this.cache, HEALTH_SERIES.length, slice);
    const exposed = c.rows.length;
    this.addHealth(c.rows, started, 1, (performance.now() - t0) / 1000, samples.length, c.postRelabel, c.added);
    const out = await this.out.store(this.account, this.columns(c.rows), new Map([...c.metrics, ...HEALTH_TYPES]), this.cache.reserved);
    tally.refused = c.refused;
    for (const [reason, n] of out.counts) tally.refused.set(reason, (tally.refused.get(reason) ?? 0) + n);
    let refusedExposed = 0;
    for (let row = 0; row < exposed; row++) refusedExposed += out.rows[row]!;
    tally.stored = exposed - refusedExposed;
  }

  /** up, scrape_duration_seconds, ... with the target's labels, as Prometheus writes them. */
  private addHealth(rows: ValueRows, startedMs: number, up: number, seconds: number, scraped: number, post: number, added: number): void {
    const time = Math.floor(startedMs / 1000);
    const values = [up, seconds, scraped, post, added];
    this.healthSeries.forEach((h, i) => rows.add(h.metricNo, h.number, time, values[i]!));
  }

  /** Rows numbered by the target's numbering, as the engine takes them. */
  private columns(rows: ValueRows): ValueColumns {
    return rows.columns(this.cache.numbering.metrics, this.cache.numbering.tagSets);
  }

  /** Stops the timer and waits for a scrape in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    this.connection.destroy();
  }
}
