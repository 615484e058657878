// From a job and a discovered target group to the targets to scrape, as Prometheus builds
// them: the discovered labels (`__address__`, the group's labels, then `job`,
// `__scheme__`, `__metrics_path__`, `__scrape_interval__`, `__scrape_timeout__` and
// `__param_<name>` where the group did not set them), relabel_configs, then the URL, the
// `instance` label (default: the address) and the target's place in its interval. Also
// the label set of each scraped sample (honor_labels, metric_relabel_configs,
// external_labels). No default port is added to an address (Prometheus 3 behaviour).
import { createHash } from 'node:crypto';
import { formatDuration, parseDuration } from './units.js';
import { isLabelName, relabel, type LabelSet } from './relabel.js';
import type { ScrapeJob } from './config.js';

export type LabelPairs = ReadonlyArray<readonly [string, string]>;

export interface TargetGroup {
  targets: readonly string[];
  labels: LabelPairs;
  /** where the group came from (a static_configs entry, a file and index) */
  source: string;
}

export interface ScrapeTarget {
  job: string;
  url: string;
  /** the public labels, sorted: `job`, `instance` and what relabelling left without a `__` prefix */
  labels: LabelPairs;
  /** the labels before relabelling, sorted, for the targets page */
  discoveredLabels: LabelPairs;
  intervalMs: number;
  timeoutMs: number;
  /** 16 hex digits of a hash of job, URL and labels: the target's identity across reloads */
  hash: string;
  /** the target is scraped when (epoch ms) mod intervalMs = offsetMs, spreading targets over the interval */
  offsetMs: number;
}

export type TargetOutcome =
  | { status: 'active'; target: ScrapeTarget }
  | { status: 'dropped'; discoveredLabels: LabelPairs }
  | { status: 'invalid'; discoveredLabels: LabelPairs; error: string };

const ADDRESS = '__address__';

export function targetsOf(job: ScrapeJob, group: TargetGroup): TargetOutcome[] {
  return group.targets.map((address) => targetOf(job, address, group.labels));
}

function targetOf(job: ScrapeJob, address: string, groupLabels: LabelPairs): TargetOutcome {
  const labels: LabelSet = new Map();
  if (address !== '') labels.set(ADDRESS, address);
  for (const [name, value] of groupLabels) if (name !== ADDRESS && value !== '') labels.set(name, value);
  const defaults: Array<[string, string]> = [
    ['job', job.name],
    ['__scrape_interval__', formatDuration(job.intervalMs)],
    ['__scrape_timeout__', formatDuration(job.timeoutMs)],
    ['__metrics_path__', job.metricsPath],
    ['__scheme__', job.scheme],
  ];
  for (const [name, value] of job.params) if (value.length > 0) defaults.push([`__param_${name}`, value[0]!]);
  for (const [name, value] of defaults) if (!labels.get(name)) labels.set(name, value);
  const discoveredLabels = sorted(labels);

  if (!relabel(labels, job.relabelConfigs)) return { status: 'dropped', discoveredLabels };
  const invalid = (error: string): TargetOutcome => ({ status: 'invalid', discoveredLabels, error });
  const addr = labels.get(ADDRESS) ?? '';
  if (addr === '') return invalid('no address (__address__ is empty after relabelling)');
  const scheme = labels.get('__scheme__') ?? '';
  if (scheme !== 'http' && scheme !== 'https') return invalid(`__scheme__ must be http or https, not "${scheme}"`);
  const intervalMs = parseDuration(labels.get('__scrape_interval__') ?? '');
  const timeoutMs = parseDuration(labels.get('__scrape_timeout__') ?? '');
  if (!intervalMs) return invalid(`__scrape_interval__ "${labels.get('__scrape_interval__') ?? ''}" is not a duration above 0`);
  if (!timeoutMs) return invalid(`__scrape_timeout__ "${labels.get('__scrape_timeout__') ?? ''}" is not a duration above 0`);
  if (timeoutMs > intervalMs) return invalid(`scrape timeout ${formatDuration(timeoutMs)} is longer than the interval ${formatDuration(intervalMs)}`);
  const url = targetUrl(scheme, addr, labels.get('__metrics_path__') ?? '', job.params, labels);
  if (url === null) return invalid(`"${addr}" is not a valid host:port`);

  for (const name of [...labels.keys()]) if (name.startsWith('__meta_')) labels.delete(name);
  if (!labels.get('instance')) labels.set('instance', addr);
  const publicLabels = sorted(labels).filter(([name]) => !name.startsWith('__'));
  const badName = publicLabels.find(([name]) => !isLabelName(name));
  if (badName) return invalid(`"${badName[0]}" is not a valid label name`);

  const hash = createHash('sha256').update(JSON.stringify([job.name, url, publicLabels])).digest('hex').slice(0, 16);
  return {
    status: 'active',
    target: { job: job.name, url, labels: publicLabels, discoveredLabels, intervalMs, timeoutMs, hash, offsetMs: Number(BigInt(`0x${hash}`) % BigInt(intervalMs)) },
  };
}

