// TLS material: the configured certificate, or one Gaugeway issues itself on first start
// so that a fresh install speaks HTTPS at once. Self-issued means two certificates in
// <data_dir>/tls: a local CA (ca.pem, ten years), which an operator trusts once in
// browsers and clients, and a server certificate signed by it (cert.pem: not a CA,
// serverAuth, SANs localhost, 127.0.0.1, ::1, this host's name and the configured host
// names, 397 days as browsers require). The server certificate is issued again when it
// is missing, expires within 30 days, lacks a wanted name, or is the CA-style
// self-signed certificate of Gaugeway 0.1 (which browsers refuse as a server
// certificate); the CA is kept, so trusting it once is enough.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { generate as Generate } from 'selfsigned';
import type { Config } from '../config/types.js';
import type { Logger } from '../log.js';
import { makeDirectory, writeFileAtomically } from '../durable-files.js';

export interface TlsMaterial {
  /** the certificate chain the server presents (server certificate, then the local CA) */
  cert: string;
  key: string;
  /** what a client should trust: the local CA, or the configured certificate itself */
  ca: string;
  certFile: string;
  fingerprint256: string;
  selfSigned: boolean;
}

const DAY_MS = 86_400_000;
const LEAF_DAYS = 397;
const CA_DAYS = 3650;
const RENEW_DAYS = 30;

export function selfSignedPaths(dataDir: string) {
  const dir = join(dataDir, 'tls');
  return { dir, cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem'), ca: join(dir, 'ca.pem'), caKey: join(dir, 'ca-key.pem') };
}

export async function loadTls(config: Config, log: Logger, now = Date.now()): Promise<TlsMaterial> {
  const { cert_file, key_file } = config.tls;
  if (cert_file || key_file) {
    if (!cert_file || !key_file) throw new Error('tls.cert_file and tls.key_file must be set together');
    const cert = readFileSync(cert_file, 'utf8');
    return { cert, ca: cert, key: readFileSync(key_file, 'utf8'), certFile: cert_file, fingerprint256: new X509Certificate(cert).fingerprint256, selfSigned: false };
  }
  const p = selfSignedPaths(config.data_dir);
  makeDirectory(p.dir, 0o700);
  const ca = await localCa(p, log, now);
  const names = wantedNames(config);
  const reason = existsSync(p.cert) && existsSync(p.key) ? renewalReason(readFileSync(p.cert, 'utf8'), ca.cert, names, now) : 'missing';
  if (reason) {
    const leaf = await issue(ca, names, now);
    writeFileAtomically(p.key, leaf.private, 0o600);
    writeFileAtomically(p.cert, leaf.cert, 0o644);
    log.info({ cert: p.cert, reason, names, fingerprint256: new X509Certificate(leaf.cert).fingerprint256, ca: p.ca, caFingerprint256: new X509Certificate(ca.cert).fingerprint256 },
      'issued the server TLS certificate from the local CA; trust the CA (ca.pem) once in clients');
  }
  const cert = readFileSync(p.cert, 'utf8');
  const fingerprint256 = new X509Certificate(cert).fingerprint256;
  if (!reason) log.debug({ cert: p.cert, fingerprint256, ca: p.ca, caFingerprint256: new X509Certificate(ca.cert).fingerprint256 }, 'using the server TLS certificate issued by the local CA');
  return { cert: `${cert.trim()}\n${ca.cert.trim()}\n`, ca: ca.cert, key: readFileSync(p.key, 'utf8'), certFile: p.cert, fingerprint256, selfSigned: true };
}

/** The names the server certificate must carry. */
export function wantedNames(config: Config): string[] {
  const names = new Set(['localhost', '127.0.0.1', '::1', hostname().toLowerCase()]);
  const host = config.http.host.replace(/^\[|\]$/g, '');
  if (host && host !== '0.0.0.0' && host !== '::') names.add(host.toLowerCase());
  if (config.http.external_url) names.add(new URL(config.http.external_url).hostname.replace(/^\[|\]$/g, '').toLowerCase());
  return [...names];
}

/** Why the server certificate must be issued again, or null. */
export function renewalReason(certPem: string, caPem: string, names: readonly string[], now: number): string | null {
  const cert = new X509Certificate(certPem);
  const ca = new X509Certificate(caPem);
  if (cert.ca) return 'a CA-style certificate, which browsers refuse as a server certificate';
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return 'not issued by the local CA';
  if (Date.parse(cert.validTo) - now < RENEW_DAYS * DAY_MS) return `expires ${cert.validTo}`;
  const san = (cert.subjectAltName ?? '').split(', ').map((e) => e.replace(/^(DNS|IP Address):/, '').toLowerCase());
  const has = (n: string) => san.includes(n) || (n === '::1' && san.includes('0:0:0:0:0:0:0:1'));
  const missing = names.filter((n) => !has(n));
  return missing.length ? `lacks ${missing.join(', ')}` : null;
}

interface Pems { cert: string; private: string }

async function localCa(p: ReturnType<typeof selfSignedPaths>, log: Logger, now: number): Promise<Pems> {
  if (existsSync(p.ca) && existsSync(p.caKey)) {
    const cert = readFileSync(p.ca, 'utf8');
    if (Date.parse(new X509Certificate(cert).validTo) - now > RENEW_DAYS * DAY_MS) return { cert, private: readFileSync(p.caKey, 'utf8') };
    log.warn({ ca: p.ca }, 'the local CA expires soon: issuing a new one; clients must trust the new ca.pem');
  }
  const generate = await certificateGenerator();
  const ca = await generate([{ name: 'commonName', value: `Gaugeway local CA (${hostname()})` }, { name: 'organizationName', value: 'Gaugeway' }], {
    keyType: 'ec', curve: 'P-256', algorithm: 'sha256', notBeforeDate: new Date(now - DAY_MS), notAfterDate: new Date(now + CA_DAYS * DAY_MS),
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  writeFileAtomically(p.caKey, ca.private, 0o600);
  writeFileAtomically(p.ca, ca.cert, 0o644);
  log.info({ ca: p.ca, caFingerprint256: new X509Certificate(ca.cert).fingerprint256 }, 'created the local CA that issues the server TLS certificate');
  return ca;
}

/**
 * selfsigned, loaded only to issue a certificate: every start that finds valid ones (all
 * but the first, a renewal's) was paying about 0.1 s to load its modules.
 */
async function certificateGenerator(): Promise<typeof Generate> {
  return (await import('selfsigned')).generate;
}

async function issue(ca: Pems, names: readonly string[], now: number): Promise<Pems> {
  const generate = await certificateGenerator();
  return generate([{ name: 'commonName', value: names.find((n) => isIP(n) === 0 && n !== 'localhost') ?? 'localhost' }], {
    keyType: 'ec', curve: 'P-256', algorithm: 'sha256', notBeforeDate: new Date(now - DAY_MS), notAfterDate: new Date(now + LEAF_DAYS * DAY_MS),
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })) },
    ],
  });
}
