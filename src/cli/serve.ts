// `gaugeway serve`: run in the foreground until SIGTERM/SIGINT; SIGHUP reloads the config.
import { loadConfig } from '../config/load.js';
import { createLogger } from '../log.js';
import { startServer } from '../server.js';
import { parse, configOption } from './args.js';
import { checkDataDir, checkPort, startProblem } from './preflight.js';
import { restoreMarkerProblem } from './backup.js';
import { GaugewayError } from '../errors.js';

/** What a shutdown keeps, after the engine stops writing, to stop merges and close LevelDB. */
const SHUTDOWN_MARGIN_MS = 3000;
/**
 * A stop may take http.shutdown_timeout_ms and this much more (for the engine's head and
 * LevelDB) before the process exits 1; the unit's TimeoutStopSec must be longer.
 */
export const STOP_AFTER_DRAIN_MS = 5000;

const USAGE = `usage:
  gaugeway serve [--config FILE] [--listen HOST:PORT] [--data-dir DIR]
    runs the service in the foreground until SIGTERM or SIGINT; SIGHUP re-reads the
    config. --listen and --data-dir override http.listen and data_dir.`;

export async function serve(args: string[]): Promise<number> {
  const { values } = parse(args, { ...configOption, listen: { type: 'string' }, 'data-dir': { type: 'string' } }, USAGE);
  const load = () => loadConfig({ file: values.config as string | undefined, flags: { listen: values.listen as string | undefined, dataDir: values['data-dir'] as string | undefined } });
  const config = load();
  const log = createLogger(config.log.level);
  log.info({ config: config.source, data_dir: config.data_dir }, 'starting gaugeway');
  // SIGHUP's default action ends the process: a `systemctl reload` racing the start
  // must not kill the service, so the handler exists before startup and a reload
  // asked for meanwhile runs once the server is up.
  let reload: (() => void) | null = null;
  let reloadRequested = false;
  const onHangup = () => { if (reload) reload(); else reloadRequested = true; };
  process.on('SIGHUP', onHangup);
  // SIGTERM and SIGINT too: their default action would end a start midway (a WAL replay,
  // the first checkpoint) without closing LevelDB. A stop asked for during the start
  // runs once the server is up; a second one exits at once, as after the start.
  let stop: ((signal: string) => void) | null = null;
  let stopRequested: string | null = null;
  const onStop = (signal: string) => {
    if (stop) stop(signal);
    else if (stopRequested) {
      log.warn({ signal }, 'second signal during the start: exiting at once');
      process.exit(1);
    } else stopRequested = signal;
  };
  const onTerm = () => onStop('SIGTERM');
  const onInt = () => onStop('SIGINT');
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    // before anything is written: a start bound to fail leaves no half-made data dir
    checkDataDir(config.data_dir);
    const unfinished = restoreMarkerProblem(config.data_dir);
    if (unfinished) throw new GaugewayError('E_RESTORE_INCOMPLETE', unfinished);
    await checkPort(config.http.host, config.http.port);
    server = await startServer(config, log, { load });
  } catch (err) {
    process.off('SIGHUP', onHangup);
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onInt);
    // through the logger (the journal, with its priority), with what to do about it
    const problem = err instanceof GaugewayError ? { code: err.code, message: err.message } : startProblem(err, config);
    if (problem === null) throw err;
    log.fatal({ code: problem.code }, `gaugeway could not start: ${problem.message}`);
    return 1;
  }
  reload = () => { void server.reload(); };
  if (reloadRequested) reload();

  return new Promise<number>((resolve) => {
    let stopping = false;
    stop = (signal: string) => {
      if (stopping) {
        log.warn({ signal }, 'second signal: exiting at once');
        process.exit(1);
      }
      stopping = true;
      log.info({ signal }, 'shutting down');
      const allowedMs = server.rt.config.http.shutdown_timeout_ms + STOP_AFTER_DRAIN_MS; // as reloaded
      const force = setTimeout(() => { log.error('shutdown took too long; exiting'); process.exit(1); }, allowedMs);
      force.unref();
      // The engine stops writing its head SHUTDOWN_MARGIN_MS before the forced exit (the
      // WAL keeps the rest), leaving time to stop the merges and close LevelDB cleanly.
      server.close(Date.now() + allowedMs - SHUTDOWN_MARGIN_MS).then(() => resolve(0), (err) => { log.error({ err }, 'shutdown failed'); resolve(1); });
    };
    if (stopRequested) stop(stopRequested);
  });
}