/**
 * scheme://address/path?query, where the query is the job's params with `__param_<name>`
 * labels overriding the first value of each, sorted and escaped as Go's url.Values does.
 * Null when the address is not a plain host[:port].
 */
function targetUrl(scheme: string, address: string, path: string, params: ScrapeJob['params'], labels: LabelSet): string | null {
  if (/[/?#@\s]/.test(address)) return null;
  let url: URL;
  try {
    url = new URL(`${scheme}://${address}`);
  } catch {
    return null;
  }
  const query = new Map<string, string[]>(params.map(([k, v]) => [k, [...v]]));
  for (const [name, value] of labels) {
    if (!name.startsWith('__param_')) continue;
    const key = name.slice('__param_'.length);
    const values = query.get(key);
    if (values && values.length > 0) values[0] = value;
    else query.set(key, [value]);
  }
  url.pathname = path;
  const encoded = [...query.keys()].sort().flatMap((k) => query.get(k)!.map((v) => `${queryEscape(k)}=${queryEscape(v)}`));
  url.search = encoded.join('&');
  return url.href;
}

/** Go's url.QueryEscape: only A-Z a-z 0-9 - _ . ~ stay, a space becomes +. */
function queryEscape(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
}

/** Milliseconds from `nowMs` to the target's next scrape slot (0: now). */
export function delayToNextScrape(target: Pick<ScrapeTarget, 'intervalMs' | 'offsetMs'>, nowMs: number): number {
  return (((target.offsetMs - nowMs) % target.intervalMs) + target.intervalMs) % target.intervalMs;
}

/**
 * The labels of one scraped sample (`__name__` and its own labels, as flat name/value
 * pairs) joined with the target's, as Prometheus joins them: with honor_labels the
 * sample's own labels win; without, the target's win and a clashing exposed label is
 * kept as `exported_<name>`. Then metric_relabel_configs (null when they drop the
 * sample) and the external labels the sample lacks.
 */
export function sampleLabels(name: string, exposed: readonly string[], target: Pick<ScrapeTarget, 'labels'>, job: Pick<ScrapeJob, 'honorLabels' | 'metricRelabelConfigs' | 'externalLabels'>): LabelSet | null {
  const labels = scrapedLabels(name, exposed, target, job);
  if (labels) addExternalLabels(labels, job);
  return labels;
}

/**
 * The same before the external labels: the label set Prometheus stores in its own
 * database, which its label limits (label_limit, label_name_length_limit,
 * label_value_length_limit) are checked on. External labels are not part of it there.
 */
export function scrapedLabels(name: string, exposed: readonly string[], target: Pick<ScrapeTarget, 'labels'>, job: Pick<ScrapeJob, 'honorLabels' | 'metricRelabelConfigs'>): LabelSet | null {
  const labels: LabelSet = new Map([['__name__', name]]);
  for (let i = 0; i < exposed.length; i += 2) if (exposed[i + 1] !== '') labels.set(exposed[i]!, exposed[i + 1]!);
  if (job.honorLabels) {
    // An exposed label with an empty value still wins: it means "no such label", so the
    // target's is not added either (the Pushgateway exposes `instance=""` on pushes
    // without an instance, so that they do not get its own address, as in Prometheus).
    for (const [n, v] of target.labels) if (!labels.has(n) && !isExposed(exposed, n)) labels.set(n, v);
  } else {
    const clashes: Array<[string, string]> = [];
    for (const [n, v] of target.labels) {
      const mine = labels.get(n);
      if (mine !== undefined) clashes.push([n, mine]);
      labels.set(n, v);
    }
    // Shortest names first, as Prometheus does, so exported_ prefixes stack the same way.
    clashes.sort((a, b) => a[0].length - b[0].length);
    for (const [n, v] of clashes) {
      let exported = n;
      do exported = `exported_${exported}`;
      while (labels.has(exported) || isExposed(exposed, exported));
      labels.set(exported, v);
    }
  }
  if (job.metricRelabelConfigs.length > 0 && !relabel(labels, job.metricRelabelConfigs)) return null;
  return labels;
}

/** Whether the exposition names label `name`, empty value included (`labels` keeps none). */
function isExposed(exposed: readonly string[], name: string): boolean {
  for (let i = 0; i < exposed.length; i += 2) if (exposed[i] === name) return true;
  return false;
}

/** Adds the external labels `labels` lacks. */
export function addExternalLabels(labels: LabelSet, job: Pick<ScrapeJob, 'externalLabels'>): void {
  for (const [n, v] of job.externalLabels) if (!labels.has(n)) labels.set(n, v);
}

function sorted(labels: LabelSet): Array<[string, string]> {
  return [...labels].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
