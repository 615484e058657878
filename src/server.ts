// Lifecycle of a running service: open the store, serve HTTPS (and answer plain HTTP on
// the same port), the admin socket, SIGHUP reloads and a graceful SIGTERM.
import http from 'node:http';
import https from 'node:https';
import { chmodSync, existsSync, rmSync } from 'node:fs';
import type { Config } from './config/types.js';
import type { Logger } from './log.js';
import { createRuntime, closeRuntime, startBackgroundWork, type Runtime } from './runtime.js';
import { holdRestartKeys, changedLiveKeys } from './config/reload-marks.js';
import { assertMailCaFile } from './config/ca-file.js';
import { buildApp } from './app.js';
import { buildAdminApp } from './http/admin.js';
import { answerClientError, MAX_HEADER_BYTES } from './http/client-error.js';
import { snapshotFrames } from './store/snapshot.js';
import { exportDefinitions, importDefinitions } from './cli/definitions.js';
import { loadTls, type TlsMaterial } from './http/tls.js';
import { createFrontDoor } from './http/front-door.js';
import { adminSocketPath } from './admin-socket.js';
import { ensureFirstAccount } from './auth/first-account.js';

export { adminSocketPath };

export interface RunningServer {
  rt: Runtime;
  port: number;
  host: string;
  tls: TlsMaterial;
  adminSocket: string | null;
  /** re-reads the config through `load`; a bad config keeps the old one running */
  reload(): Promise<boolean>;
  /**
   * Drains requests and stops. `deadline` (ms since the epoch): the engine stops writing
   * its head then and leaves the rest to the WAL, so the process exits in time.
   */
  close(deadline?: number): Promise<void>;
}

export interface StartOptions {
  /** produces a fresh config for SIGHUP reloads (throws ConfigError when invalid) */
  load?: () => Config;
}

export async function startServer(config: Config, log: Logger, opts: StartOptions = {}): Promise<RunningServer> {
  assertMailCaFile(config);
  const rt = await createRuntime(config, log);
  try {
    await startBackgroundWork(rt);
    await ensureFirstAccount(rt.accounts, config.data_dir, rt.log);
    // only a serving process scrapes (not the CLI's tools), and only once the first account exists
    await rt.scrape.apply(config.scrapeJobs ?? []);
    return await listen(rt, opts);
  } catch (err) {
    await closeRuntime(rt);
    throw err;
  }
}

async function listen(rt: Runtime, opts: StartOptions): Promise<RunningServer> {
  const { config, log } = rt;
  let tls = await loadTls(config, log);
  const app = buildApp(rt);
  const callback = app.callback();
  const serverOptions = {
    maxHeaderSize: MAX_HEADER_BYTES,
    headersTimeout: config.http.headers_timeout_ms,
    requestTimeout: config.http.request_timeout_ms,
    connectionsCheckingInterval: 2000,
    keepAliveTimeout: 5000,
    // refused by requireHost (client-error.ts), in the errors envelope
    requireHostHeader: false,
  };
  const secure = https.createServer({
    ...serverOptions, key: tls.key, cert: tls.cert, minVersion: config.tls.min_version,
    // a client that starts a handshake and stalls is as slow as one that never sends headers
    handshakeTimeout: config.http.headers_timeout_ms,
  }, callback);
  const plain = http.createServer(serverOptions, callback);
  secure.on('clientError', answerClientError);
  plain.on('clientError', answerClientError);
  const front = createFrontDoor(secure, plain, {
    maxConnections: config.http.max_connections,
    onInFlight: (delta) => rt.metrics.requestsInFlight.inc(delta),
  });
  const address = await front.listen(config.http.port, config.http.host);
  const adminSocket = await startAdminSocket(rt).catch(async (err: unknown) => {
    await front.drain(0);
    throw err;
  });
  // once the admin socket is up too: whoever waits for this line (an operator's script,
  // systemd's journal, a test) may use `gaugeway tokens` at once
  log.info({ host: address.address, port: address.port, fingerprint256: tls.fingerprint256 }, 'gaugeway listening (HTTPS; plain HTTP gets 403)');

  const applyFile = async (): Promise<boolean> => {
    if (!opts.load) return false;
    try {
      const next = opts.load();
      assertMailCaFile(next);
      // Everything that can fail comes before anything is changed, so a failure
      // leaves the old configuration whole.
      // (data_dir as running: a changed one only takes effect after a restart)
      const nextTls = await loadTls({ ...next, data_dir: rt.config.data_dir }, log);
      await rt.accounts.applyConfig(next.accounts);
      await applyReload(rt, next);
      secure.setSecureContext({ key: nextTls.key, cert: nextTls.cert, minVersion: next.tls.min_version });
      tls = nextTls;
      for (const server of [secure, plain]) {
        server.headersTimeout = next.http.headers_timeout_ms;
        server.requestTimeout = next.http.request_timeout_ms;
      }
      front.server.maxConnections = next.http.max_connections;
      rt.metrics.configReloadSuccess.set(1);
      rt.metrics.configReloadTimestamp.set(Date.now() / 1000);
      log.info({ file: next.source }, 'configuration reloaded');
      return true;
    } catch (err) {
      rt.metrics.configReloadSuccess.set(0);
      log.error({ err: (err as Error).message }, 'configuration reload failed; the previous configuration stays in force');
      return false;
    }
  };

  // A self-issued server certificate is issued again 30 days before it expires: checked
  // twice a day, so a service that runs for a year never serves an expired certificate.
  const renewal = setInterval(() => {
    void loadTls(rt.config, log).then((fresh) => {
      if (fresh.fingerprint256 === tls.fingerprint256) return;
      secure.setSecureContext({ key: fresh.key, cert: fresh.cert, minVersion: rt.config.tls.min_version });
      tls = fresh;
    }, (err: unknown) => log.error({ err: (err as Error).message }, 'checking the TLS certificate for renewal failed; the current one stays'));
  }, 12 * 3600_000);
  renewal.unref();

  // Two quick SIGHUPs must not interleave their account updates: one reload at a time.
  let reloading: Promise<boolean> = Promise.resolve(true);
  const reload = () => (reloading = reloading.then(applyFile));

  let closing: Promise<void> | null = null;
  const close = (deadline = Infinity) => (closing ??= (async () => {
    clearInterval(renewal);
    rt.ready = false;
    await Promise.all([
      front.drain(rt.config.http.shutdown_timeout_ms),
      adminSocket ? new Promise((r) => adminSocket.server.close(r)) : null,
    ]);
    if (adminSocket) rmSync(adminSocket.path, { force: true });
    await closeRuntime(rt, deadline);
    log.info('gaugeway stopped');
  })());

  return { rt, port: address.port, host: config.http.host, get tls() { return tls; }, adminSocket: adminSocket?.path ?? null, reload, close };
}

