// The first start of an install without configured accounts makes an admin account and
// writes its credentials to <data_dir>/initial-credentials. A kill -9 anywhere in that
// (account made, token not; token made, file not) left an account whose secret nobody
// had, and the next start, seeing an account, made nothing: no file and no word why. So
// the steps run behind a marker file, and a start that finds the marker finishes them.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import { syncDirectory, writeFileAtomically } from '../durable-files.js';
import type { AccountDirectory } from './accounts.js';

const FIRST_ADMIN = 'admin@localhost';
const TOKEN_NAME = 'initial';

/** Makes the first admin account and its credentials file, or finishes a first start cut short. */
export async function ensureFirstAccount(accounts: AccountDirectory, dataDir: string, log: Logger): Promise<void> {
  const file = join(dataDir, 'initial-credentials');
  const pending = `${file}.pending`;
  const resumed = existsSync(pending);
  if (accounts.size > 0 && !resumed) return;
  if (resumed && accounts.size > 0 && !accounts.findAccount(FIRST_ADMIN)) {
    // cut short before its account, and accounts came from the config file since
    rmSync(pending, { force: true });
    return;
  }
  writeFileAtomically(pending, 'the first start is making the first admin account and initial-credentials\n', 0o600);
  if (!accounts.findAccount(FIRST_ADMIN)) await accounts.createAccount(FIRST_ADMIN);
  // a token made by a start cut short: its secret was never written anywhere, so replace it
  const made = accounts.listTokens(FIRST_ADMIN).some((t) => t.name === TOKEN_NAME);
  const { secret } = made ? await accounts.rotateToken(FIRST_ADMIN, TOKEN_NAME) : await accounts.createToken(FIRST_ADMIN, TOKEN_NAME, 'admin');
  writeFileAtomically(file, [
    '# Gaugeway: the first admin account, created because no account was configured.',
    '# Use them as HTTP basic auth (user = email, password = token). Move the token',
    `# somewhere safe and delete this file. The token is named "${TOKEN_NAME}"; if it may have`,
    `# leaked, \`sudo gaugeway tokens rotate ${FIRST_ADMIN} ${TOKEN_NAME}\` replaces it.`,
    `email: ${FIRST_ADMIN}`,
    `token: ${secret}`,
    '',
  ].join('\n'), 0o600);
  rmSync(pending);
  syncDirectory(dataDir);
  if (resumed) log.warn({ file }, 'the first start was cut short before it wrote the first admin\'s credentials: finished it now, with a new token in this file');
  else log.info({ file }, 'created the first admin account; its credentials are in this file');
}
