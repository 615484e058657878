// `gaugeway store repair|compact`, both on a stopped service only.
// repair: LevelDB's own repair (rebuilds the manifest from the table and log files it can
// read) for a database the service refuses to open. Repair does not take LevelDB's lock,
// so the command opens the database first to prove nobody else holds it.
// compact: run the retention pass now (expire old chunks, merge windows written in parts,
// LevelDB compaction) instead of waiting for `storage.retention_schedule`.
import { loadConfig } from '../config/load.js';
import { GaugewayError } from '../errors.js';
import type { Config } from '../config/types.js';
import { parse, configOption } from './args.js';
import { enterStoppedDataDir } from './data-dir.js';
import { shorterTiers } from '../tsdb/retention.js';

const USAGE = `usage:
  gaugeway store repair [--config FILE] [--data-dir DIR]    (service stopped; back up the data dir first)
  gaugeway store compact [--config FILE] [--data-dir DIR] [--shorter-retention]   (service stopped)
    compact refuses to expire by a retention shorter than the one the service last ran
    with (a forgotten --config): pass the service's config, or --shorter-retention to
    expire by this one.`;

type Out = (line: string) => void;

export async function storeCommand(args: string[], out: Out = console.log): Promise<number> {
  const { values, positionals } = parse(args, { ...configOption, 'data-dir': { type: 'string' }, 'shorter-retention': { type: 'boolean' } }, USAGE);
  const verb = positionals[0];
  if (positionals.length !== 1 || (verb !== 'repair' && verb !== 'compact')) throw new GaugewayError('E_USAGE', USAGE);
  const config = loadConfig({ file: values.config as string | undefined, flags: { dataDir: values['data-dir'] as string | undefined } });
  const location = enterStoppedDataDir(config);
  return verb === 'repair' ? repair(config, location, out) : compact(config, location, out, values['shorter-retention'] === true);
}

async function repair(config: Config, location: string, out: Out): Promise<number> {
  const [{ Store }, { Level }] = await Promise.all([import('../store/db.js'), import('level')]);
  try {
    await (await Store.open(location, { sync: true })).close();
    out(`${config.data_dir}: the database opens cleanly; repairing anyway`);
  } catch (err) {
    if (err instanceof GaugewayError && err.code === 'E_STORE_LOCKED') {
      throw new GaugewayError('E_STORE_LOCKED', `${config.data_dir} is in use: stop the service before repairing its database`);
    }
    out(`${config.data_dir}: ${(err as Error).message.split('. ')[0]}; repairing`);
  }
  await Level.repair(location);
  await (await Store.open(location, { sync: true })).close();
  out(`${config.data_dir}: repaired; it opens now. Start the service and check its data.`);
  return 0;
}

async function compact(config: Config, location: string, out: Out, shorterRetention: boolean): Promise<number> {
  const [{ createLogger }, { createRuntime, closeRuntime }] = await Promise.all([import('../log.js'), import('../runtime.js')]);
  // enterStoppedDataDir may have entered the data dir (as its owner): paths are relative then.
  const local: Config = location === 'db' ? { ...config, data_dir: '.' } : config;
  // the log (the retention pass's JSON lines) to standard error: standard output is the result
  const log = createLogger(config.log.level, process.stderr);
  let rt;
  try {
    rt = await createRuntime(local, log);
  } catch (err) {
    if (err instanceof GaugewayError && err.code === 'E_STORE_LOCKED') {
      throw new GaugewayError('E_STORE_LOCKED', `${config.data_dir} is in use: stop the service before compacting, or wait for storage.retention_schedule`);
    }
    throw err;
  }
  try {
    const served = await rt.retention.lastServed();
    const shorter = served ? shorterTiers(config.storage.retention, served) : [];
    if (shorter.length && !shorterRetention) {
      throw new GaugewayError('E_CONFIG_INVALID', `${config.source ?? 'the embedded default configuration'} keeps less than the service last did (${shorter.join('; ')}): ` +
        'compacting by it would delete data the service still serves. Pass the service\'s --config, or --shorter-retention to expire by this one. Nothing was changed.');
    }
    await rt.engine.checkpoint();
    const r = await rt.retention.run();
    out(`expired ${r.expired} chunks, merged ${r.merged} partial chunks, compacted`);
  } finally {
    await closeRuntime(rt);
  }
  return 0;
}
