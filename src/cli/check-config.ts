// `gaugeway check-config`: validate a config file offline, print every problem as
// `file:line: path: message`, exit 1 if there is any.
import { ConfigError, formatProblem, loadConfig } from '../config/load.js';
import { parse, configOption } from './args.js';

export function checkConfig(args: string[], out: (line: string) => void = console.log, err: (line: string) => void = console.error): number {
  const { values } = parse(args, { ...configOption, print: { type: 'boolean' } });
  try {
    const config = loadConfig({ file: values.config as string | undefined });
    out(`${config.source}: OK`);
    if (values.print) out(JSON.stringify(config, null, 2));
    return 0;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    for (const p of e.problems) err(formatProblem(p));
    return 1;
  }
}
