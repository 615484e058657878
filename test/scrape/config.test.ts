import t from 'tap';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import {
  normalizeScrape, prometheusFileSchema, scrapeSchema, type PrometheusFileSection, type ScrapeJob, type ScrapeSection,
} from '../../src/scrape/config.js';
import { ScrapeConfigError, describeProblem } from '../../src/scrape/problems.js';

// As the config loader will: the section embedded in the config schema, defaults filled.
const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, allowUnionTypes: true });
const validateConfig = ajv.compile({ type: 'object', additionalProperties: false, properties: { scrape: scrapeSchema } });
const validateFile = ajv.compile(prometheusFileSchema);

function section(yaml: string): ScrapeSection {
  const data = (parseYaml(yaml) ?? {}) as Record<string, unknown>;
  if (!validateConfig(data)) throw new Error(`schema: ${ajv.errorsText(validateConfig.errors)}`);
  return (data as { scrape: ScrapeSection }).scrape;
}

function promFile(yaml: string): PrometheusFileSection {
  const data = parseYaml(yaml) as Record<string, unknown>;
  if (!validateFile(data)) throw new Error(`schema: ${ajv.errorsText(validateFile.errors)}`);
  return data as PrometheusFileSection;
}

function jobs(yaml: string, files: Record<string, string> = {}): ScrapeJob[] {
  const map = new Map(Object.entries(files).map(([path, text]) => [path, promFile(text)]));
  return normalizeScrape(section(yaml), map, '/etc/gaugeway');
}

/** The problems normalizing `yaml` reports, as `file: path: message` lines. */
function problems(yaml: string, files: Record<string, string> = {}): string[] {
  try {
    jobs(yaml, files);
  } catch (e) {
    if (e instanceof ScrapeConfigError) return e.problems.map(describeProblem);
    throw e;
  }
  return [];
}

t.test('a pasted static job gets Prometheus defaults', async (t) => {
  const [job] = jobs(`
scrape:
  scrape_configs:
    - job_name: node
      static_configs:
        - targets: ['localhost:9100', 'db:9100']
          labels: {env: prod, port: 9100}
`);
  t.match(job, {
    name: 'node', origin: 'scrape.scrape_configs[0]', account: null, intervalMs: 60_000, timeoutMs: 10_000, metricsPath: '/metrics', scheme: 'http',
    params: [], honorLabels: false, honorTimestamps: true, sampleLimit: 0, labelLimit: 0, bodySizeLimit: 0,
    fileSdConfigs: [], basicAuth: null, authorization: null, tls: null, relabelConfigs: [], metricRelabelConfigs: [], externalLabels: [],
  });
  t.same(job!.staticConfigs, [{ targets: ['localhost:9100', 'db:9100'], labels: [['env', 'prod'], ['port', '9100']], source: 'scrape.scrape_configs[0].static_configs[0]' }]);
  t.same(jobs('scrape: {}'), [], 'no jobs is fine');
  t.same(jobs(''), [], 'no scrape section is fine');
});

t.test('intervals and timeouts: job over global over Prometheus defaults, timeouts never above the interval', async (t) => {
  const got = jobs(`
scrape:
  global: {scrape_interval: 15s}
  scrape_configs:
    - {job_name: a}
    - {job_name: b, scrape_interval: 5s}
    - {job_name: c, scrape_interval: 1m30s, scrape_timeout: 45s}
    - {job_name: d, scrape_interval: 500ms}
`).map((j) => [j.name, j.intervalMs, j.timeoutMs]);
  t.same(got, [['a', 15_000, 10_000], ['b', 5_000, 5_000], ['c', 90_000, 45_000], ['d', 500, 500]]);
  t.same(jobs('scrape: {global: {scrape_interval: 5s}, scrape_configs: [{job_name: a, scrape_interval: 1m}]}').map((j) => j.timeoutMs), [5_000], 'a global timeout cut to the global interval stays cut');
  t.same(problems('scrape: {scrape_configs: [{job_name: a, scrape_interval: 10s, scrape_timeout: 11s}]}'), [
    'scrape.scrape_configs[0].scrape_timeout: must not be longer than scrape_interval (11s > 10s)',
  ]);
  t.same(problems('scrape: {global: {scrape_interval: 5s, scrape_timeout: 6s}}'), ['scrape.global.scrape_timeout: must not be longer than scrape_interval (6s > 5s)']);
  t.match(problems('scrape: {scrape_configs: [{job_name: a, scrape_interval: 1.5m}, {job_name: b, scrape_interval: "15"}, {job_name: c, scrape_timeout: 0s}]}'), [
    /^scrape\.scrape_configs\[0\]\.scrape_interval: must be a duration such as 15s/,
    /^scrape\.scrape_configs\[1\]\.scrape_interval: must be a duration/,
    /^scrape\.scrape_configs\[2\]\.scrape_timeout: must be longer than 0/,
  ]);
});

