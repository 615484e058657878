// The mail CA file (notifications.mail.ca_file) is read by the mail plugin when it sends,
// so that a renewed CA needs no reload; a path that cannot be read as a certificate is
// refused up front instead (check-config, serve, a reload), not found out when an alert's
// mail fails to go out.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GaugewayError } from '../errors.js';
import type { Config } from './types.js';

/** What is wrong with a PEM certificate file, or null. */
export function certificateFileProblem(file: string): string | null {
  let pem: Buffer;
  try {
    pem = readFileSync(file);
  } catch (e) {
    return `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
  try {
    new X509Certificate(pem);
    return null;
  } catch {
    return `${file} holds no PEM certificate`;
  }
}

/** Throws E_CONFIG_INVALID if the config names a mail CA file that is not a readable certificate. */
export function assertMailCaFile(config: Config): void {
  const ca = config.notifications.mail.ca_file;
  const problem = ca ? certificateFileProblem(ca) : null;
  if (problem) throw new GaugewayError('E_CONFIG_INVALID', `${config.source ?? 'config'}: notifications.mail.ca_file: ${problem}`);
}
