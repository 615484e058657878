// The `scrape:` config section, in Prometheus's own syntax so a job pasted from a
// prometheus.yml works: the JSON Schema (keys, types, static defaults; unknown keys are
// errors), and normalizeScrape(), which turns a validated section plus the Prometheus
// files it names into jobs with every default applied and every rule between keys
// checked. Values are checked here rather than by schema patterns, so the messages can
// say what is expected ("must be a duration such as 15s").
import { dirname, isAbsolute, resolve } from 'node:path';
import { DURATION_MESSAGE, SIZE_MESSAGE, formatDuration, parseDuration, parseSize } from './units.js';
import { compileRelabelConfigs, isLabelName, type RelabelConfig, type RelabelRule } from './relabel.js';
import { ScrapeConfigError, reporter, type Report, type ScrapeConfigProblem } from './problems.js';
import type { LabelPairs, TargetGroup } from './target.js';

/** YAML may give a label value as a number or boolean; Prometheus reads it as its text. */
const scalar = { type: ['string', 'number', 'boolean'] } as const;
const labelMap = { type: 'object', additionalProperties: scalar } as const;

const relabelConfig = {
  type: 'object',
  additionalProperties: false,
  properties: {
    source_labels: { type: 'array', items: { type: 'string' } },
    separator: { ...scalar, default: ';' },
    regex: { ...scalar, default: '(.*)', description: 'RE2 syntax, fully anchored' },
    modulus: { type: 'integer', minimum: 0 },
    target_label: { type: 'string' },
    replacement: { ...scalar, default: '$1' },
    action: { type: 'string', default: 'replace' },
  },
} as const;

const job = {
  type: 'object',
  additionalProperties: false,
  required: ['job_name'],
  properties: {
    job_name: { type: 'string', minLength: 1 },
    account: { type: 'string', description: 'e-mail of the account that owns the data (default: the first admin account)' },
    scrape_interval: { type: 'string', description: 'default: global.scrape_interval' },
    scrape_timeout: { type: 'string', description: 'default: global.scrape_timeout, cut to the interval' },
    metrics_path: { type: 'string', default: '/metrics' },
    scheme: { enum: ['http', 'https'], default: 'http' },
    params: { type: 'object', additionalProperties: { type: 'array', items: scalar }, default: {} },
    honor_labels: { type: 'boolean', default: false },
    honor_timestamps: { type: 'boolean', default: true },
    follow_redirects: { type: 'boolean', default: true },
    sample_limit: { type: 'integer', minimum: 0, default: 0, description: '0: no limit' },
    label_limit: { type: 'integer', minimum: 0, default: 0, description: '0: no limit' },
    label_name_length_limit: { type: 'integer', minimum: 0, default: 0, description: 'bytes; 0: no limit' },
    label_value_length_limit: { type: 'integer', minimum: 0, default: 0, description: 'bytes; 0: no limit' },
    body_size_limit: { type: ['string', 'integer'], default: 0, description: 'a size such as 10MB; 0: no limit' },
    static_configs: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        properties: {
          targets: { type: 'array', items: { type: 'string' }, default: [] },
          labels: { ...labelMap, default: {} },
        },
      },
    },
    file_sd_configs: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['files'],
        properties: {
          files: { type: 'array', items: { type: 'string' }, minItems: 1 },
          refresh_interval: { type: 'string', default: '5m' },
        },
      },
    },
    basic_auth: {
      type: 'object',
      additionalProperties: false,
      properties: {
        username: { type: 'string', default: '' },
        password: { type: 'string' },
        password_file: { type: 'string' },
      },
    },
    authorization: {
      type: 'object',
      additionalProperties: false,
      properties: {
        type: { type: 'string', default: 'Bearer' },
        credentials: { type: 'string' },
        credentials_file: { type: 'string' },
      },
    },
    tls_config: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ca_file: { type: 'string' },
        cert_file: { type: 'string' },
        key_file: { type: 'string' },
        server_name: { type: 'string' },
        insecure_skip_verify: { type: 'boolean', default: false },
      },
    },
    relabel_configs: { type: 'array', items: relabelConfig, default: [] },
    metric_relabel_configs: { type: 'array', items: relabelConfig, default: [] },
  },
} as const;

const globalProperties = {
  scrape_interval: { type: 'string', description: 'default 1m' },
  scrape_timeout: { type: 'string', description: 'default 10s, or the interval if that is shorter' },
  external_labels: { ...labelMap, description: 'added to every scraped sample that lacks the label' },
} as const;

