// `gaugeway store repair`: LevelDB's own repair (rebuilds the manifest from the table
// and log files it can read) for a database the service refuses to open. Only on a
// stopped service: repair does not take LevelDB's lock, so the command opens the
// database first to prove nobody else holds it.
import { loadConfig } from '../config/load.js';
import { GaugewayError } from '../errors.js';
import { parse, configOption } from './args.js';
import { enterStoppedDataDir } from './data-dir.js';

const USAGE = `usage:
  gaugeway store repair [--config FILE] [--data-dir DIR]   (service stopped; back up the data dir first)`;

export async function storeCommand(args: string[], out: (line: string) => void = console.log): Promise<number> {
  const { values, positionals } = parse(args, { ...configOption, 'data-dir': { type: 'string' } });
  if (positionals.length !== 1 || positionals[0] !== 'repair') throw new GaugewayError('E_USAGE', USAGE);
  const config = loadConfig({ file: values.config as string | undefined, flags: { dataDir: values['data-dir'] as string | undefined } });
  const location = enterStoppedDataDir(config);
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
  // level's types omit the static repair of the classic-level class it exports in Node
  await (Level as unknown as { repair(location: string): Promise<void> }).repair(location);
  await (await Store.open(location, { sync: true })).close();
  out(`${config.data_dir}: repaired; it opens now. Start the service and check its data.`);
  return 0;
}
