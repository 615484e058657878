// `gaugeway store compact`: with the service stopped, run the retention pass now (expire
// old chunks, merge windows written in parts, LevelDB compaction) instead of waiting for
// `storage.retention_schedule`. Opening the store replays and checkpoints the WAL first.
import { loadConfig } from '../config/load.js';
import { createLogger } from '../log.js';
import { GaugewayError } from '../errors.js';
import { createRuntime, closeRuntime } from '../runtime.js';
import { RetentionJob } from '../store/retention.js';
import { parse, configOption } from './args.js';

const USAGE = 'usage: gaugeway store compact [--config FILE] [--data-dir DIR]';

export async function storeCommand(args: string[], out: (line: string) => void = console.log): Promise<number> {
  const { values, positionals } = parse(args, { ...configOption, 'data-dir': { type: 'string' } });
  if (positionals.length !== 1 || positionals[0] !== 'compact') throw new GaugewayError('E_USAGE', USAGE);
  const config = loadConfig({ file: values.config as string | undefined, flags: { dataDir: values['data-dir'] as string | undefined } });
  const log = createLogger(config.log.level);
  const rt = await createRuntime(config, log);
  try {
    await rt.engine.checkpoint();
    const job = new RetentionJob(rt.store, rt.commit, rt.engine, () => rt.config.storage, log);
    const r = await job.run();
    out(`expired ${r.expired} chunks, merged ${r.merged} partial chunks, compacted`);
  } finally {
    await closeRuntime(rt);
  }
  return 0;
}
