// The `scrape:` section in the config file: jobs with defaults applied, problems on their
// lines (in the config file or in the Prometheus file named by config_files).
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, formatProblem, parseConfig } from '../../src/config/load.js';

const dir = mkdtempSync(join(tmpdir(), 'gw-scrape-config-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const FILE = join(dir, 'config.yaml');

function problems(text: string): string[] {
  try {
    parseConfig(text, FILE, {});
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map(formatProblem);
    throw err;
  }
  return [];
}

t.test('no scrape section: no jobs', async (t) => {
  t.same(parseConfig('', FILE, {}).scrapeJobs, []);
});

t.test('an inline job, its defaults and a Prometheus file beside it', async (t) => {
  writeFileSync(join(dir, 'prometheus.yml'), 'global:\n  scrape_interval: 30s\nscrape_configs:\n  - job_name: node\n    static_configs: [{targets: ["127.0.0.1:9100"]}]\n');
  const c = parseConfig([
    'scrape:',
    '  global: {scrape_interval: 10s}',
    '  config_files: [prometheus.yml]',
    '  scrape_configs:',
    '    - job_name: app',
    '      static_configs: [{targets: ["127.0.0.1:8080"]}]',
  ].join('\n'), FILE, {});
  t.same(c.scrapeJobs.map((j) => [j.name, j.intervalMs, j.timeoutMs, j.metricsPath, j.account]), [['app', 10_000, 10_000, '/metrics', null], ['node', 30_000, 10_000, '/metrics', null]],
    'relative config_files resolve against the config file; a file\'s global applies to its jobs');
});

t.test('unknown keys and bad values are refused on their lines', async (t) => {
  t.same(problems([
    'scrape:',
    '  scrape_configs:',
    '    - job_name: app',
    '      scrape_intervall: 10s',
    '    - job_name: b',
    '      scrape_interval: 5s',
    '      scrape_timeout: 10s',
  ].join('\n')), [
    `${FILE}:4: scrape.scrape_configs[0].scrape_intervall: unknown key "scrape_intervall" (did you mean "scrape_interval"?)`,
  ], 'the schema first');
  t.match(problems([
    'scrape:',
    '  scrape_configs:',
    '    - job_name: b',
    '      scrape_interval: 5s',
    '      scrape_timeout: 10s',
  ].join('\n')), [new RegExp(`^${FILE.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:5: scrape\\.scrape_configs\\[0\\]\\.scrape_timeout: `)], 'then the rules between keys, on the line of the key');
  writeFileSync(join(dir, 'bad.yml'), 'global:\n  scrape_interval: 30s\nscrape_configs:\n  - job_name: x\n    sample_limitt: 5\n');
  t.same(problems('scrape:\n  config_files: [bad.yml]'), [`${join(dir, 'bad.yml')}:5: scrape_configs[0].sample_limitt: unknown key "sample_limitt"`], 'a Prometheus file\'s problem on its own line');
  t.match(problems('scrape:\n  config_files: [missing.yml]'), [new RegExp(`config.yaml:2: scrape.config_files\\[0\\]: cannot read .*missing.yml: ENOENT`)]);
});

t.test('config/example.yaml: its example job, uncommented, is a valid job', async (t) => {
  const { readFileSync } = await import('node:fs');
  const text = readFileSync('config/example.yaml', 'utf8');
  const start = text.indexOf('  # --- example job ---\n');
  const end = text.indexOf('  # --- end of example job ---\n');
  t.ok(start > 0 && end > start, 'the markers are there');
  const job = text.slice(start, end).split('\n').slice(1).map((l) => l.replace(/^ {2}# /, '  ')).join('\n');
  const edited = text.slice(0, start).replace('  scrape_configs: []\n', '  scrape_configs:\n') + job + text.slice(end);
  const c = parseConfig(edited, FILE, {});
  t.equal(c.scrapeJobs.length, 1);
  t.match(c.scrapeJobs[0], { name: 'node', intervalMs: 15_000, timeoutMs: 10_000, metricsPath: '/metrics', scheme: 'http' });
  t.equal(c.scrapeJobs[0]!.relabelConfigs.length, 1);
  t.equal(c.scrapeJobs[0]!.metricRelabelConfigs.length, 1);
});

t.test('relabel rules are read as written: ${name} and $$ are theirs, not environment variables', async (t) => {
  const { relabel } = await import('../../src/scrape/relabel.js');
  const text = [
    'data_dir: ${DATA:-/tmp/x}',
    'scrape:',
    '  scrape_configs:',
    '    - job_name: app',
    '      static_configs: [{targets: ["127.0.0.1:8080"], labels: {host: web1}}]',
    '      relabel_configs:',
    '        - source_labels: [host]',
    '          regex: "(?P<host>.+)"',
    '          target_label: node',
    '          replacement: "${host}-$$"',
  ].join('\n');
  // HOST is set, host is not: neither may be read from the environment
  const c = parseConfig(text, FILE, { HOST: 'from-env', DATA: '/tmp/data' });
  t.equal(c.data_dir, '/tmp/data', 'other values are still expanded');
  const labels = new Map([['host', 'web1']]);
  t.ok(relabel(labels, c.scrapeJobs[0]!.relabelConfigs));
  t.equal(labels.get('node'), 'web1-$', 'the named group, then Go\'s literal dollar');
});
