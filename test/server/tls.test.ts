// With no certificate configured, a self-signed one is generated into <data_dir>/tls/
// on first start (SAN 127.0.0.1 and localhost), its fingerprint logged, and reused.
import t from 'tap';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { startLogged } from '../helpers/capture-log.js';
import { tempDir } from '../helpers/tmp.js';
import { httpsRequest } from '../helpers/client.js';

const start = startLogged;

t.test('first start generates a certificate for 127.0.0.1 and localhost, logs its fingerprint, reuses it', async (t) => {
  const dir = tempDir(t, 'gw-tls-');
  const first = await start(t, dir);
  const certFile = join(dir, 'data', 'tls', 'cert.pem');
  const cert = new X509Certificate(first.server.tls.cert);
  t.match(cert.subjectAltName, /IP Address:127\.0\.0\.1/);
  t.match(cert.subjectAltName, /DNS:localhost/);
  t.ok(cert.checkHost('localhost'), 'valid for localhost');
  t.ok(cert.checkIP('127.0.0.1'), 'valid for 127.0.0.1');
  t.equal(first.server.tls.certFile, certFile);
  t.equal(statSync(join(dir, 'data', 'tls', 'key.pem')).mode & 0o777, 0o600, 'the private key is readable by the service user only');
  const generated = first.log.lines().find((l) => l.msg === 'generated a self-signed TLS certificate');
  t.equal(generated?.fingerprint256, cert.fingerprint256, 'the SHA-256 fingerprint is logged');
  t.match(String(generated?.fingerprint256), /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);

  // A client that trusts exactly this certificate and checks the host name gets through.
  const health = await httpsRequest(first.server.port, first.server.tls.cert, 'GET', '/health');
  t.equal(health.status, 200);
  await first.close();

  const second = await start(t, dir);
  t.equal(second.server.tls.fingerprint256, cert.fingerprint256, 'a restart reuses the certificate');
  t.ok(second.log.lines().some((l) => l.msg === 'using the self-signed TLS certificate' && l.fingerprint256 === cert.fingerprint256));
  t.notOk(second.log.lines().some((l) => l.msg === 'generated a self-signed TLS certificate'));
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
