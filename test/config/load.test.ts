import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, EMBEDDED_DEFAULT, configPath, formatProblem, loadConfig, parseConfig } from '../../src/config/load.js';

const FILE = '/etc/gaugeway/config.yaml';

/** The problems a config text produces, formatted as check-config prints them. */
function problems(text: string, env: NodeJS.ProcessEnv = {}, flags = {}): string[] {
  try {
    parseConfig(text, FILE, env, flags);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map(formatProblem);
    throw err;
  }
  return [];
}

t.test('an empty file is a complete config made of the schema defaults', async (t) => {
  const c = parseConfig('', FILE, {});
  t.equal(c.http.listen, '127.0.0.1:8443');
  t.equal(c.http.host, '127.0.0.1');
  t.equal(c.http.port, 8443);
  t.equal(c.data_dir, '/etc/gaugeway/data', 'the default ./data is relative to the file');
  t.equal(c.limits.rate_limit.std.limit, 6000);
  t.equal(c.storage.retention['3600'], 365 * 86400, 'durations become seconds');
  t.same(c.accounts, []);
  t.equal(c.source, FILE);
});

t.test('precedence: flags > GAUGEWAY_* environment > file > defaults', async (t) => {
  const text = 'http:\n  listen: 127.0.0.1:1001\n  trust_proxy: true\nlog:\n  level: warn\n';
  const fileOnly = parseConfig(text, FILE, {});
  t.equal(fileOnly.http.listen, '127.0.0.1:1001');
  t.equal(fileOnly.log.level, 'warn');
  t.equal(fileOnly.http.request_timeout_ms, 20000, 'an unset key keeps its default');

  const env = { GAUGEWAY_HTTP__LISTEN: '127.0.0.1:1002', GAUGEWAY_LOG__LEVEL: 'debug', GAUGEWAY_LIMITS__RATE_LIMIT__STD__LIMIT: '7' };
  const withEnv = parseConfig(text, FILE, env);
  t.equal(withEnv.http.listen, '127.0.0.1:1002', 'environment beats the file');
  t.equal(withEnv.log.level, 'debug');
  t.equal(withEnv.limits.rate_limit.std.limit, 7, 'values are read as YAML scalars: a number stays a number');
  t.equal(withEnv.limits.rate_limit.std.interval_seconds, 60, 'sibling keys keep their defaults');
  t.equal(withEnv.http.trust_proxy, true, 'keys the environment does not name stay as in the file');

  const withFlags = parseConfig(text, FILE, env, { listen: '127.0.0.1:1003', dataDir: 'flagdir' });
  t.equal(withFlags.http.listen, '127.0.0.1:1003', 'a flag beats the environment');
  t.equal(withFlags.http.port, 1003);
  t.equal(withFlags.data_dir, resolve('flagdir'), 'a relative --data-dir is relative to the working directory');
});

t.test('environment values: booleans, paths, and names that match no key', async (t) => {
  const c = parseConfig('data_dir: here\n', FILE, { GAUGEWAY_HTTP__TRUST_PROXY: 'true', GAUGEWAY_TLS__CERT_FILE: 'c.pem', GAUGEWAY_TLS__KEY_FILE: '/k.pem', GAUGEWAY_CONFIG: '/ignored' });
  t.equal(c.http.trust_proxy, true);
  t.equal(c.tls.cert_file, resolve('c.pem'), 'a relative path from the environment is relative to the working directory');
  t.equal(c.data_dir, '/etc/gaugeway/here', 'a relative path in the file is relative to the file');

  t.same(problems('', { GAUGEWAY_HTTP__LISTN: 'x', GAUGEWAY_NOPE: '1' }), [
    'environment GAUGEWAY_HTTP__LISTN: http.listn: names no config key (did you mean GAUGEWAY_HTTP__LISTEN?)',
    'environment GAUGEWAY_NOPE: nope: names no config key',
  ]);
  t.same(problems('', { GAUGEWAY_LOG__LEVEL__X: '1' }), ['environment GAUGEWAY_LOG__LEVEL__X: log.level.x: log.level has no keys below it']);
  t.same(problems('http:\n  trust_proxy: false\n', { GAUGEWAY_HTTP__TRUST_PROXY: 'maybe' }),
    ['environment GAUGEWAY_HTTP__TRUST_PROXY: http.trust_proxy: must be true, false or a list of IP addresses and CIDR blocks'], 'a bad value is blamed on the variable, not the file line');
  t.same(problems('', {}, { listen: 'nonsense' }), ['--listen: http.listen: must be HOST:PORT, such as 127.0.0.1:8443, 0.0.0.0:8443 or [::1]:8443'],
    'what the operator should write, not the regular expression it must match');
});