t.test('every other job key', async (t) => {
  const [job] = jobs(`
scrape:
  scrape_configs:
    - job_name: blackbox
      account: ops@example.com
      metrics_path: /probe
      scheme: https
      params: {module: [http_2xx], z: [1, two]}
      honor_labels: true
      honor_timestamps: false
      sample_limit: 5000
      label_limit: 30
      body_size_limit: 10MB
      file_sd_configs:
        - files: [targets/*.yml, /abs/web.json]
      basic_auth: {username: scraper, password_file: secrets/pw}
      tls_config: {ca_file: ca.pem, cert_file: /tls/c.pem, key_file: /tls/k.pem, server_name: probe.local, insecure_skip_verify: true}
      relabel_configs:
        - source_labels: [__address__]
          target_label: __param_target
      metric_relabel_configs:
        - {source_labels: [__name__], regex: 'go_.*', action: drop}
`);
  t.match(job, {
    account: 'ops@example.com', metricsPath: '/probe', scheme: 'https', params: [['module', ['http_2xx']], ['z', ['1', 'two']]],
    honorLabels: true, honorTimestamps: false, sampleLimit: 5000, labelLimit: 30, bodySizeLimit: 10 * 1024 * 1024,
    fileSdConfigs: [{ files: ['/etc/gaugeway/targets/*.yml', '/abs/web.json'], refreshIntervalMs: 300_000 }],
    basicAuth: { username: 'scraper', password: null, passwordFile: '/etc/gaugeway/secrets/pw' },
    tls: { caFile: '/etc/gaugeway/ca.pem', certFile: '/tls/c.pem', keyFile: '/tls/k.pem', serverName: 'probe.local', insecureSkipVerify: true },
  });
  t.equal(job!.relabelConfigs.length, 1);
  t.equal(job!.metricRelabelConfigs[0]!.action, 'drop');
  const [bearer] = jobs('scrape: {scrape_configs: [{job_name: a, authorization: {credentials_file: token}}]}');
  t.same(bearer!.authorization, { type: 'Bearer', credentials: null, credentialsFile: '/etc/gaugeway/token' });
});

t.test('rules between keys, each reported at its path', async (t) => {
  t.same(problems(`
scrape:
  scrape_configs:
    - job_name: a
      account: not-an-email
      metrics_path: metrics
      body_size_limit: ten
      basic_auth: {password: x, password_file: y}
      authorization: {type: basic, credentials: x, credentials_file: y}
      tls_config: {cert_file: c.pem}
      static_configs: [{targets: [h], labels: {bad-name: x}}]
      file_sd_configs: [{files: [targets.txt, 'dir*/x.yml'], refresh_interval: soon}]
      relabel_configs:
        - {source_labels: [a], target_label: b}
        - {action: bogus}
`), [
    'scrape.scrape_configs[0].account: must be an e-mail address (of an account in accounts)',
    'scrape.scrape_configs[0].metrics_path: must start with "/"',
    'scrape.scrape_configs[0].body_size_limit: must be a size such as 512KB, 10MB or 1GB (units B KB MB GB TB PB EB, powers of 1024), or 0 for no limit',
    'scrape.scrape_configs[0].static_configs[0].labels.bad-name: is not a label name (a letter or _, then letters, digits or _)',
    'scrape.scrape_configs[0].file_sd_configs[0].files[0]: "targets.txt" must end in .json, .yml or .yaml, with * only in the last part of the path',
    'scrape.scrape_configs[0].file_sd_configs[0].files[1]: "dir*/x.yml" must end in .json, .yml or .yaml, with * only in the last part of the path',
    'scrape.scrape_configs[0].file_sd_configs[0].refresh_interval: must be a duration such as 15s, 1m30s, 2h or 500ms (units y w d h m s ms, largest first)',
    'scrape.scrape_configs[0].basic_auth: set password or password_file, not both',
    'scrape.scrape_configs[0].authorization: set credentials or credentials_file, not both',
    'scrape.scrape_configs[0].authorization.type: cannot be Basic: use basic_auth',
    'scrape.scrape_configs[0].authorization: set basic_auth or authorization, not both',
    'scrape.scrape_configs[0].tls_config: cert_file and key_file must be set together',
    'scrape.scrape_configs[0].relabel_configs[1].action: unknown relabel action "bogus" (expected one of replace, keep, drop, keepequal, dropequal, hashmod, labelmap, labeldrop, labelkeep, lowercase, uppercase)',
  ]);
  t.same(problems('scrape: {scrape_configs: [{job_name: a}, {job_name: b}, {job_name: a}]}'), [
    'scrape.scrape_configs[2].job_name: "a" is already the name of the job at scrape.scrape_configs[0]',
  ]);
  const e = (() => {
    try {
      jobs('scrape: {scrape_configs: [{job_name: a, scrape_interval: x}]}');
    } catch (err) {
      return err as ScrapeConfigError;
    }
    return null;
  })();
  t.equal(e?.code, 'E_CONFIG_INVALID');
  t.same(e?.problems[0]?.segments, ['scrape', 'scrape_configs', '0', 'scrape_interval'], 'segments for the config loader to find the line');
});