/** The `scrape:` section of Gaugeway's config file. */
export const scrapeSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    global: { type: 'object', additionalProperties: false, default: {}, properties: globalProperties },
    config_files: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      default: [],
      description: 'Prometheus config files whose global and scrape_configs are read as if written here',
    },
    scrape_configs: { type: 'array', items: job, default: [] },
  },
} as const;

/**
 * A Prometheus config file named in `scrape.config_files`. Only `global` and
 * `scrape_configs` are read; the file's other sections (alerting, rule_files,
 * remote_write, ...) belong to Prometheus and are ignored, and so are the global keys
 * that are not about scraping.
 */
export const prometheusFileSchema = {
  type: 'object',
  properties: {
    global: {
      type: 'object',
      additionalProperties: false,
      properties: {
        ...globalProperties,
        evaluation_interval: {},
        rule_query_offset: {},
        query_log_file: {},
        scrape_failure_log_file: {},
      },
    },
    scrape_configs: { type: ['array', 'null'], items: job },
  },
} as const;

type Scalar = string | number | boolean;

export interface GlobalSection {
  scrape_interval?: string;
  scrape_timeout?: string;
  external_labels?: Record<string, Scalar>;
}

/** A job as validated by the schema (defaults filled). */
export interface JobSection {
  job_name: string;
  account?: string;
  scrape_interval?: string;
  scrape_timeout?: string;
  metrics_path: string;
  scheme: 'http' | 'https';
  params: Record<string, Scalar[]>;
  honor_labels: boolean;
  honor_timestamps: boolean;
  follow_redirects: boolean;
  sample_limit: number;
  label_limit: number;
  label_name_length_limit: number;
  label_value_length_limit: number;
  body_size_limit: string | number;
  static_configs: Array<{ targets: string[]; labels: Record<string, Scalar> }>;
  file_sd_configs: Array<{ files: string[]; refresh_interval: string }>;
  basic_auth?: { username: string; password?: string; password_file?: string };
  authorization?: { type: string; credentials?: string; credentials_file?: string };
  tls_config?: { ca_file?: string; cert_file?: string; key_file?: string; server_name?: string; insecure_skip_verify: boolean };
  relabel_configs: RelabelConfig[];
  metric_relabel_configs: RelabelConfig[];
}

export interface ScrapeSection {
  global: GlobalSection;
  config_files: string[];
  scrape_configs: JobSection[];
}

export interface PrometheusFileSection {
  global?: GlobalSection;
  scrape_configs?: JobSection[] | null;
  /** Prometheus's own include list; refused with a hint */
  scrape_config_files?: unknown;
}

export interface ScrapeJob {
  name: string;
  /** where the job is written, for messages */
  origin: string;
  /** owning account's e-mail; null: the first admin account */
  account: string | null;
  intervalMs: number;
  timeoutMs: number;
  metricsPath: string;
  scheme: 'http' | 'https';
  params: ReadonlyArray<readonly [string, readonly string[]]>;
  honorLabels: boolean;
  honorTimestamps: boolean;
  /** follow 3xx answers (up to 10, as Go's client), as Prometheus does by default */
  followRedirects: boolean;
  /** 0: no limit */
  sampleLimit: number;
  labelLimit: number;
  /** bytes; 0: no limit */
  labelNameLengthLimit: number;
  labelValueLengthLimit: number;
  bodySizeLimit: number;
  staticConfigs: TargetGroup[];
  fileSdConfigs: Array<{ files: string[]; refreshIntervalMs: number }>;
  basicAuth: { username: string; password: string | null; passwordFile: string | null } | null;
  authorization: { type: string; credentials: string | null; credentialsFile: string | null } | null;
  tls: { caFile: string | null; certFile: string | null; keyFile: string | null; serverName: string | null; insecureSkipVerify: boolean } | null;
  relabelConfigs: RelabelRule[];
  metricRelabelConfigs: RelabelRule[];
  /** added to samples that lack them, after metric relabelling */
  externalLabels: LabelPairs;
}

interface Defaults {
  intervalMs: number;
  /** the timeout to use where none is set, before it is cut to a shorter interval */
  timeoutMs: number;
  externalLabels: Map<string, string>;
}

const PROMETHEUS_DEFAULTS: Defaults = { intervalMs: 60_000, timeoutMs: 10_000, externalLabels: new Map() };
/** Prometheus's rule for file_sd file names: a glob only in the last part, and a known extension. */
const FILE_SD_NAME = /^[^*]*(\*[^/]*)?\.(json|yml|yaml|JSON|YML|YAML)$/;
const EMAIL = /^[^@\s]+@[^@\s]+$/;