t.test('a listen port above 65535 is refused where it was set', async (t) => {
  t.same(problems('data_dir: ./d\nhttp:\n  listen: 127.0.0.1:99999\n'), ['/etc/gaugeway/config.yaml:3: http.listen: port 99999 does not exist: use 1 to 65535 (or 0 for any free port)']);
  t.same(problems('', { GAUGEWAY_HTTP__LISTEN: '[::1]:65536' }), ['environment GAUGEWAY_HTTP__LISTEN: http.listen: port 65536 does not exist: use 1 to 65535 (or 0 for any free port)']);
  t.same(problems('', {}, { listen: '127.0.0.1:70000' }), ['--listen: http.listen: port 70000 does not exist: use 1 to 65535 (or 0 for any free port)']);
  t.equal(parseConfig('http:\n  listen: 127.0.0.1:65535\n', FILE, {}).http.port, 65535, 'the last port is one');
});

t.test('${VAR} forms inside values', async (t) => {
  const text = [
    'http:',
    '  listen: "${HOST:-127.0.0.1}:${PORT:-9000}"',
    '  trust_proxy: ${PROXY:-false}',
    '  max_connections: ${CONNS}',
    'data_dir: ${DIR:?set DIR to the data folder}',
    'tls:',
    '  cert_file: "/certs/$${literal}.pem"',
    '  key_file: /certs/key.pem',
    '# ${UNSET_IN_A_COMMENT} is never expanded',
  ].join('\n');
  const c = parseConfig(text, FILE, { PORT: '9100', PROXY: 'true', CONNS: '12', DIR: '/srv/gw' });
  t.equal(c.http.listen, '127.0.0.1:9100', 'default used for an unset variable, value for a set one');
  t.equal(c.http.trust_proxy, true, 'an unquoted ${VAR} is typed like YAML: a boolean');
  t.equal(c.http.max_connections, 12, 'an unquoted ${VAR} is typed like YAML: a number');
  t.equal(c.data_dir, '/srv/gw');
  t.equal(c.tls.cert_file, '/certs/${literal}.pem', '$$ is a literal dollar');

  const empty = parseConfig('http:\n  listen: "${HOST:-127.0.0.1}:8443"\n', FILE, { HOST: '' });
  t.equal(empty.http.listen, '127.0.0.1:8443', ':- also applies to an empty variable');

  t.same(problems(text, { CONNS: '1' }), [
    '/etc/gaugeway/config.yaml:5: data_dir: ${DIR} is not set: set DIR to the data folder',
  ], ':? fails with its message, on its line, without a second complaint about the empty value');
  t.same(problems('http:\n  max_connections: 5\nlog:\n  level: ${LEVEL}\n'), [
    '/etc/gaugeway/config.yaml:4: log.level: ${LEVEL} is not set and has no default (write ${LEVEL:-default})',
  ], 'an unset variable without a default is an error, never a silent empty string, named by its key');
  t.same(problems('notifications:\n  mail:\n    password: ${SMTP_PASSWORD}\nhttp:\n  trust_proxy: ["10.0.0.1", "${PROXY}"]\n'), [
    '/etc/gaugeway/config.yaml:3: notifications.mail.password: ${SMTP_PASSWORD} is not set and has no default (write ${SMTP_PASSWORD:-default})',
    '/etc/gaugeway/config.yaml:5: http.trust_proxy[1]: ${PROXY} is not set and has no default (write ${PROXY:-default})',
  ], 'the key, not (root), even in a list');
  t.same(problems('data_dir: "${X}"\n', { X: 'a\nb: c' }).length, 0, 'a value cannot inject YAML structure');
  t.equal(parseConfig('data_dir: "${X}"\n', FILE, { X: '/a\nb: c' }).data_dir, '/a\nb: c');
});

