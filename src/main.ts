// The `gaugeway` command: dispatch to a subcommand; `serve` is the default.
import { readFileSync } from 'node:fs';
import { GaugewayError } from './errors.js';
import { serve } from './cli/serve.js';
import { checkConfig } from './cli/check-config.js';
import { accountsCommand, tokensCommand } from './cli/accounts.js';
import { storeCommand } from './cli/store.js';

const HELP = `gaugeway: a self-hosted metrics service speaking the Librato Metrics v1 API

usage: gaugeway <command> [options]
  serve [--config FILE] [--listen HOST:PORT] [--data-dir DIR]   run in the foreground (default)
  check-config [--config FILE] [--print]                         validate a config file
  accounts create|list|disable|enable ...                        manage accounts
  tokens create|list|disable|enable|rotate ...                   manage API tokens
  store compact [--config FILE]                                  expire, merge and compact chunks now (service stopped)
  version                                                        print the version

The config file is --config, else $GAUGEWAY_CONFIG, else the embedded config/default.yaml.`;

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  try {
    switch (command) {
      case 'serve': return await serve(rest);
      case 'check-config': return checkConfig(rest);
      case 'accounts': return await accountsCommand(rest);
      case 'tokens': return await tokensCommand(rest);
      case 'store': return await storeCommand(rest);
      case 'version': case '--version': console.log(`gaugeway ${version()}`); return 0;
      case 'help': case '--help': case '-h': console.log(HELP); return 0;
      default:
        if (command.startsWith('-')) return await serve(argv);
        console.error(`unknown command: ${command}\n\n${HELP}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof GaugewayError) {
      console.error(`gaugeway: ${err.message}`);
      return err.code === 'E_USAGE' ? 2 : 1;
    }
    throw err;
  }
}
