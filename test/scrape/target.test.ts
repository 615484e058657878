import t from 'tap';
import { Ajv } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { normalizeScrape, scrapeSchema, type ScrapeJob, type ScrapeSection } from '../../src/scrape/config.js';
import { delayToNextScrape, sampleLabels, targetsOf, type ScrapeTarget, type TargetGroup, type TargetOutcome } from '../../src/scrape/target.js';

const validate = new Ajv({ useDefaults: true, allowUnionTypes: true }).compile({ type: 'object', properties: { scrape: scrapeSchema } });

function job(yaml: string): ScrapeJob {
  const data = parseYaml(`scrape: {scrape_configs: [${yaml}]}`) as { scrape: ScrapeSection };
  if (!validate(data)) throw new Error(JSON.stringify(validate.errors));
  return normalizeScrape(data.scrape, new Map(), '/etc/gaugeway')[0]!;
}

const group = (targets: string[], labels: Array<[string, string]> = []): TargetGroup => ({ targets, labels, source: 'test' });

function active(outcome: TargetOutcome | undefined): ScrapeTarget {
  if (outcome?.status !== 'active') throw new Error(`not active: ${JSON.stringify(outcome)}`);
  return outcome.target;
}

t.test('a static target: URL, labels before and after relabelling', async (t) => {
  const j = job('{job_name: node, scrape_interval: 15s}');
  const target = active(targetsOf(j, group(['localhost:9100'], [['env', 'prod']]))[0]);
  t.equal(target.url, 'http://localhost:9100/metrics');
  t.same(target.labels, [['env', 'prod'], ['instance', 'localhost:9100'], ['job', 'node']]);
  t.same(target.discoveredLabels, [
    ['__address__', 'localhost:9100'], ['__metrics_path__', '/metrics'], ['__scheme__', 'http'], ['__scrape_interval__', '15s'], ['__scrape_timeout__', '10s'], ['env', 'prod'], ['job', 'node'],
  ]);
  t.same([target.job, target.intervalMs, target.timeoutMs], ['node', 15_000, 10_000]);
  t.match(target.hash, /^[0-9a-f]{16}$/);
  t.ok(target.offsetMs >= 0 && target.offsetMs < 15_000);
  t.same(active(targetsOf(j, group(['[::1]:9100']))[0]).url, 'http://[::1]:9100/metrics', 'IPv6');
  t.same(active(targetsOf(j, group(['example.com']))[0]).labels.find(([n]) => n === 'instance'), ['instance', 'example.com'], 'no port is added');
});

t.test('the blackbox pattern: URLs as targets, moved into a parameter by relabelling', async (t) => {
  const j = job(`{
    job_name: blackbox, metrics_path: /probe, params: {module: [http_2xx]},
    static_configs: [{targets: ['https://prometheus.io', 'http://example.com:8080/a b']}],
    relabel_configs: [
      {source_labels: [__address__], target_label: __param_target},
      {source_labels: [__param_target], target_label: instance},
      {target_label: __address__, replacement: '127.0.0.1:9115'}
    ]}`);
  const [a, b] = j.staticConfigs.flatMap((g) => targetsOf(j, g)).map(active);
  t.equal(a!.url, 'http://127.0.0.1:9115/probe?module=http_2xx&target=https%3A%2F%2Fprometheus.io');
  t.same(a!.labels, [['instance', 'https://prometheus.io'], ['job', 'blackbox']]);
  t.equal(b!.url, 'http://127.0.0.1:9115/probe?module=http_2xx&target=http%3A%2F%2Fexample.com%3A8080%2Fa+b');
  t.not(a!.hash, b!.hash);
});