t.test('file errors: every problem, with its line, a path and a hint', async (t) => {
  const text = [
    'http:',                         // 1
    '  listn: "0.0.0.0:8443"',       // 2 typo
    '  trust_proxy: "yes"',          // 3 wrong type
    'storage:',                      // 4
    '  retention:',                  // 5
    '    raw: 2x',                   // 6 bad duration
    'log:',                          // 7
    '  level: loud',                 // 8 bad enum
    'accounts:',                     // 9
    '  - email: ops@example.com',    // 10 missing token_sha256
    'tls:',                          // 11
    '  cert_file: 5',                // 12
  ].join('\n');
  t.same(problems(text), [
    '/etc/gaugeway/config.yaml:2: http.listn: unknown key "listn" (did you mean "listen"?)',
    '/etc/gaugeway/config.yaml:3: http.trust_proxy: must be true, false or a list of IP addresses and CIDR blocks',
    '/etc/gaugeway/config.yaml:6: storage.retention.raw: must be a number of seconds or a duration such as 30s, 5m, 2h, 8d, 1w, 1y',
    '/etc/gaugeway/config.yaml:8: log.level: must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent"',
    "/etc/gaugeway/config.yaml:10: accounts[0]: must have required property 'token_sha256'",
    '/etc/gaugeway/config.yaml:12: tls.cert_file: must be string or null',
  ], 'in line order');
  t.same(problems('datadir: /x\n'), ['/etc/gaugeway/config.yaml:1: datadir: unknown key "datadir" (did you mean "data_dir"?)']);
  t.same(problems('http:\n  listen: a:1\nhttp:\n  trust_proxy: true\n').length, 1, 'a repeated key is an error');
  t.match(problems('http:\n  listen: a:1\nhttp:\n  trust_proxy: true\n')[0], /^\/etc\/gaugeway\/config\.yaml:3: /);
  t.same(problems('tls:\n  min_version: TLSv1.3\n  cert_file: /c.pem\n'), ['/etc/gaugeway/config.yaml:3: tls.key_file: must be set together with tls.cert_file']);
  t.same(problems('', { GAUGEWAY_TLS__KEY_FILE: '/k.pem' }), ['environment GAUGEWAY_TLS__KEY_FILE: tls.cert_file: must be set together with tls.key_file']);
  t.same(problems('http:\n  request_timeout_ms: 5000\n'), ['/etc/gaugeway/config.yaml:2: http.request_timeout_ms: must be at least http.headers_timeout_ms (10000)'],
    'a pair Node would refuse at start is a config error');
  t.same(problems('- a\n- b\n'), ['/etc/gaugeway/config.yaml:1: (root): must be a mapping of keys to values']);
  const sha = 'a'.repeat(64);
  t.same(problems(`accounts:\n  - email: "ops:eu@example.com"\n    token_sha256: ${sha}\n`),
    ['/etc/gaugeway/config.yaml:2: accounts[0].email: must be an e-mail address (name@domain without spaces, ":" or control characters)'],
    'an e-mail Basic auth cannot carry (a colon) is refused at its line');
  // the token itself pasted where its hash belongs, and a URL with a query: messages that say what to write
  t.same(problems(`accounts:\n  - email: ops@example.com\n    token_sha256: ${'A'.repeat(64)}\n`),
    ['/etc/gaugeway/config.yaml:3: accounts[0].token_sha256: must be the token\'s SHA-256, 64 lower-case hex digits: printf %s "$TOKEN" | sha256sum']);
  t.same(problems('http:\n  listen: 0.0.0.0\n  external_url: https://metrics.example.com/gw?x=1\n'), [
    '/etc/gaugeway/config.yaml:2: http.listen: must be HOST:PORT, such as 127.0.0.1:8443, 0.0.0.0:8443 or [::1]:8443',
    '/etc/gaugeway/config.yaml:3: http.external_url: must be an http or https URL without query or fragment, such as https://metrics.example.com/gw',
  ]);
});

