// Gaugeway's own Prometheus metrics, served at /metrics. One registry per running
// service, so tests that start several servers in one process do not collide.
import { Registry, Counter, Gauge, Histogram, collectDefaultMetrics } from 'prom-client';

/** How often the event-loop lag is sampled (gaugeway_nodejs_eventloop_lag_*), in ms. */
export const EVENT_LOOP_SAMPLE_MS = 100;

export class SelfMetrics {
  readonly registry = new Registry();
  readonly requestDuration = new Histogram({
    name: 'gaugeway_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly rejected = new Counter({
    name: 'gaugeway_http_rejected_requests_total',
    help: 'Requests answered with an error, by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly requestsInFlight = new Gauge({
    name: 'gaugeway_http_requests_in_flight',
    help: 'HTTP requests being served now (a scrape of /metrics counts itself)',
    registers: [this.registry],
  });
  readonly configReloadSuccess = new Gauge({
    name: 'gaugeway_config_last_reload_successful',
    help: '1 if the last configuration reload succeeded, 0 if it failed (the old config keeps running)',
    registers: [this.registry],
  });
  readonly configReloadTimestamp = new Gauge({
    name: 'gaugeway_config_last_reload_success_timestamp_seconds',
    help: 'Time of the last successful configuration (re)load',
    registers: [this.registry],
  });
  readonly storeWriteErrors = new Counter({
    name: 'gaugeway_store_write_errors_total',
    help: 'LevelDB write failures; writes are refused (503) until the store is reopened',
    registers: [this.registry],
  });

  readonly ingestRejected = new Counter({
    name: 'gaugeway_ingest_rejected_total',
    help: 'Write requests refused by an ingest limit, by reason and account (e-mail)',
    labelNames: ['reason', 'account'] as const,
    registers: [this.registry],
  });

  readonly ingestedSamples = new Counter({
    name: 'gaugeway_ingest_samples_total',
    help: 'Measurements stored, by the API they came through',
    labelNames: ['api'] as const,
    registers: [this.registry],
  });

  readonly scrapes = new Counter({
    name: 'gaugeway_scrapes_total',
    help: 'Scrapes of configured targets, by job and result (ok, failed)',
    labelNames: ['job', 'result'] as const,
    registers: [this.registry],
  });

  readonly scrapeDuration = new Histogram({
    name: 'gaugeway_scrape_duration_seconds',
    help: 'Time a scrape took, fetch to stored, by job',
    labelNames: ['job'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly scrapedSamples = new Counter({
    name: 'gaugeway_scrape_samples_stored_total',
    help: 'Scraped samples stored, by job',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });

  readonly scrapeRefused = new Counter({
    name: 'gaugeway_scrape_samples_refused_total',
    help: 'Scraped samples not stored, by job and reason (not_finite, too_large, metric_name, too_many_tags, time_out_of_range, duplicate, out_of_order, type_conflict, series_limit)',
    labelNames: ['job', 'reason'] as const,
    registers: [this.registry],
  });

  readonly notifications = new Counter({
    name: 'gaugeway_notifications_total',
    help: 'Notification delivery attempts and their ends: sent, failed (an attempt), retried, dropped (after the last retry)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  /** The outbox's length, read at scrape time. */
  watchOutbox(length: () => number): void {
    new Gauge({ name: 'gaugeway_notification_queue_length', help: 'Notifications waiting in the outbox', registers: [this.registry], collect() { this.set(length()); } });
  }

  /** Gauges read from the engine at scrape time. */
  watchEngine(read: () => EngineGauges): void {
    // stats() walks every head chunk: one walk serves all six readings of a collection,
    // which prom-client asks for in one synchronous pass over its metrics
    let last: EngineGauges | null = null;
    const stats = (): EngineGauges => {
      if (last === null) {
        last = read();
        queueMicrotask(() => { last = null; });
      }
      return last;
    };
    const gauge = (name: string, help: string, value: (s: EngineGauges) => number) => new Gauge({
      name, help, registers: [this.registry],
      collect() { this.set(value(stats())); },
    });
    gauge('gaugeway_series', 'Series known to the storage engine', (s) => s.series);
    gauge('gaugeway_head_points', 'Points received since the last checkpoint, held in memory', (s) => s.headPoints);
    gauge('gaugeway_wal_bytes', 'Write-ahead bytes since the last checkpoint', (s) => s.walBytes);
    gauge('gaugeway_chunk_parts', 'Chunk parts stored (compaction merges what checkpoints write)', (s) => s.chunkParts);
    gauge('gaugeway_store_reclaim_pending_bytes', 'Bytes deleted by checkpoints and merges that LevelDB has not been asked to compact away yet (an estimate)', (s) => s.reclaimPendingBytes);
    this.countFrom('gaugeway_store_reclaims_total', 'Keyspace compactions run to give the space of deleted data back to the filesystem', () => stats().reclaims);
  }

  /** A counter that follows a count kept elsewhere since that part's start, read when scraped. */
  private countFrom(name: string, help: string, read: () => number): void {
    let before = 0;
    new Counter({
      name, help, registers: [this.registry],
      collect() {
        const now = read();
        if (now > before) this.inc(now - before);
        before = now;
      },
    });
  }

  /** The admission of wide reads (limits.wide_reads), apart: the engine's stats walk the head. */
  watchWideReads(gate: () => { waiting: number; refused: number }): void {
    new Gauge({
      name: 'gaugeway_wide_reads_waiting', help: 'Queries over more than 512 series waiting for their turn (limits.wide_reads)',
      registers: [this.registry],
      collect() { this.set(gate().waiting); },
    });
    this.countFrom('gaugeway_wide_reads_refused_total', 'Queries over more than 512 series refused (503) after waiting limits.wide_reads.queue_timeout_ms', () => gate().refused);
  }

  /** gaugeway_scrape_targets by job and health, read from the scheduler when scraped */
  watchScrape(targets: () => { job: string; health: string }[]): void {
    new Gauge({
      name: 'gaugeway_scrape_targets', help: 'Configured scrape targets, by job and health (up, down, unknown)',
      labelNames: ['job', 'health'] as const, registers: [this.registry],
      collect() {
        this.reset();
        const counts = new Map<string, { job: string; health: string; n: number }>();
        for (const t of targets()) {
          const key = `${t.job}\u0000${t.health}`;
          const c = counts.get(key) ?? { job: t.job, health: t.health, n: 0 };
          c.n++;
          counts.set(key, c);
        }
        for (const c of counts.values()) this.set({ job: c.job, health: c.health }, c.n);
      },
    });
  }

  constructor(withProcessMetrics = true) {
    // The event-loop lag histogram samples with a timer: prom-client's default of 10 ms
    // woke the idle service 100 times a second, about 1 % of a core with nothing to do.
    // Every 100 ms still catches most stalls long enough to matter to requests.
    if (withProcessMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'gaugeway_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    this.configReloadSuccess.set(1);
    this.configReloadTimestamp.set(Date.now() / 1000);
  }
}

/** What the storage engine reports for /metrics (its stats()). */
export interface EngineGauges {
  series: number;
  headPoints: number;
  walBytes: number;
  chunkParts: number;
  reclaims: number;
  reclaimPendingBytes: number;
}