/**
 * The jobs of a validated `scrape` section and of the Prometheus files it names (`files`,
 * keyed by the path as written in config_files, each validated with prometheusFileSchema).
 * Relative paths resolve against `baseDir` (the config file's folder), or for a job from
 * a Prometheus file, against that file's folder. A file's `global` applies to its own
 * jobs, key by key over Gaugeway's `scrape.global`. Throws ScrapeConfigError listing
 * every problem.
 */
export function normalizeScrape(section: ScrapeSection, files: ReadonlyMap<string, PrometheusFileSection>, baseDir: string): ScrapeJob[] {
  const problems: ScrapeConfigProblem[] = [];
  const jobs: ScrapeJob[] = [];
  const names = new Map<string, string>();
  /** adds a job, or reports its name as taken */
  const add = (j: JobSection, dir: string, defaults: Defaults, origin: string, report: Report) => {
    const first = names.get(j.job_name);
    if (first !== undefined) report(['job_name'], `"${j.job_name}" is already the name of the job at ${first}`);
    else names.set(j.job_name, origin);
    const job = normalizeJob(j, defaults, dir, origin, report);
    if (job) jobs.push(job);
  };
  const inline = globalDefaults(section.global, PROMETHEUS_DEFAULTS, reporter(problems, null, ['scrape', 'global']));
  section.scrape_configs.forEach((j, i) => {
    add(j, baseDir, inline, `scrape.scrape_configs[${i}]`, reporter(problems, null, ['scrape', 'scrape_configs', i]));
  });
  section.config_files.forEach((path, i) => {
    const content = files.get(path);
    if (!content) {
      problems.push({ file: null, segments: ['scrape', 'config_files', String(i)], message: `${path} was not read` });
      return;
    }
    const report = reporter(problems, path, []);
    if (content.scrape_config_files !== undefined && content.scrape_config_files !== null) {
      report(['scrape_config_files'], 'is not read by Gaugeway: list those files under scrape.config_files instead');
    }
    const defaults = globalDefaults(content.global ?? {}, inline, reporter(problems, path, ['global']));
    const dir = dirname(resolve(baseDir, path));
    (content.scrape_configs ?? []).forEach((j, k) => {
      add(j, dir, defaults, `${path}: scrape_configs[${k}]`, reporter(problems, path, ['scrape_configs', k]));
    });
  });
  if (problems.length) throw new ScrapeConfigError(problems);
  return jobs;
}

function globalDefaults(g: GlobalSection, parent: Defaults, report: Report): Defaults {
  const intervalMs = g.scrape_interval === undefined ? parent.intervalMs : positiveDuration(g.scrape_interval, ['scrape_interval'], report) ?? parent.intervalMs;
  let timeoutMs = Math.min(parent.timeoutMs, intervalMs);
  if (g.scrape_timeout !== undefined) {
    const set = positiveDuration(g.scrape_timeout, ['scrape_timeout'], report);
    if (set !== null && set > intervalMs) report(['scrape_timeout'], `must not be longer than scrape_interval (${g.scrape_timeout} > ${formatDuration(intervalMs)})`);
    else if (set !== null) timeoutMs = set;
  }
  // a section's external_labels replace the ones it inherits, as one key: a prometheus.yml
  // with its own then labels its jobs as Prometheus running it would
  const externalLabels = g.external_labels === undefined ? new Map(parent.externalLabels) : new Map(labelPairs(g.external_labels, ['external_labels'], report));
  return { intervalMs, timeoutMs, externalLabels };
}