async function startAdminSocket(rt: Runtime): Promise<{ server: http.Server; path: string } | null> {
  const path = adminSocketPath(rt.config.data_dir);
  if (Buffer.byteLength(path) > 100) {
    rt.log.warn({ path }, 'data_dir path is too long for a Unix socket; the CLI can manage accounts only while the service is stopped');
    return null;
  }
  if (existsSync(path)) rmSync(path, { force: true }); // left by a killed process; we hold the DB lock, so it is stale
  const server = http.createServer(buildAdminApp(() => rt.accounts, rt.log.child({ component: 'admin' }), {
    snapshot: () => snapshotFrames(rt.store.db),
    exportDefinitions: () => exportDefinitions(rt),
    importDefinitions: (body) => importDefinitions(rt, body),
  }).callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // the socket is created 0600 (the bind happens inside listen()), not chmod-ed after a
    // window in which anyone could connect to it
    const umask = process.umask(0o177);
    try {
      server.listen(path, () => { server.off('error', reject); resolve(); });
    } finally {
      process.umask(umask);
    }
  });
  chmodSync(path, 0o600);
  return { server, path };
}

/** Swaps in `next` for everything a reload may change; says which changes wait for a restart. */
async function applyReload(rt: Runtime, next: Config): Promise<void> {
  const old = rt.config;
  // the schema marks each key live or restart (config/schema.ts); restart keys keep their running value
  const waiting = holdRestartKeys(old, next);
  next.http = { ...next.http, host: old.http.host, port: old.http.port }; // derived from http.listen
  if (waiting.length) rt.log.warn({ keys: waiting }, 'these changes take effect after a restart; the running values stay');
  const changed = changedLiveKeys(old, next);
  rt.limiter.reconfigure(next.limits.rate_limit);
  rt.disk.setFloor(next.storage.min_free_disk_bytes);
  rt.log.level = next.log.level;
  rt.config = next;
  if (changed.includes('storage.retention_schedule')) rt.retention.reschedule();
  if (changed.some((k) => k.startsWith('storage.retention.'))) await rt.retention.recordServed();
  if (changed.includes('alerts.check_schedule')) rt.alertEngine.schedule(next.alerts.check_schedule);
  // always: the Prometheus files and accounts a job names may have changed under an unchanged section
  await rt.scrape.apply(next.scrapeJobs).catch((err: unknown) => rt.log.error({ err }, 'applying the scrape jobs failed'));
  if (changed.length) rt.log.info({ keys: changed }, 'configuration changes applied');
}
