import t from 'tap';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { generate } from 'selfsigned';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-check-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('a typo and a wrong type: both printed as file:line: path: message, exit 1', async (t) => {
  const file = join(dir, 'bad.yaml');
  writeFileSync(file, [
    'http:',
    '  listen: 127.0.0.1:8443',
    '  trust_prxy: true',
    'limits:',
    '  body_bytes: lots',
  ].join('\n'));
  const r = await runCli(['check-config', '--config', file]);
  t.equal(r.code, 1);
  t.equal(r.stdout, '');
  t.same(r.stderr.trim().split('\n'), [
    `${file}:3: http.trust_prxy: unknown key "trust_prxy" (did you mean "trust_proxy"?)`,
    `${file}:5: limits.body_bytes: must be a number of bytes or a size such as 512KiB, 5MB, 1GiB`,
  ]);
});

t.test('a good file: OK and exit 0; --print shows the effective config with env overrides', async (t) => {
  const file = join(dir, 'good.yaml');
  writeFileSync(file, 'data_dir: ./state\nhttp:\n  listen: "${LISTEN:-127.0.0.1:9443}"\n');
  const r = await runCli(['check-config', '--config', file, '--print'], { GAUGEWAY_LOG__LEVEL: 'debug' });
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stderr, `${file}: OK\n`, 'the OK line on stderr');
  const printed = JSON.parse(r.stdout); // only the JSON on stdout, so `| jq` works
  t.equal(printed.data_dir, join(dir, 'state'));
  t.equal(printed.http.listen, '127.0.0.1:9443');
  t.equal(printed.log.level, 'debug');
});

t.test('--print with scrape jobs: relabel rules print (no BigInt error), every password and credential is masked', async (t) => {
  const file = join(dir, 'scrape.yaml');
  writeFileSync(file, [
    'notifications:',
    '  mail:',
    '    password: smtp-secret',
    'scrape:',
    '  scrape_configs:',
    '    - job_name: node',
    '      basic_auth: {username: scraper, password: scrape-secret}',
    '      static_configs: [{targets: ["127.0.0.1:9100"]}]',
    '      relabel_configs:',
    '        - source_labels: [__address__]',
    '          regex: "(.*):9100"',
    '          target_label: host',
    '    - job_name: shard',
    '      authorization: {credentials: bearer-secret}',
    '      static_configs: [{targets: ["127.0.0.1:9101"]}]',
    '      metric_relabel_configs:',
    '        - source_labels: [__name__]',
    '          modulus: 4',
    '          target_label: __tmp_shard',
    '          action: hashmod',
  ].join('\n'));
  const r = await runCli(['check-config', '--config', file, '--print']);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stderr, `${file}: OK\n`);
  t.notMatch(r.stdout, /secret/, 'no secret in the printed config');
  const printed = JSON.parse(r.stdout);
  t.equal(printed.notifications.mail.password, '********');
  t.equal(printed.scrape.scrape_configs[0].basic_auth.password, '********');
  t.equal(printed.scrape.scrape_configs[1].authorization.credentials, '********');
  const [node, shard] = printed.scrapeJobs;
  t.match(node.relabelConfigs[0], { sourceLabels: ['__address__'], targetLabel: 'host' });
  t.match(node.relabelConfigs[0].regex, /\(\.\*\):9100/, 'a regex prints as its source');
  t.equal(shard.metricRelabelConfigs[0].modulus, 4, 'a hashmod modulus prints as a number');
});

t.test('an environment variable naming no key fails check-config too', async (t) => {
  const file = join(dir, 'plain.yaml');
  writeFileSync(file, 'log:\n  level: info\n');
  const r = await runCli(['check-config', '--config', file], { GAUGEWAY_LOG__LEVLE: 'debug' });
  t.equal(r.code, 1);
  t.equal(r.stderr.trim(), 'environment GAUGEWAY_LOG__LEVLE: log.levle: names no config key (did you mean GAUGEWAY_LOG__LEVEL?)');
});

