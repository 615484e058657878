// The long-lived parts of a running service, built once at start and handed to the
// HTTP layer and the schedulers. Tests build one over a temp dir the same way.
import { join } from 'node:path';
import type { Config } from './config/types.js';
import type { Logger } from './log.js';
import { Store } from './store/db.js';
import { CommitQueue } from './store/commit.js';
import { AccountDirectory } from './auth/accounts.js';
import { RateLimiter } from './http/ratelimit.js';
import { SelfMetrics } from './selfmetrics.js';
import { JobRunner } from './domain/jobs.js';
import { DiskGuard } from './store/disk-guard.js';
import { ApiError } from './errors.js';
import { MetricCatalog, type MetricInput } from './domain/metrics.js';
import { Spaces } from './domain/spaces.js';
import { Annotations } from './domain/annotations.js';
import { Sources } from './domain/sources.js';
import { CardinalityGuard } from './ingest/cardinality.js';
import { SCAN_THREAD_MIN_BYTES, ScanThreads, type TaggedScanner } from './ingest/scan-threads.js';
import { PluginRegistry, BUILTIN_PLUGINS } from './notifiers/registry.js';
import { Services } from './domain/services.js';
import { Alerts } from './domain/alerts.js';
import { AlertEngine } from './alerts/engine.js';
import { AlertStates } from './alerts/state.js';
import { deliveryHooks } from './alerts/dispatch.js';
import { Outbox } from './notifiers/outbox.js';
import { UrlPolicy } from './notifiers/url-policy.js';
import { settingsUrlProblems } from './notifiers/deliver.js';
import { Engine } from './tsdb/engine.js';
import { RetentionJob } from './tsdb/retention.js';
import { StoreRecovery } from './store/recovery.js';
import { compositeCheck } from './query/composite-definition.js';
import { GaugewayError } from './errors.js';
import { ScrapeScheduler } from './scrape/scheduler.js';
import { storeScraped } from './scrape/sink.js';
import { acceptedTimes } from './ingest/time-window.js';

export interface Runtime {
  config: Config;
  log: Logger;
  store: Store;
  commit: CommitQueue;
  disk: DiskGuard;
  accounts: AccountDirectory;
  limiter: RateLimiter;
  metrics: SelfMetrics;
  jobs: JobRunner;
  catalog: MetricCatalog;
  spaces: Spaces;
  annotations: Annotations;
  /** display names of the legacy sources */
  sources: Sources;
  /** the per-account limit on new series an hour */
  cardinality: CardinalityGuard;
  /** notification types: plugins/ and notifications.plugin_dirs */
  plugins: PluginRegistry;
  /** notification services of the accounts */
  services: Services;
  /** where notifications may be sent (notifications.outbound) */
  urlPolicy: UrlPolicy;
  /** alert definitions */
  alerts: Alerts;
  /** evaluates alerts and sends their notifications */
  alertEngine: AlertEngine;
  /** notifications decided and not yet delivered */
  outbox: Outbox;
  /** the ingest pipeline tells the alert engine which metrics received points */
  stored: (account: number, metrics: Iterable<string>, newest: number) => void;
  /** the time-series engine: series, points, rollups */
  engine: Engine;
  /** expiry and compaction on `storage.retention_schedule` */
  retention: RetentionJob;
  /** scrape loops of the configured jobs */
  scrape: ScrapeScheduler;
  /** scans tagged submissions on parse threads (`http.parse_threads`) */
  scanner: TaggedScanner;
  /** false once shutdown has begun: /ready answers 503 */
  ready: boolean;
  /** every closer registered here runs at shutdown, last registered first */
  /** each given the time by which the shutdown should be over (ms since the epoch) */
  closers: ((deadline: number) => Promise<void>)[];
}

