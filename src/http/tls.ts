// TLS material: the configured certificate, or a self-signed one generated into the
// data dir on first start so that a fresh install speaks HTTPS at once.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { hostname } from 'node:os';
import { generate } from 'selfsigned';
import type { Config } from '../config/types.js';
import type { Logger } from '../log.js';

export interface TlsMaterial {
  cert: string;
  key: string;
  certFile: string;
  fingerprint256: string;
  selfSigned: boolean;
}

export function selfSignedPaths(dataDir: string): { cert: string; key: string } {
  return { cert: join(dataDir, 'tls', 'cert.pem'), key: join(dataDir, 'tls', 'key.pem') };
}

export async function loadTls(config: Config, log: Logger): Promise<TlsMaterial> {
  const { cert_file, key_file } = config.tls;
  if (cert_file || key_file) {
    if (!cert_file || !key_file) throw new Error('tls.cert_file and tls.key_file must be set together');
    const cert = readFileSync(cert_file, 'utf8');
    return { cert, key: readFileSync(key_file, 'utf8'), certFile: cert_file, fingerprint256: new X509Certificate(cert).fingerprint256, selfSigned: false };
  }
  const paths = selfSignedPaths(config.data_dir);
  if (!existsSync(paths.cert) || !existsSync(paths.key)) {
    const pems = await generate([{ name: 'commonName', value: 'gaugeway' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notAfterDate: new Date(Date.now() + 5 * 365 * 86400 * 1000),
      extensions: [
        { name: 'basicConstraints', cA: true },
        { name: 'keyUsage', digitalSignature: true, keyCertSign: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
          { type: 2, value: 'localhost' },
          { type: 2, value: hostname() },
        ] },
      ],
    });
    mkdirSync(join(config.data_dir, 'tls'), { recursive: true, mode: 0o700 });
    writeFileSync(paths.key, pems.private, { mode: 0o600 });
    writeFileSync(paths.cert, pems.cert, { mode: 0o644 });
    const fingerprint256 = new X509Certificate(pems.cert).fingerprint256;
    log.info({ cert: paths.cert, fingerprint256 }, 'generated a self-signed TLS certificate');
    return { cert: pems.cert, key: pems.private, certFile: paths.cert, fingerprint256, selfSigned: true };
  }
  const cert = readFileSync(paths.cert, 'utf8');
  const fingerprint256 = new X509Certificate(cert).fingerprint256;
  log.info({ cert: paths.cert, fingerprint256 }, 'using the self-signed TLS certificate');
  return { cert, key: readFileSync(paths.key, 'utf8'), certFile: paths.cert, fingerprint256, selfSigned: true };
}
