// The `gaugeway` command: dispatch to a subcommand; `serve` is the default.
import { readFileSync } from 'node:fs';
import { GaugewayError } from './errors.js';

const HELP = `gaugeway: a self-hosted metrics service speaking the Librato Metrics v1 API

usage: gaugeway <command> [options]
  serve [--config FILE] [--listen HOST:PORT] [--data-dir DIR]   run in the foreground (default)
  check-config [--config FILE] [--print]                         validate a config file
  accounts create|list|disable|enable ...                        manage accounts
  tokens create|list|disable|enable|rotate ...                   manage API tokens
  store repair [--config FILE] [--data-dir DIR]                  repair a database that will not open (service stopped)
  store compact [--config FILE] [--data-dir DIR]                 expire, merge and compact chunks now (service stopped)
  backup DIR [--config FILE] [--data-dir DIR]                    a consistent copy of the data, while the service runs
  restore DIR [--config FILE] [--data-dir DIR]                   restore a backup into a new data dir (service stopped)
  export FILE [--config FILE] [--data-dir DIR]                   metrics, spaces, charts, annotation streams as JSON
  import FILE [--config FILE] [--data-dir DIR]                   create or update those definitions by name
  version                                                        print the version

The config file is --config, else $GAUGEWAY_CONFIG, else $CONFIGURATION_DIRECTORY/config.yaml,
else /etc/gaugeway/config.yaml, else the embedded config/default.yaml.
While the service runs, accounts and tokens go through <data_dir>/admin.sock: run them as
the service user or root. See docs/operations.md.`;

export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  try {
    switch (command) {
      // Subcommands load on demand: `version` and `check-config` (run by systemd's
      // ExecReload) need neither Koa nor LevelDB.
      case 'serve': return await (await import('./cli/serve.js')).serve(rest);
      case 'check-config': return (await import('./cli/check-config.js')).checkConfig(rest);
      case 'accounts': return await (await import('./cli/accounts.js')).accountsCommand(rest);
      case 'tokens': return await (await import('./cli/accounts.js')).tokensCommand(rest);
      case 'store': return await (await import('./cli/store.js')).storeCommand(rest);
      case 'backup': return await (await import('./cli/backup.js')).backupCommand(rest);
      case 'restore': return await (await import('./cli/backup.js')).restoreCommand(rest);
      case 'export': return await (await import('./cli/export-import.js')).exportCommand(rest);
      case 'import': return await (await import('./cli/export-import.js')).importCommand(rest);
      case 'version': case '--version': console.log(`gaugeway ${version()}`); return 0;
      case 'help': case '--help': case '-h': console.log(HELP); return 0;
      default:
        if (command.startsWith('-')) return await (await import('./cli/serve.js')).serve(argv);
        console.error(`unknown command: ${command}\n\n${HELP}`);
        return 2;
    }
  } catch (err) {
    if (err instanceof GaugewayError && err.code === 'E_HELP') {
      console.log(err.message);
      return 0;
    }
    if (err instanceof GaugewayError) {
      console.error(`gaugeway: ${err.message}`);
      return err.code === 'E_USAGE' ? 2 : 1;
    }
    throw err;
  }
}