function normalizeJob(j: JobSection, defaults: Defaults, baseDir: string, origin: string, report: Report): ScrapeJob | null {
  const before = countingReport(report);
  const r = before.report;
  if (j.account !== undefined && !EMAIL.test(j.account)) r(['account'], 'must be an e-mail address (of an account in accounts)');
  const intervalMs = j.scrape_interval === undefined ? defaults.intervalMs : positiveDuration(j.scrape_interval, ['scrape_interval'], r) ?? defaults.intervalMs;
  let timeoutMs = Math.min(defaults.timeoutMs, intervalMs);
  if (j.scrape_timeout !== undefined) {
    const set = positiveDuration(j.scrape_timeout, ['scrape_timeout'], r);
    if (set !== null && set > intervalMs) r(['scrape_timeout'], `must not be longer than scrape_interval (${j.scrape_timeout} > ${formatDuration(intervalMs)})`);
    else if (set !== null) timeoutMs = set;
  }
  if (!j.metrics_path.startsWith('/')) r(['metrics_path'], 'must start with "/"');
  const bodySizeLimit = parseSize(j.body_size_limit);
  if (bodySizeLimit === null) r(['body_size_limit'], SIZE_MESSAGE);
  const path = (p: string | undefined) => (p === undefined ? null : isAbsolute(p) ? p : resolve(baseDir, p));

  // Prometheus's check for a URL written as a target: without relabel_configs nothing can
  // move it into a parameter (the blackbox exporter's way), so it could never be scraped
  if (j.relabel_configs.length === 0) {
    j.static_configs.forEach((g, i) => g.targets.forEach((address, k) => {
      if (address.includes('/')) r(['static_configs', i, 'targets', k], `"${address}" is not a valid host:port (a URL needs relabel_configs that move it into a parameter, as for the blackbox exporter)`);
    }));
  }
  const staticConfigs = j.static_configs.map((g, i): TargetGroup => ({
    targets: g.targets,
    labels: labelPairs(g.labels, ['static_configs', i, 'labels'], r),
    source: `${origin}.static_configs[${i}]`,
  }));
  const fileSdConfigs = j.file_sd_configs.map((f, i) => {
    f.files.forEach((name, k) => {
      if (!FILE_SD_NAME.test(name)) r(['file_sd_configs', i, 'files', k], `"${name}" must end in .json, .yml or .yaml, with * only in the last part of the path`);
    });
    const refresh = positiveDuration(f.refresh_interval, ['file_sd_configs', i, 'refresh_interval'], r);
    return { files: f.files.map((name) => path(name)!), refreshIntervalMs: refresh ?? 0 };
  });

  const b = j.basic_auth;
  const a = j.authorization;
  const t = j.tls_config;
  if (b && b.password !== undefined && b.password_file !== undefined) r(['basic_auth'], 'set password or password_file, not both');
  if (a && a.credentials !== undefined && a.credentials_file !== undefined) r(['authorization'], 'set credentials or credentials_file, not both');
  if (a && a.type.toLowerCase() === 'basic') r(['authorization', 'type'], 'cannot be Basic: use basic_auth');
  if (a && b) r(['authorization'], 'set basic_auth or authorization, not both');
  if (t && (t.cert_file === undefined) !== (t.key_file === undefined)) r(['tls_config'], 'cert_file and key_file must be set together');

  const relabelConfigs = compileRelabelConfigs(j.relabel_configs, (s, m) => r(['relabel_configs', ...s], m));
  const metricRelabelConfigs = compileRelabelConfigs(j.metric_relabel_configs, (s, m) => r(['metric_relabel_configs', ...s], m));
  const params = Object.keys(j.params).sort().map((k) => [k, j.params[k]!.map(String)] as const);
  if (before.count() > 0) return null;
  return {
    name: j.job_name,
    origin,
    account: j.account ?? null,
    intervalMs,
    timeoutMs,
    metricsPath: j.metrics_path,
    scheme: j.scheme,
    params,
    honorLabels: j.honor_labels,
    honorTimestamps: j.honor_timestamps,
    followRedirects: j.follow_redirects,
    sampleLimit: j.sample_limit,
    labelLimit: j.label_limit,
    labelNameLengthLimit: j.label_name_length_limit,
    labelValueLengthLimit: j.label_value_length_limit,
    bodySizeLimit: bodySizeLimit ?? 0,
    staticConfigs,
    fileSdConfigs,
    basicAuth: b ? { username: b.username, password: b.password ?? null, passwordFile: path(b.password_file) } : null,
    authorization: a ? { type: a.type, credentials: a.credentials ?? null, credentialsFile: path(a.credentials_file) } : null,
    tls: t
      ? { caFile: path(t.ca_file), certFile: path(t.cert_file), keyFile: path(t.key_file), serverName: t.server_name ?? null, insecureSkipVerify: t.insecure_skip_verify }
      : null,
    relabelConfigs,
    metricRelabelConfigs,
    externalLabels: [...defaults.externalLabels].sort((x, y) => (x[0] < y[0] ? -1 : 1)),
  };
}

function countingReport(report: Report): { report: Report; count: () => number } {
  let n = 0;
  return {
    report: (segments, message) => {
      n++;
      report(segments, message);
    },
    count: () => n,
  };
}

function positiveDuration(text: string, at: (string | number)[], report: Report): number | null {
  const ms = parseDuration(text);
  if (ms === null) report(at, DURATION_MESSAGE);
  else if (ms === 0) report(at, 'must be longer than 0');
  return ms === null || ms === 0 ? null : ms;
}

/** Label names checked, values as text; an empty value means no label, as in Prometheus. */
export function labelPairs(labels: Record<string, Scalar>, at: (string | number)[], report: Report): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const name of Object.keys(labels).sort()) {
    if (!isLabelName(name)) report([...at, name], 'is not a label name (a letter or _, then letters, digits or _)');
    const value = String(labels[name]);
    if (value !== '') pairs.push([name, value]);
  }
  return pairs;
}
