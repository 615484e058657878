// Argument parsing shared by the subcommands (node:util parseArgs, strict).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { GaugewayError } from '../errors.js';

export function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new GaugewayError('E_USAGE', (err as Error).message);
  }
}

export const configOption = { config: { type: 'string' as const, short: 'c' } };