t.test('which file: --config, $GAUGEWAY_CONFIG, the installed one, the embedded default; an unreadable file is a problem', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'gw.yaml');
  writeFileSync(file, 'data_dir: ./state\ntls:\n  cert_file: certs/c.pem\n  key_file: /abs/k.pem\n');
  const c = loadConfig({ file: null, env: { GAUGEWAY_CONFIG: file } });
  t.equal(c.source, file);
  t.equal(c.data_dir, join(dir, 'state'));
  t.equal(c.tls.cert_file, join(dir, 'certs/c.pem'));
  t.equal(c.tls.key_file, '/abs/k.pem');

  const installed = mkdtempSync(join(tmpdir(), 'gw-etc-'));
  t.teardown(() => rmSync(installed, { recursive: true, force: true }));
  t.equal(configPath({ env: { CONFIGURATION_DIRECTORY: installed }, systemConfig: null }), EMBEDDED_DEFAULT, 'no config.yaml there: the embedded default');
  writeFileSync(join(installed, 'config.yaml'), 'data_dir: /srv/gw\n');
  t.equal(configPath({ env: { CONFIGURATION_DIRECTORY: installed }, systemConfig: null }), join(installed, 'config.yaml'), "systemd's configuration directory");
  t.equal(configPath({ env: {}, systemConfig: join(installed, 'config.yaml') }), join(installed, 'config.yaml'), 'the installed /etc file');
  t.equal(configPath({ env: { GAUGEWAY_CONFIG: file, CONFIGURATION_DIRECTORY: installed } }), file, '$GAUGEWAY_CONFIG comes first');
  t.equal(configPath({ file: 'x.yaml', env: { GAUGEWAY_CONFIG: file } }), resolve('x.yaml'), 'and --config before it');

  const missing = join(dir, 'missing.yaml');
  t.throws(() => loadConfig({ file: missing, env: {} }), { problems: [{ file: missing, path: '', message: /^cannot read/ }] });
});

t.test('the shipped configs are valid', async (t) => {
  const example = loadConfig({ file: 'config/example.yaml', env: {} });
  t.equal(example.data_dir, '/var/lib/gaugeway');
  const embedded = loadConfig({ env: {}, systemConfig: null });
  t.equal(embedded.http.listen, '127.0.0.1:8443', 'npm start listens on loopback only');
  t.equal(embedded.data_dir, resolve('data'), 'npm start keeps its data in <checkout>/data');
});

t.test('config/schema.json (for editors) is the schema the loader uses', async (t) => {
  const { configSchema } = await import('../../src/config/schema.js');
  const committed = JSON.parse(readFileSync('config/schema.json', 'utf8')) as Record<string, unknown>;
  const { $schema: _draft, title: _title, ...rest } = committed;
  t.same(rest, JSON.parse(JSON.stringify(configSchema)), 'out of date: npm run build && node scripts/write-config-schema.js');
});

t.test('sizes take units, 1000-based KB/MB/GB and 1024-based KiB/MiB/GiB', async (t) => {
  const c = parseConfig('limits:\n  body_bytes: 5MB\nstorage:\n  min_free_disk_bytes: 1.5GiB\n  checkpoint:\n    wal_bytes: 512KiB\n', FILE, {});
  t.equal(c.limits.body_bytes, 5_000_000);
  t.equal(c.storage.min_free_disk_bytes, 1.5 * 1024 ** 3);
  t.equal(c.storage.checkpoint.wal_bytes, 512 * 1024);
  t.equal(parseConfig('', FILE, { GAUGEWAY_LIMITS__BODY_BYTES: '64 kb' }).limits.body_bytes, 64_000, 'from the environment too');
  t.equal(parseConfig('limits:\n  body_bytes: 4096\n', FILE, {}).limits.body_bytes, 4096, 'plain integers as before');
  t.same(problems('limits:\n  body_bytes: lots\n'), [`${FILE}:2: limits.body_bytes: must be a number of bytes or a size such as 512KiB, 5MB, 1GiB`]);
  t.same(problems('limits:\n  body_bytes: 1KB\n'), [`${FILE}:2: limits.body_bytes: must be >= 1024`], 'the bounds apply to the converted value');
  t.same(parseConfig('', FILE, {}).limits.per_account, { spaces: 1000, charts_per_space: 500, alerts: 1000, services: 100, annotation_streams: 1000, composite_metrics: 1000 });
  t.same(problems('limits:\n  per_account:\n    alerts: 0\n'), [`${FILE}:3: limits.per_account.alerts: must be >= 1`]);
  t.equal(problems('limits:\n  per_account:\n    dashboards: 5\n')[0]?.startsWith(`${FILE}:3: limits.per_account`), true, 'an unknown key is a problem on its line');
});

t.test('problems are reported in line order', async (t) => {
  // the schema lists http before storage; the file has them the other way round
  t.same(problems('storage:\n  sync: maybe\nlog:\n  level: loud\nhttp:\n  listen: nowhere\n').map((p) => Number(p.split(':')[1])), [2, 4, 6]);
});