export async function createRuntime(config: Config, log: Logger, metrics = new SelfMetrics()): Promise<Runtime> {
  // first: a plugin that fails to load stops the start before anything is written
  const plugins = await PluginRegistry.load([BUILTIN_PLUGINS, ...config.notifications.plugin_dirs]);
  const disk = new DiskGuard(config.data_dir, config.storage.min_free_disk_bytes, (refusing, free) => {
    if (refusing) log.error({ free, floor: disk.floor }, 'free disk space is below the floor (storage.min_free_disk_bytes): refusing writes');
    else if (!commit.failed) log.info({ free, floor: disk.floor }, 'free disk space is above the floor again: accepting writes');
  });
  // before anything is written: a start that could not write would leave a half-made data dir
  await disk.start();
  if (disk.refusing) {
    disk.stop();
    throw new GaugewayError('E_DISK_FULL', diskFullAtStart(config.data_dir, disk));
  }
  const store = await Store.open(join(config.data_dir, 'db'), { sync: config.storage.sync });
  let recovery: StoreRecovery | null = null;
  const commit = new CommitQueue(store.db, store.sync, (err) => {
    metrics.storeWriteErrors.inc();
    recovery?.failed(err);
  });
  commit.admit = () => (disk.refusing
    ? new ApiError(507, { system: ['Not enough free disk space: writes are refused until space is freed; reads still work'] })
    : null);
  const accounts = await AccountDirectory.load(store, commit, config.accounts);
  const jobs = new JobRunner(store, commit, log.child({ component: 'jobs' }));
  const catalog = new MetricCatalog(store, commit);
  const engine = await Engine.open(store, commit, log.child({ component: 'engine' }), {
    checkpointMs: config.storage.checkpoint.interval_seconds * 1000,
    checkpointWalBytes: config.storage.checkpoint.wal_bytes,
    sealIdleMs: config.storage.checkpoint.seal_idle_seconds * 1000,
    headMaxAgeMs: config.storage.checkpoint.head_max_age_seconds * 1000,
    wideReads: () => ({ concurrency: rt.config.limits.wide_reads.concurrency, queueTimeoutMs: rt.config.limits.wide_reads.queue_timeout_ms }),
  });
  catalog.purgeHooks.push((account, names) => engine.purge(account, names));
  catalog.checkComposite = compositeCheck(catalog);
  catalog.compositeLimit = () => rt.config.limits.per_account.composite_metrics;
  recovery = new StoreRecovery(store, commit, disk, () => engine.reload(), log.child({ component: 'store' }));
  const storeRecovery = recovery;
  metrics.watchEngine(() => engine.stats());
  metrics.watchWideReads(() => engine.wideReads);
  const retention = new RetentionJob(store, commit, engine, () => rt.config.storage, log.child({ component: 'retention' }));
  // read on every create, so a reload applies at once
  const perAccount = () => rt.config.limits.per_account;
  const urlPolicy = new UrlPolicy(() => rt.config.notifications.outbound);
  const services = new Services(store, commit, (type, settings) => plugins.check(type, settings)
    ?? (typeof settings === 'object' && settings !== null ? settingsUrlProblems(urlPolicy, settings as Record<string, unknown>) : null),
  (type) => plugins.get(type)?.plugin.secrets ?? [], perAccount);
  const alerts = new Alerts(store, commit, (account, id) => services.exists(account, id), perAccount);
  services.deleteHooks.push((account, id) => alerts.detachService(account, id));
  alerts.compositeMetric = async (account, name) => (await catalog.get(account, name))?.type === 'composite';
  const alertLog = log.child({ component: 'alerts' });
  const hooks = deliveryHooks(services, plugins, () => ({
    timeoutMs: rt.config.notifications.timeout_ms, externalUrl: rt.config.http.external_url, pluginConfig: { mail: rt.config.notifications.mail }, policy: urlPolicy,
  }), alertLog,
    (result) => metrics.notifications.inc({ result }));
  const outbox = new Outbox(store, commit, hooks, () => ({
    retryInitialMs: rt.config.notifications.retry_initial_ms, maxAgeMs: rt.config.notifications.retry_max_age * 1000,
  }), alertLog);
  metrics.watchOutbox(() => outbox.length);
  const alertEngine = new AlertEngine(alerts, new AlertStates(store), engine, commit, outbox, (account) => accounts.accountById(account)?.email ?? String(account),
    async (account, metric) => (await catalog.get(account, metric))?.type, alertLog);
  const rt: Runtime = {
    config, log, store, commit, disk, accounts, metrics, jobs, catalog, engine, retention, outbox,
    spaces: new Spaces(store, commit, async (account, metric) => {
      const m = await catalog.get(account, metric);
      return m && { type: m.type, name: m.name };
    }, compositeCheck(catalog), perAccount),
    annotations: new Annotations(store, commit, perAccount),
    sources: new Sources(store, commit),
    plugins, services, alerts, alertEngine, urlPolicy,
    stored: (account, metrics, newest) => alertEngine.appended(account, metrics, newest),
    cardinality: new CardinalityGuard(() => rt.config.limits.new_series_per_hour, (account) => {
      metrics.ingestRejected.inc({ reason: 'new_series_per_hour', account: accounts.accountById(account)?.email ?? String(account) });
    }),
    limiter: new RateLimiter(config.limits.rate_limit),
    scrape: new ScrapeScheduler({
      store: (account, values, types, reserved) => storeScraped({ catalog, engine, cardinality: rt.cardinality, stored: rt.stored }, account, values, types, reserved),
      limits: () => ({ ...acceptedTimes(rt.config.storage.retention), tagsPerMeasurement: rt.config.limits.tags_per_measurement }),
      scraped: (job, ok, durationMs, stored, refused) => {
        metrics.scrapes.inc({ job, result: ok ? 'ok' : 'failed' });
        metrics.scrapeDuration.observe({ job }, durationMs / 1000);
        if (stored) metrics.scrapedSamples.inc({ job }, stored);
        for (const [reason, n] of refused) if (n) metrics.scrapeRefused.inc({ job, reason }, n);
      },
    }, (email) => scrapeAccount(accounts, email), log.child({ component: 'scrape' })),
    scanner: new ScanThreads({ threads: config.http.parse_threads, minBytes: SCAN_THREAD_MIN_BYTES, log: log.child({ component: 'parse' }) }),
    ready: true,
    closers: [],
  };
  jobs.register('metrics.update', async (account, params, progress) => {
    const p = params as { names: string[]; input: MetricInput; userAgent: string | null };
    return { updated: await catalog.updateMany(account, p.names, p.input, p.userAgent, progress) };
  });
  jobs.register('metrics.delete', async (account, params, progress) => {
    const p = params as { names: string[] };
    return { deleted: await catalog.deleteMany(account, p.names, progress) };
  });
  // closers run last-registered first: the retention job stops before the engine closes
  rt.closers.push(() => rt.scanner.close());
  rt.closers.push((deadline) => engine.close(() => Date.now() >= deadline));
  rt.closers.push(async () => { storeRecovery.stop(); await storeRecovery.idle(); });
  rt.closers.push(() => retention.stop());
  // first to stop: no evaluation reads the engine while it closes
  rt.closers.push(() => outbox.stop());
  rt.closers.push(() => alertEngine.stop());
  metrics.watchScrape(() => rt.scrape.targets());
  // the first to stop: no scrape writes while the engine closes (jobs start with the server)
  rt.closers.push(() => rt.scrape.stop());
  return rt;
}

