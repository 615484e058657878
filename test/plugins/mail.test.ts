// The mail plugin against a real SMTP server (smtp-server) on loopback: the message as
// received and parsed (subject, recipients, text and HTML parts), over a plain connection,
// STARTTLS and implicit TLS (trusting the CA Gaugeway generated for itself), with
// authentication, and a refused login reported as the delivery's error.
import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/tmp.js';

async function smtp(t: Test, opts: Partial<SMTPServerOptions>): Promise<{ port: number; mails: ParsedMail[]; logins: string[] }> {
  const mails: ParsedMail[] = [];
  const logins: string[] = [];
  const server = new SMTPServer({
    authOptional: true, disabledCommands: [], logger: false,
    onAuth(auth, _session, cb) {
      logins.push(auth.username ?? '');
      if (auth.username === 'gaugeway' && auth.password === 's3cret') cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, _session, cb) {
      simpleParser(stream).then((m) => { mails.push(m); cb(); }, cb);
    },
    ...opts,
  });
  // a client that refuses the certificate drops the connection: an error of that session only
  server.on('error', () => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { port: (server.server.address() as { port: number }).port, mails, logins };
}

/** A Gaugeway whose mail plugin sends to `port` with `mail` settings; its TLS files for the SMTP server. */
async function gaugeway(t: Test, mail: string): Promise<TestServer> {
  return startTestServer(t, `notifications:\n  mail:\n${mail}`);
}

async function mailService(s: TestServer): Promise<number> {
  const r = await s.request('POST', '/v1/services', { json: { title: 'Ops mail', type: 'mail', settings: { addresses: 'ops@example.com, oncall@example.com' } } });
  if (r.status !== 201) throw new Error(r.text);
  return r.body.id;
}

t.test('settings: a comma-separated string of valid addresses', async (t) => {
  const s = await startTestServer(t);
  const bad = async (settings: unknown) => (await s.request('POST', '/v1/services', { json: { title: 'm', type: 'mail', settings } })).body;
  t.same(await bad({}), { errors: { params: { 'settings.addresses': ['Is required'] } } });
  t.same(await bad({ addresses: ['a@example.com'] }), { errors: { params: { 'settings.addresses': ['must be string'] } } });
  t.same(await bad({ addresses: 'a@example.com, nobody, b@' }), { errors: { params: { 'settings.addresses': ['Not a valid email address: nobody', 'Not a valid email address: b@'] } } });
  const noServer = await mailService(s);
  const test = await s.request('POST', `/v1/services/${noServer}/test`);
  t.same([test.body.status, test.body.error], ['failed', 'no SMTP server is configured (notifications.mail.host)']);
});

t.test('a test notification over a plain connection: subject, recipients, text and HTML', async (t) => {
  const server = await smtp(t, { secure: false, hideSTARTTLS: true });
  const s = await gaugeway(t, `    host: 127.0.0.1\n    port: ${server.port}\n    starttls: never\n    from: "Gaugeway <alerts@example.com>"`);
  const id = await mailService(s);
  const r = await s.request('POST', `/v1/services/${id}/test`);
  t.same(r.body.status, 'sent', r.body.error ?? '');
  t.equal(server.mails.length, 1);
  const m = server.mails[0]!;
  t.equal(m.subject, '[Gaugeway] [Test] Alert gaugeway.test has triggered!');
  t.same((Array.isArray(m.to) ? m.to : [m.to!]).flatMap((a) => a.value.map((v) => v.address)), ['ops@example.com', 'oncall@example.com']);
  t.equal(m.from?.value[0]?.address, 'alerts@example.com');
  t.match(m.text, /^This is a test alert notification, no action is required\.\n\n# Alert gaugeway\.test has triggered!/);
  t.match(m.text, /Account: admin@localhost/);
  t.match(m.text, /Source `host=test`:\n\* metric `gaugeway\.test` was above threshold 0 with value 1 recorded at \w{3}, \w{3} \d{2} \d{4} at \d\d:\d\d:\d\d UTC/);
  t.match(m.html, /<h1[^>]*>Alert gaugeway\.test has triggered!<\/h1>/);
  t.match(m.html, /<li>metric <code>gaugeway\.test<\/code> was above threshold 0/);
  t.match(m.html, /Sent by Gaugeway/);
  t.ok(m.headers.get('x-gaugeway-idempotency-key'), 'the idempotency key travels in a header');
});

t.test('STARTTLS required, with a login; a wrong password is the delivery\'s error', async (t) => {
  // the SMTP server uses the certificate Gaugeway made for 127.0.0.1, which its CA signed
  const dir = tempDir(t);
  const probe = await startTestServer(t, '', { dataDir: dir, keepData: true });
  await probe.stop();
  const tls = join(dir, 'tls');
  const server = await smtp(t, { secure: false, key: readFileSync(join(tls, 'key.pem')), cert: readFileSync(join(tls, 'cert.pem')) });
  const base = `    host: 127.0.0.1\n    port: ${server.port}\n    starttls: required\n    ca_file: ${join(tls, 'ca.pem')}\n    user: gaugeway\n`;
  const s = await gaugeway(t, `${base}    password: s3cret`);
  const id = await mailService(s);
  const ok = await s.request('POST', `/v1/services/${id}/test`);
  t.equal(ok.body.status, 'sent', ok.body.error ?? '');
  t.equal(server.mails.length, 1);
  t.same(server.logins, ['gaugeway']);

  const wrong = await gaugeway(t, `${base}    password: nope`);
  const id2 = await mailService(wrong);
  const failed = await wrong.request('POST', `/v1/services/${id2}/test`);
  t.equal(failed.body.status, 'failed');
  t.match(failed.body.error, /Invalid login|Invalid username or password/);
  t.equal(server.mails.length, 1, 'nothing more was sent');
});

t.test('implicit TLS (secure), and a server certificate not signed by the configured CA is refused', async (t) => {
  const dir = tempDir(t);
  const probe = await startTestServer(t, '', { dataDir: dir, keepData: true });
  await probe.stop();
  const tls = join(dir, 'tls');
  const server = await smtp(t, { secure: true, key: readFileSync(join(tls, 'key.pem')), cert: readFileSync(join(tls, 'cert.pem')) });
  const s = await gaugeway(t, `    host: 127.0.0.1\n    port: ${server.port}\n    secure: true\n    ca_file: ${join(tls, 'ca.pem')}`);
  const id = await mailService(s);
  t.equal((await s.request('POST', `/v1/services/${id}/test`)).body.status, 'sent');
  t.equal(server.mails.length, 1);
  const untrusted = await gaugeway(t, `    host: 127.0.0.1\n    port: ${server.port}\n    secure: true`);
  const id2 = await mailService(untrusted);
  const r = await untrusted.request('POST', `/v1/services/${id2}/test`);
  t.equal(r.body.status, 'failed');
  t.match(r.body.error, /certificate/i);
});

t.test('recipients the SMTP server refuses: noted on a delivery that reached the others, a failure when it refused all', async (t) => {
  const server = await smtp(t, {
    secure: false, hideSTARTTLS: true,
    onRcptTo(address, _session, cb) {
      if (address.address.startsWith('bad')) cb(Object.assign(new Error('no such mailbox'), { responseCode: 550 }));
      else cb();
    },
  });
  const s = await gaugeway(t, `    host: 127.0.0.1\n    port: ${server.port}\n    starttls: never`);
  const service = async (addresses: string) => (await s.request('POST', '/v1/services', { json: { title: 'm', type: 'mail', settings: { addresses } } })).body.id as number;
  const some = await service('ops@example.com, bad@example.com');
  const partly = await s.request('POST', `/v1/services/${some}/test`);
  t.equal(partly.body.status, 'sent');
  t.match(partly.body.error, /^the SMTP server refused 1 of 2 recipients: bad@example\.com \(550 no such mailbox\)$/);
  t.equal(server.mails.length, 1);
  t.same((await s.get(`/v1/services/${some}/deliveries`)).body.deliveries[0].error, partly.body.error, 'in the delivery log too');

  const none = await service('bad1@example.com, bad2@example.com');
  const refused = await s.request('POST', `/v1/services/${none}/test`);
  t.equal(refused.body.status, 'failed');
  t.match(refused.body.error, /all recipients were rejected/);
  t.equal(refused.body.permanent, true, 'a 5xx refusal of every recipient is not retried');
  t.equal(server.mails.length, 1, 'nothing sent');
});

t.test('a temporary SMTP refusal (4xx) is retried, not permanent', async (t) => {
  const server = await smtp(t, {
    secure: false, hideSTARTTLS: true,
    onRcptTo(_address, _session, cb) { cb(Object.assign(new Error('try again later'), { responseCode: 451 })); },
  });
  const s = await gaugeway(t, `    host: 127.0.0.1\n    port: ${server.port}\n    starttls: never`);
  const id = await mailService(s);
  const r = await s.request('POST', `/v1/services/${id}/test`);
  t.equal(r.body.status, 'failed');
  t.notOk(r.body.permanent);
});
