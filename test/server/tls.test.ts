// With no certificate configured, Gaugeway issues its own on first start: a local CA and a
// server certificate signed by it (not a CA, serverAuth, SANs for localhost, 127.0.0.1,
// ::1 and the host names), logged with fingerprints, reused, and issued again when due.
import t from 'tap';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { generate } from 'selfsigned';
import { startLogged } from '../helpers/capture-log.js';
import { tempDir } from '../helpers/tmp.js';
import { httpsRequest } from '../helpers/client.js';
import { renewalReason } from '../../src/http/tls.js';

const start = startLogged;

/** The chain a verifying TLS client sees, trusting only `ca`. */
function handshake(port: number, ca: string, servername: string): Promise<{ authorized: boolean; chain: X509Certificate[] }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', servername, ca }, () => {
      const chain: X509Certificate[] = [];
      let c = socket.getPeerX509Certificate();
      while (c && chain.length < 3) { chain.push(c); const next = c.issuerCertificate; if (!next || next === c) break; c = next; }
      resolve({ authorized: socket.authorized, chain });
      socket.destroy();
    });
    socket.on('error', reject);
  });
}

t.test('first start issues a local CA and a proper server certificate, logs the fingerprints, reuses them', async (t) => {
  const dir = tempDir(t, 'gw-tls-');
  const first = await start(t, dir);
  const tlsDir = join(dir, 'data', 'tls');
  const leaf = new X509Certificate(readFileSync(join(tlsDir, 'cert.pem')));
  const ca = new X509Certificate(first.server.tls.ca);
  t.equal(leaf.ca, false, 'the server certificate is not a CA (browsers refuse a CA as a server certificate)');
  t.equal(ca.ca, true, 'the local CA is one');
  t.same(leaf.keyUsage, ['1.3.6.1.5.5.7.3.1'], 'extended key usage: serverAuth');
  t.ok(leaf.checkIssued(ca) && leaf.verify(ca.publicKey), 'signed by the local CA');
  for (const ip of ['127.0.0.1', '::1']) t.ok(leaf.checkIP(ip), `valid for ${ip}`);
  t.ok(leaf.checkHost('localhost'), 'valid for localhost');
  t.ok(Date.parse(leaf.validTo) - Date.now() <= 398 * 86400_000, 'at most 398 days, as browsers require');
  t.equal(first.server.tls.certFile, join(tlsDir, 'cert.pem'));
  for (const key of ['key.pem', 'ca-key.pem']) t.equal(statSync(join(tlsDir, key)).mode & 0o777, 0o600, `${key} is readable by the service user only`);
  const issued = first.log.lines().find((l) => String(l.msg).startsWith('issued the server TLS certificate'));
  t.equal(issued?.fingerprint256, leaf.fingerprint256, 'the SHA-256 fingerprint is logged');
  t.equal(issued?.caFingerprint256, ca.fingerprint256, 'and the CA\'s');

  // a client that trusts only the CA and checks the host name gets through, with the chain
  const seen = await handshake(first.server.port, first.server.tls.ca, 'localhost');
  t.ok(seen.authorized);
  t.equal(seen.chain[0]?.fingerprint256, leaf.fingerprint256);
  t.equal((await httpsRequest(first.server.port, first.server.tls.ca, 'GET', '/health')).status, 200);
  await first.close();

  const second = await start(t, dir);
  t.equal(second.server.tls.fingerprint256, leaf.fingerprint256, 'a restart reuses the certificate');
  t.notOk(second.log.lines().some((l) => String(l.msg).startsWith('issued the server TLS certificate')));
  t.equal(new X509Certificate(second.server.tls.ca).fingerprint256, ca.fingerprint256, 'and the CA');
});

t.test('the CA-style certificate of older versions is replaced; the CA stays when the server certificate is issued again', async (t) => {
  const dir = tempDir(t, 'gw-tls-');
  const tlsDir = join(dir, 'data', 'tls');
  mkdirSync(tlsDir, { recursive: true });
  const old = await generate([{ name: 'commonName', value: 'gaugeway' }], {
    keyType: 'ec', curve: 'P-256', algorithm: 'sha256',
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  } as never);
  writeFileSync(join(tlsDir, 'cert.pem'), old.cert);
  writeFileSync(join(tlsDir, 'key.pem'), old.private, { mode: 0o600 });
  const s = await start(t, dir);
  const leaf = new X509Certificate(readFileSync(join(tlsDir, 'cert.pem')));
  t.equal(leaf.ca, false, 'replaced by a server certificate');
  t.match(s.log.lines().find((l) => String(l.msg).startsWith('issued'))?.reason, /CA-style/);
  const ca = readFileSync(join(tlsDir, 'ca.pem'), 'utf8');
  t.equal(renewalReason(leaf.toString(), ca, ['localhost'], Date.now()), null, 'nothing due now');
  t.match(renewalReason(leaf.toString(), ca, ['localhost'], Date.parse(leaf.validTo) - 10 * 86400_000), /^expires/, 'due 30 days before expiry');
  t.equal(renewalReason(leaf.toString(), ca, ['metrics.example.com'], Date.now()), 'lacks metrics.example.com', 'due when a configured name is missing');
  await s.close();

  // a configured host name (external_url) is added by issuing again from the same CA
  // (the helper's config ends inside its http: section, so this line joins it)
  const again = await start(t, dir, '  external_url: https://metrics.example.com/gw\n');
  const renewed = new X509Certificate(readFileSync(join(tlsDir, 'cert.pem')));
  t.ok(renewed.checkHost('metrics.example.com'), 'the external host name is in the certificate');
  t.not(renewed.fingerprint256, leaf.fingerprint256);
  t.equal(readFileSync(join(tlsDir, 'ca.pem'), 'utf8'), ca, 'the CA is kept: trusted once is enough');
  t.ok((await handshake(again.server.port, ca, 'localhost')).authorized);
});

t.test('a configured certificate (relative to the config file) is used, and a reload picks up a new one', async (t) => {
  const dir = tempDir(t, 'gw-tls-');
  mkdirSync(join(dir, 'certs'));
  const issue = async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec', curve: 'P-256', algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }] }],
    } as never);
    writeFileSync(join(dir, 'certs', 'cert.pem'), pems.cert);
    writeFileSync(join(dir, 'certs', 'key.pem'), pems.private);
    return pems.cert;
  };
  const one = await issue();
  const s = await start(t, dir, 'tls:\n  cert_file: certs/cert.pem\n  key_file: certs/key.pem\n');
  t.equal(s.server.tls.fingerprint256, new X509Certificate(one).fingerprint256);
  t.equal((await httpsRequest(s.server.port, one, 'GET', '/health')).status, 200);

  const two = await issue();
  t.equal(await s.server.reload(), true);
  t.equal((await httpsRequest(s.server.port, two, 'GET', '/health')).status, 200, 'new connections get the new certificate');
  await t.rejects(httpsRequest(s.server.port, one, 'GET', '/health'), 'the old one is gone');
});

t.test('an unreadable configured certificate refuses to start', async (t) => {
  const dir = tempDir(t, 'gw-tls-');
  await t.rejects(start(t, dir, 'tls:\n  cert_file: /nope/cert.pem\n  key_file: /nope/key.pem\n'), { code: 'ENOENT' });
});
