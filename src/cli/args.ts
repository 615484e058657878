// Argument parsing shared by the subcommands (node:util parseArgs, strict). Every command
// passes its usage text: `--help` prints it (exit 0), a mistake prints the one-line reason
// followed by it (exit 2), never a raw parser message alone.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { GaugewayError } from '../errors.js';

export function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>, usage: string) {
  if (args.includes('--help') || args.includes('-h')) throw new GaugewayError('E_HELP', usage);
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    // parseArgs explains positional quoting after the first sentence; the reason is enough
    const reason = (err as Error).message.split(/\. /)[0]!.replace(/\.$/, '');
    throw new GaugewayError('E_USAGE', `${reason}\n\n${usage}`);
  }
}

export const configOption = { config: { type: 'string' as const, short: 'c' } };
