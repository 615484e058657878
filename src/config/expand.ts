// `${VAR}`, `${VAR:-default}`, `${VAR:?message}` and `$$` inside config values.
// Expansion runs on parsed YAML scalars, not on the file's text: comments (which
// document these very forms) are never expanded, a value cannot inject YAML structure,
// and every node keeps its line for error messages.
import { isPair, isScalar, isSeq, visit, parse as parseYaml, type Document, type LineCounter } from 'yaml';

/**
 * Keys whose values are Prometheus relabel rules, written as in a prometheus.yml:
 * `${1}`, `${name}` and `$$` there are the regex's references and Go's literal dollar,
 * so nothing under them is expanded (a pasted rule with `${name}` was refused as an
 * unset variable, or took an environment variable's value).
 */
const NOT_EXPANDED = new Set(['relabel_configs', 'metric_relabel_configs']);

const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|:\?)([^}]*))?\}/g;

export interface ExpansionFailure {
  line: number;
  /** the key whose value names the variable, as segments (`notifications`, `mail`, `password`) */
  path: string[];
  message: string;
}

/** Expands one string; `fail` is called for a variable that is required but unset. */
export function expandString(text: string, env: NodeJS.ProcessEnv, fail: (message: string) => void, seen?: Set<string>): string {
  return text.replace(REFERENCE, (whole, name: string | undefined, op: string | undefined, arg: string | undefined) => {
    if (whole === '$$') return '$';
    seen?.add(name!);
    const value = env[name!];
    if (value !== undefined && value !== '') return value;
    if (op === ':-') return arg ?? '';
    if (op === ':?') { fail(`\${${name}} is not set: ${arg || 'required'}`); return ''; }
    if (value === '') return '';
    fail(`\${${name}} is not set and has no default (write \${${name}:-default})`);
    return '';
  });
}

/**
 * Expands every scalar value of `doc` in place. An unquoted value is read again as a
 * YAML scalar after expansion, so `port: ${PORT}` is a number and `on: ${FLAG}` a
 * boolean, as if the value had been written there. Returns the variable names used.
 */
export function expandDocument(doc: Document, lc: LineCounter, env: NodeJS.ProcessEnv, fail: (f: ExpansionFailure) => void): Set<string> {
  const seen = new Set<string>();
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && NOT_EXPANDED.has(String(pair.key.value))) return visit.SKIP;
      return undefined;
    },
    Scalar(key, node, ancestors) {
      if (key === 'key' || typeof node.value !== 'string' || !node.value.includes('$')) return;
      const line = lc.linePos(node.range?.[0] ?? 0).line;
      const expanded = expandString(node.value, env, (message) => fail({ line, path: keyPath(ancestors, node), message }), seen);
      if (expanded === node.value) return;
      node.value = node.type === 'PLAIN' ? retype(expanded) : expanded;
    },
  });
  return seen;
}

/** The keys and list indexes from the document's root down to `node`. */
function keyPath(ancestors: readonly unknown[], node: unknown): string[] {
  const path: string[] = [];
  ancestors.forEach((a, i) => {
    if (isPair(a)) path.push(String(isScalar(a.key) ? a.key.value : a.key));
    else if (isSeq(a)) path.push(String(a.items.indexOf((ancestors[i + 1] ?? node) as never)));
  });
  return path;
}

function retype(text: string): unknown {
  try {
    const value: unknown = parseYaml(text);
    return value === null || typeof value !== 'object' ? value : text;
  } catch {
    return text;
  }
}
