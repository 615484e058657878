// `gaugeway accounts ...` and `gaugeway tokens ...`.
import { loadConfig } from '../config/load.js';
import { GaugewayError } from '../errors.js';
import { parse, configOption } from './args.js';
import { connectAdmin } from './admin-client.js';

/** Said once for both: which service the commands reach. */
const WHICH_SERVICE = `
  each also takes [--config FILE] [--data-dir DIR], the service's config and data dir
    (the running service is reached through its admin socket there; a stopped one's
    data dir is opened directly)`;
const USAGE_ACCOUNTS = `usage:
  gaugeway accounts create EMAIL [--role admin|recorder|viewer] [--token-name NAME]
  gaugeway accounts list
  gaugeway accounts disable EMAIL | enable EMAIL${WHICH_SERVICE}`;
const USAGE_TOKENS = `usage:
  gaugeway tokens create EMAIL NAME [--role admin|recorder|viewer]
  gaugeway tokens list EMAIL
  gaugeway tokens disable EMAIL NAME | enable EMAIL NAME
  gaugeway tokens rotate EMAIL NAME${WHICH_SERVICE}`;

type Out = (line: string) => void;

export async function accountsCommand(args: string[], out: Out = console.log): Promise<number> {
  const { values, positionals } = parse(args, { ...configOption, 'data-dir': { type: 'string' }, role: { type: 'string' }, 'token-name': { type: 'string' } }, USAGE_ACCOUNTS);
  const [verb, email] = positionals;
  const needs = (n: number) => { if (positionals.length !== n) throw new GaugewayError('E_USAGE', USAGE_ACCOUNTS); };
  return withClient(values, async (admin) => {
    switch (verb) {
      case 'create': {
        needs(2);
        const r = (await admin.call('POST', '/accounts', { email, role: values.role, token_name: values['token-name'] })) as { account: { id: number; email: string }; token: { name: string; role: string }; secret: string };
        out(`account ${r.account.email} (id ${r.account.id}) created`);
        printSecret(out, r.account.email, r.token.name, r.token.role, r.secret);
        return 0;
      }
      case 'list': {
        needs(1);
        for (const a of (await admin.call('GET', '/accounts')) as { id: number; email: string; active: boolean }[]) {
          out(`${a.id}\t${a.email}\t${a.active ? 'active' : 'disabled'}`);
        }
        return 0;
      }
      case 'disable':
      case 'enable':
        needs(2);
        await admin.call('POST', `/accounts/${encodeURIComponent(email!)}/${verb}`);
        out(`account ${email} ${verb}d`);
        return 0;
      default:
        throw new GaugewayError('E_USAGE', USAGE_ACCOUNTS);
    }
  });
}

export async function tokensCommand(args: string[], out: Out = console.log): Promise<number> {
  const { values, positionals } = parse(args, { ...configOption, 'data-dir': { type: 'string' }, role: { type: 'string' } }, USAGE_TOKENS);
  const [verb, email, name] = positionals;
  const needs = (n: number) => { if (positionals.length !== n) throw new GaugewayError('E_USAGE', USAGE_TOKENS); };
  const base = () => `/accounts/${encodeURIComponent(email!)}/tokens`;
  return withClient(values, async (admin) => {
    switch (verb) {
      case 'create': {
        needs(3);
        const r = (await admin.call('POST', base(), { name, role: values.role })) as { token: { name: string; role: string }; secret: string };
        printSecret(out, email!, r.token.name, r.token.role, r.secret);
        return 0;
      }
      case 'list': {
        needs(2);
        for (const t of (await admin.call('GET', base())) as { name: string; role: string; active: boolean; origin: string }[]) {
          out(`${t.name}\t${t.role}\t${t.active ? 'active' : 'disabled'}\t${t.origin}`);
        }
        return 0;
      }
      case 'disable':
      case 'enable':
        needs(3);
        await admin.call('POST', `${base()}/${encodeURIComponent(name!)}/${verb}`);
        out(`token ${name} of ${email} ${verb}d`);
        return 0;
      case 'rotate': {
        needs(3);
        const r = (await admin.call('POST', `${base()}/${encodeURIComponent(name!)}/rotate`)) as { token: { name: string; role: string }; secret: string };
        out(`token ${name} rotated: the old secret no longer works`);
        printSecret(out, email!, r.token.name, r.token.role, r.secret);
        return 0;
      }
      default:
        throw new GaugewayError('E_USAGE', USAGE_TOKENS);
    }
  });
}

function printSecret(out: Out, email: string, name: string, role: string, secret: string): void {
  out(`token ${name} (${role}) for ${email}; shown only now, store it safely:`);
  out(secret);
}

async function withClient(values: Record<string, unknown>, fn: (admin: Awaited<ReturnType<typeof connectAdmin>>) => Promise<number>): Promise<number> {
  const config = loadConfig({ file: values.config as string | undefined, flags: { dataDir: values['data-dir'] as string | undefined } });
  const admin = await connectAdmin(config);
  try {
    return await fn(admin);
  } finally {
    await admin.close();
  }
}