/**
 * What only a serving process runs: the retention schedule, the alert engine and its
 * deliveries, background jobs left by the last run. The CLI's tools (export, import,
 * store compact) open a runtime without them: an export must not deliver the service's
 * pending notifications or evaluate its alerts, nor an offline compaction resume a
 * metric deletion.
 */
export async function startBackgroundWork(rt: Runtime): Promise<void> {
  await rt.retention.recordServed();
  rt.retention.schedule();
  // the outbox reads what is pending before any evaluation can queue more
  await rt.outbox.start();
  await rt.alertEngine.start();
  rt.alertEngine.schedule(rt.config.alerts.check_schedule);
  await rt.jobs.recover();
}

/** A scrape job's account: the one named, else the first account with an active admin token. */
function scrapeAccount(accounts: AccountDirectory, email: string | null): number | null {
  if (email !== null) return accounts.findAccount(email)?.id ?? null;
  const all = accounts.listAccounts().filter((a) => a.active).sort((a, b) => a.id - b.id);
  const admin = all.find((a) => accounts.listTokens(a.email).some((t) => t.active && t.role === 'admin'));
  return (admin ?? all[0])?.id ?? null;
}

/** `deadline` (ms since the epoch): when the engine stops writing its head (the WAL keeps the rest). */
export async function closeRuntime(rt: Runtime, deadline = Infinity): Promise<void> {
  rt.ready = false;
  for (const close of [...rt.closers].reverse()) {
    try { await close(deadline); } catch (err) { rt.log.error({ err }, 'error while shutting down'); }
  }
  rt.disk.stop();
  await rt.jobs.stop();
  await rt.commit.idle();
  await rt.store.close();
}

function mb(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

function diskFullAtStart(dataDir: string, disk: DiskGuard): string {
  const floor = disk.automatic
    ? `${mb(disk.floor)} (storage.min_free_disk_bytes is not set: 5 % of the filesystem's ${mb(disk.size ?? 0)}, at most 1 GiB)`
    : `${mb(disk.floor)} (storage.min_free_disk_bytes)`;
  return `only ${mb(disk.free ?? 0)} free on the filesystem of ${dataDir}, below the free-space floor of ${floor}: free some space, or set storage.min_free_disk_bytes lower (0 turns the check off)`;
}