t.test('configured TLS files must be readable and belong together', async (t) => {
  const file = join(dir, 'tls.yaml');
  writeFileSync(file, 'tls:\n  cert_file: certs/cert.pem\n  key_file: certs/key.pem\n');
  const r = await runCli(['check-config', '--config', file]);
  t.equal(r.code, 1);
  t.match(r.stderr, `${file}: tls: cannot use ${join(dir, 'certs/cert.pem')} with ${join(dir, 'certs/key.pem')}: ENOENT`);

  mkdirSync(join(dir, 'certs'));
  const [one, two] = await Promise.all([1, 2].map(() => generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', curve: 'P-256' } as never)));
  writeFileSync(join(dir, 'certs', 'cert.pem'), one!.cert);
  writeFileSync(join(dir, 'certs', 'key.pem'), two!.private);
  const mismatch = await runCli(['check-config', '--config', file]);
  t.equal(mismatch.code, 1, 'a key that does not belong to the certificate');
  t.match(mismatch.stderr, /tls: cannot use .*key values mismatch/);
  writeFileSync(join(dir, 'certs', 'key.pem'), one!.private);
  const good = await runCli(['check-config', '--config', file]);
  t.equal(good.code, 0, good.stderr);
});

t.test('a listen port above 65535: check-config names the line, serve stops with the same problem', async (t) => {
  const file = join(dir, 'port.yaml');
  writeFileSync(file, 'http:\n  listen: 127.0.0.1:99999\ndata_dir: ./d99\n');
  const check = await runCli(['check-config', '--config', file]);
  t.equal(check.code, 1);
  t.equal(check.stderr.trim(), `${file}:2: http.listen: port 99999 does not exist: use 1 to 65535 (or 0 for any free port)`);
  const serve = await runCli(['serve', '--config', file, '--listen', '127.0.0.1:70000']);
  t.equal(serve.code, 1);
  t.equal(serve.stderr.trim(), 'gaugeway: --listen: http.listen: port 70000 does not exist: use 1 to 65535 (or 0 for any free port)');
  t.notOk(existsSync(join(dir, 'd99')), 'nothing was created');
});

t.test('plugin folders must exist and the mail CA file must hold a certificate, as serve and mail need them', async (t) => {
  const file = join(dir, 'notify.yaml');
  writeFileSync(file, 'notifications:\n  mail:\n    ca_file: nosuch-ca.pem\n  plugin_dirs: [plug]\n');
  const missing = await runCli(['check-config', '--config', file]);
  t.equal(missing.code, 1);
  t.same(missing.stderr.trim().split('\n'), [
    `${file}: notifications.plugin_dirs[0]: cannot read the plugin folder ${join(dir, 'plug')}: ENOENT`,
    `${file}: notifications.mail.ca_file: cannot read ${join(dir, 'nosuch-ca.pem')}: ENOENT`,
  ]);

  mkdirSync(join(dir, 'plug'));
  writeFileSync(join(dir, 'nosuch-ca.pem'), 'not a certificate\n');
  const notPem = await runCli(['check-config', '--config', file]);
  t.equal(notPem.code, 1);
  t.equal(notPem.stderr.trim(), `${file}: notifications.mail.ca_file: ${join(dir, 'nosuch-ca.pem')} holds no PEM certificate`);

  const ca = await generate([{ name: 'commonName', value: 'mail CA' }], { keyType: 'ec', curve: 'P-256' } as never);
  writeFileSync(join(dir, 'nosuch-ca.pem'), ca.cert);
  const good = await runCli(['check-config', '--config', file]);
  t.equal(good.code, 0, good.stderr);
});

t.test('a missing file and unknown usage', async (t) => {
  const r = await runCli(['check-config', '--config', join(dir, 'nope.yaml')]);
  t.equal(r.code, 1);
  t.match(r.stderr, /nope\.yaml: \(root\): cannot read/);
  const usage = await runCli(['check-config', '--bogus']);
  t.equal(usage.code, 2, 'a usage error exits 2');
});

t.test('version prints the package version', async (t) => {
  const r = await runCli(['version']);
  t.equal(r.code, 0);
  t.match(r.stdout, /^gaugeway \d+\.\d+\.\d+\n$/);
});