t.test('the schema refuses unknown keys and wrong types', async (t) => {
  t.throws(() => section('scrape: {scrape_configs: [{job_name: a, kubernetes_sd_configs: []}]}'), /must NOT have additional properties/);
  t.throws(() => section('scrape: {scrape_configs: [{static_configs: []}]}'), /must have required property 'job_name'/);
  t.throws(() => section('scrape: {scrape_configs: [{job_name: a, scheme: ftp}]}'), /must be equal to one of the allowed values/);
  t.throws(() => section('scrape: {global: {evaluation_interval: 1m}}'), /must NOT have additional properties/, 'evaluation_interval is no key of ours');
  t.throws(() => section('scrape: {scrape_configs: [{job_name: a, relabel_configs: [{regexp: x}]}]}'), /must NOT have additional properties/);
});

const prometheusYml = `
# my global config
global:
  scrape_interval: 15s
  evaluation_interval: 15s
  external_labels: {dc: fra1, region: us}
alerting:
  alertmanagers:
    - static_configs:
        - targets:
rule_files:
  - "first_rules.yml"
scrape_configs:
  - job_name: "prometheus"
    static_configs:
      - targets: ["localhost:9090"]
  - job_name: "node"
    file_sd_configs: [{files: [sd/nodes.json]}]
    basic_auth: {username: u, password_file: pw.txt}
`;

t.test('a prometheus.yml named in config_files works unchanged', async (t) => {
  const got = jobs(`
scrape:
  global: {scrape_interval: 30s, external_labels: {region: eu}}
  config_files: [prom/prometheus.yml]
  scrape_configs:
    - job_name: gateway
      static_configs: [{targets: ['127.0.0.1:8080']}]
`, { 'prom/prometheus.yml': prometheusYml });
  t.same(got.map((j) => [j.name, j.origin, j.intervalMs, j.timeoutMs, j.externalLabels]), [
    ['gateway', 'scrape.scrape_configs[0]', 30_000, 10_000, [['region', 'eu']]],
    ['prometheus', 'prom/prometheus.yml: scrape_configs[0]', 15_000, 10_000, [['dc', 'fra1'], ['region', 'us']]],
    ['node', 'prom/prometheus.yml: scrape_configs[1]', 15_000, 10_000, [['dc', 'fra1'], ['region', 'us']]],
  ]);
  t.same(got[2]!.fileSdConfigs[0]!.files, ['/etc/gaugeway/prom/sd/nodes.json'], "the file's relative paths resolve against its folder");
  t.equal(got[2]!.basicAuth!.passwordFile, '/etc/gaugeway/prom/pw.txt');
  t.same(jobs('scrape: {global: {scrape_interval: 20s}, config_files: [p.yml]}', { 'p.yml': 'scrape_configs: [{job_name: x}]' }).map((j) => j.intervalMs), [20_000], 'a file without global takes scrape.global');
  const labelled = (file: string) => jobs('scrape: {global: {external_labels: {region: eu}}, config_files: [p.yml]}', { 'p.yml': file })[0]!.externalLabels;
  t.same(labelled('global: {external_labels: {cluster: c1}}\nscrape_configs: [{job_name: x}]'), [['cluster', 'c1']], 'a file\'s external_labels replace scrape.global\'s, as one key');
  t.same(labelled('global: {scrape_interval: 5s}\nscrape_configs: [{job_name: x}]'), [['region', 'eu']], 'a file without them takes scrape.global\'s');
});

t.test('config_files problems name the file', async (t) => {
  t.same(problems('scrape: {config_files: [a.yml, b.yml]}', { 'a.yml': 'scrape_configs: [{job_name: x, scrape_timeout: 2m}]' }), [
    'a.yml: scrape_configs[0].scrape_timeout: must not be longer than scrape_interval (2m > 1m)',
    'scrape.config_files[1]: b.yml was not read',
  ]);
  t.same(problems('scrape: {config_files: [a.yml], scrape_configs: [{job_name: x}]}', { 'a.yml': 'scrape_config_files: [more/*.yml]\nscrape_configs: [{job_name: x}]' }), [
    'a.yml: scrape_config_files: is not read by Gaugeway: list those files under scrape.config_files instead',
    'a.yml: scrape_configs[0].job_name: "x" is already the name of the job at scrape.scrape_configs[0]',
  ]);
  t.throws(() => promFile('global: {scrape_protocols: [PrometheusText0.0.4]}'), /must NOT have additional properties/, 'scrape settings we do not support are not ignored');
  t.doesNotThrow(() => promFile('global: {query_log_file: q.log, rule_query_offset: 1m}\nremote_write: [{url: "http://x"}]\nscrape_configs:'));
});