t.test('group labels, overrides by relabelling, and what is dropped or invalid', async (t) => {
  const j = job('{job_name: node, params: {x: [a, b]}}');
  const overridden = active(targetsOf(j, group(['h:1'], [['job', 'other'], ['__address__', 'ignored:2'], ['__meta_filepath', '/sd/x.yml'], ['__scheme__', 'https'], ['__param_x', 'z']]))[0]);
  t.equal(overridden.url, 'https://h:1/metrics?x=z&x=b', 'group labels win over job settings; __param_ replaces the first value');
  t.same(overridden.labels, [['instance', 'h:1'], ['job', 'other']], '__meta_ and other __ labels are not public');

  const relabelled = job(`{job_name: r, relabel_configs: [
    {source_labels: [__address__], regex: '(.*):.*', target_label: instance},
    {target_label: __scrape_interval__, replacement: 30s},
    {target_label: __metrics_path__, replacement: /custom},
    {source_labels: [__address__], regex: 'skip:.*', action: drop}
  ]}`);
  const [kept, dropped] = targetsOf(relabelled, group(['keep:1', 'skip:1']));
  t.match(active(kept), { url: 'http://keep:1/custom', intervalMs: 30_000, timeoutMs: 10_000, labels: [['instance', 'keep'], ['job', 'r']] });
  t.match(dropped, { status: 'dropped', discoveredLabels: [['__address__', 'skip:1']] });

  const invalid = (relabel: string, targets = ['h:1']) => {
    const outcome = targetsOf(job(`{job_name: i, relabel_configs: [${relabel}]}`), group(targets))[0]!;
    return outcome.status === 'invalid' ? outcome.error : outcome.status;
  };
  t.match(invalid('{target_label: __address__, replacement: ""}'), /no address/);
  t.match(invalid('{target_label: x, replacement: y}', ['http://h:1/metrics']), /"http:\/\/h:1\/metrics" is not a valid host:port/);
  t.match(invalid('{target_label: x, replacement: y}', ['user@h:1']), /not a valid host:port/);
  t.match(invalid('{target_label: __scheme__, replacement: ftp}'), /__scheme__ must be http or https, not "ftp"/);
  t.match(invalid('{target_label: __scrape_interval__, replacement: soon}'), /__scrape_interval__ "soon" is not a duration above 0/);
  t.match(invalid('{target_label: __scrape_timeout__, replacement: 2m}'), /scrape timeout 2m is longer than the interval 1m/);
  t.match(invalid('{target_label: x, replacement: y}', ['']), /no address/, 'an empty target has no address');
});

t.test('hashes are stable and tell targets apart; offsets spread scrapes over the interval', async (t) => {
  const j = job('{job_name: node}');
  const targets = targetsOf(j, group(Array.from({ length: 200 }, (_, i) => `host-${i}:9100`))).map(active);
  t.same(targetsOf(j, group(['host-0:9100'])).map(active)[0], targets[0], 'the same target again is the same');
  t.equal(new Set(targets.map((x) => x.hash)).size, 200);
  const tenths = new Set(targets.map((x) => Math.floor(x.offsetMs / 6000)));
  t.equal(tenths.size, 10, 'every tenth of the minute gets targets');
  t.not(active(targetsOf(job('{job_name: other}'), group(['host-0:9100']))[0]).hash, targets[0]!.hash, 'the job is part of the identity');

  const slot = { intervalMs: 60_000, offsetMs: 12_345 };
  t.equal(delayToNextScrape(slot, 1_700_000_000_000), 12_345 - (1_700_000_000_000 % 60_000) + 60_000);
  t.equal(delayToNextScrape(slot, 1_700_000_040_000 + 12_345 - (1_700_000_040_000 % 60_000)), 0, 'at the slot: now');
  t.equal(delayToNextScrape(slot, 60_000 + 12_346), 59_999);
});

t.test('sample labels: honor_labels, exported_ clashes, metric relabelling, external labels', async (t) => {
  const target = { labels: [['instance', 'h:1'], ['job', 'node']] as const };
  const plain = { honorLabels: false, metricRelabelConfigs: [], externalLabels: [] };
  const asObject = (m: Map<string, string> | null) => (m ? Object.fromEntries(m) : null);
  t.same(asObject(sampleLabels('up', ['job', 'pushed', 'exported_job', 'x', 'mode', 'idle', 'empty', ''], target, plain)), {
    __name__: 'up', job: 'node', exported_job: 'x', exported_exported_job: 'pushed', mode: 'idle', instance: 'h:1',
  }, 'the target wins; a clashing exposed label moves to the first free exported_ name');
  t.same(asObject(sampleLabels('up', ['job', 'pushed'], target, { ...plain, honorLabels: true })), { __name__: 'up', job: 'pushed', instance: 'h:1' }, 'honor_labels: the exposed label wins');
  const j = job(`{job_name: m, metric_relabel_configs: [
    {source_labels: [__name__], regex: 'go_.*', action: drop},
    {source_labels: [mode], target_label: __name__, regex: 'idle', replacement: cpu_idle}
  ]}`);
  const withRules = { ...plain, metricRelabelConfigs: j.metricRelabelConfigs, externalLabels: [['region', 'eu'], ['mode', 'never']] as const };
  t.equal(sampleLabels('go_goroutines', [], target, withRules), null, 'dropped by metric_relabel_configs');
  t.same(asObject(sampleLabels('cpu', ['mode', 'idle'], target, withRules)), { __name__: 'cpu_idle', mode: 'idle', job: 'node', instance: 'h:1', region: 'eu' }, 'renamed; external labels only where absent');
});
