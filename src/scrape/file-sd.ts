// file_sd files, as Prometheus defines them: a JSON (`.json`) or YAML (`.yml`, `.yaml`)
// list of target groups `{targets: [host:port, ...], labels: {name: value}}`. Every group
// gets `__meta_filepath`, the file it came from, as Prometheus adds it.
import { LineCounter, parseDocument } from 'yaml';
import { labelPairs } from './config.js';
import { describeProblem, type ScrapeConfigProblem } from './problems.js';
import type { TargetGroup } from './target.js';

export class FileSdError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FileSdError';
  }
}

/** The target groups of one file_sd file's text; FileSdError says what is wrong and where. */
export function parseFileSd(text: string, path: string): TargetGroup[] {
  const data = /\.json$/i.test(path) ? parseJson(text, path) : parseYaml(text, path);
  if (data === null || data === undefined) return [];
  if (!Array.isArray(data)) throw new FileSdError(`${path}: must be a list of target groups ({targets: [...], labels: {...}})`);
  const problems: ScrapeConfigProblem[] = [];
  const report = (segments: readonly (string | number)[], message: string) => problems.push({ file: path, segments: segments.map(String), message });
  const groups = data.map((item: unknown, i): TargetGroup => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      report([i], 'must be a target group ({targets: [...], labels: {...}})');
      return { targets: [], labels: [], source: '' };
    }
    const g = item as Record<string, unknown>;
    for (const key of Object.keys(g)) if (key !== 'targets' && key !== 'labels') report([i, key], `unknown key "${key}" (a target group has targets and labels)`);
    const targets = g.targets ?? [];
    if (!Array.isArray(targets) || !targets.every((t) => typeof t === 'string')) report([i, 'targets'], 'must be a list of host:port strings');
    const labels = g.labels ?? {};
    const scalars = typeof labels === 'object' && labels !== null && !Array.isArray(labels) && Object.values(labels).every(isScalar);
    if (!scalars) report([i, 'labels'], 'must map label names to values');
    const pairs = scalars ? labelPairs(labels as Record<string, string | number | boolean>, [i, 'labels'], report) : [];
    return {
      targets: Array.isArray(targets) ? targets.map(String) : [],
      labels: [...pairs.filter(([n]) => n !== '__meta_filepath'), ['__meta_filepath', path]],
      source: `${path}:${i}`,
    };
  });
  if (problems.length) throw new FileSdError(problems.map(describeProblem).join('\n'));
  return groups;
}

function isScalar(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new FileSdError(`${path}: not valid JSON: ${(e as Error).message}`);
  }
}

function parseYaml(text: string, path: string): unknown {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const e = doc.errors[0];
  if (e) throw new FileSdError(`${path}:${lineCounter.linePos(e.pos[0]).line}: ${e.message.split('\n')[0]}`);
  return doc.toJS();
}
