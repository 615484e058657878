// Prometheus relabelling (`relabel_configs`, `metric_relabel_configs`), with Prometheus's
// semantics: the same defaults, the same checks on the config, the same result for every
// action, including Go's `$name` template rules (`$1x` is the group named "1x", which does
// not exist, so it is empty: write `${1}x`). Rules are compiled once and applied to a
// label set many times; a label set is a Map in which a missing label and an empty value
// are the same thing.
import { createHash } from 'node:crypto';
import { compileAnchored, RegexError } from './regex.js';
import type { Report } from './problems.js';

export const RELABEL_ACTIONS = ['replace', 'keep', 'drop', 'keepequal', 'dropequal', 'hashmod', 'labelmap', 'labeldrop', 'labelkeep', 'lowercase', 'uppercase'] as const;
export type RelabelAction = (typeof RELABEL_ACTIONS)[number];

/** One entry of `relabel_configs`, as written (the schema fills the defaults below). */
export interface RelabelConfig {
  source_labels?: string[];
  separator?: string | number | boolean;
  regex?: string | number | boolean;
  modulus?: number;
  target_label?: string;
  replacement?: string | number | boolean;
  action?: string;
}

export const RELABEL_DEFAULTS = { separator: ';', regex: '(.*)', replacement: '$1', action: 'replace' } as const;

type TemplatePart = string | { group: number } | { name: string };

export interface RelabelRule {
  action: RelabelAction;
  sourceLabels: string[];
  separator: string;
  regex: RegExp;
  /** as written; with `$` references when targetTemplate is set */
  targetLabel: string;
  targetTemplate: TemplatePart[] | null;
  replacement: TemplatePart[];
  modulus: bigint;
}

/** A Prometheus label set during relabelling. */
export type LabelSet = Map<string, string>;

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** A label name that may contain `$1`, `${1}` and `$name` (Prometheus's relabelTarget), written so it cannot backtrack badly. */
const LABEL_NAME_TEMPLATE = /^(?:[a-zA-Z_]|\$\{\w+\}|\$\w+)(?:\w|\$\{\w+\}|\$\w+)*$/;

export function isLabelName(name: string): boolean {
  return LABEL_NAME.test(name);
}

/** Compiles `configs`, reporting each problem at `[index, key]` (all are reported; broken rules are left out). */
export function compileRelabelConfigs(configs: readonly RelabelConfig[], report: Report): RelabelRule[] {
  const rules: RelabelRule[] = [];
  configs.forEach((config, i) => {
    const rule = compileRule(config, (key, message) => report([i, ...(key ? [key] : [])], message));
    if (rule) rules.push(rule);
  });
  return rules;
}

function compileRule(c: RelabelConfig, problem: (key: string | null, message: string) => void): RelabelRule | null {
  const action = String(c.action ?? RELABEL_DEFAULTS.action).toLowerCase();
  if (!(RELABEL_ACTIONS as readonly string[]).includes(action)) {
    problem('action', `unknown relabel action "${c.action}" (expected one of ${RELABEL_ACTIONS.join(', ')})`);
    return null;
  }
  const a = action as RelabelAction;
  const separator = String(c.separator ?? RELABEL_DEFAULTS.separator);
  const regexText = String(c.regex ?? RELABEL_DEFAULTS.regex);
  const replacementText = String(c.replacement ?? RELABEL_DEFAULTS.replacement);
  const target = c.target_label ?? '';
  const modulus = c.modulus ?? 0;
  let failures = 0;
  const fail = (key: string | null, message: string) => {
    failures++;
    problem(key, message);
  };

  (c.source_labels ?? []).forEach((name, j) => {
    if (!isLabelName(name)) fail(`source_labels`, `"${name}" (item ${j}) is not a label name (a letter or _, then letters, digits or _)`);
  });
  let regex: RegExp | null = null;
  try {
    regex = compileAnchored(regexText);
  } catch (e) {
    fail('regex', e instanceof RegexError ? e.message : String(e));
  }
  const needsTarget = a === 'replace' || a === 'hashmod' || a === 'lowercase' || a === 'uppercase' || a === 'keepequal' || a === 'dropequal';
  if (needsTarget && target === '') fail('target_label', `is required for the ${a} action`);
  else if (a === 'replace' && !(target.includes('$') ? LABEL_NAME_TEMPLATE : LABEL_NAME).test(target)) fail('target_label', `"${target}" is not a valid target label for the replace action`);
  else if (needsTarget && a !== 'replace' && !isLabelName(target)) fail('target_label', `"${target}" is not a label name`);
  if ((a === 'lowercase' || a === 'uppercase') && replacementText !== RELABEL_DEFAULTS.replacement) fail('replacement', `cannot be set for the ${a} action`);
  if (a === 'labelmap' && !LABEL_NAME_TEMPLATE.test(replacementText)) fail('replacement', `"${replacementText}" is not a valid replacement for labelmap (a label name, with $1 or \${name} references)`);
  if (a === 'hashmod' && modulus === 0) fail('modulus', 'must be set (not 0) for the hashmod action');
  if ((a === 'keepequal' || a === 'dropequal') && (regexText !== RELABEL_DEFAULTS.regex || modulus !== 0 || separator !== RELABEL_DEFAULTS.separator || replacementText !== RELABEL_DEFAULTS.replacement)) {
    fail(null, `the ${a} action takes only source_labels and target_label`);
  }
  if ((a === 'labeldrop' || a === 'labelkeep') && (c.source_labels !== undefined || target !== '' || modulus !== 0 || separator !== RELABEL_DEFAULTS.separator || replacementText !== RELABEL_DEFAULTS.replacement)) {
    fail(null, `the ${a} action takes only regex`);
  }
  if (failures > 0 || !regex) return null;
  return {
    action: a,
    sourceLabels: c.source_labels ?? [],
    separator,
    regex,
    targetLabel: target,
    targetTemplate: a === 'replace' && target.includes('$') ? parseTemplate(target) : null,
    replacement: parseTemplate(replacementText),
    modulus: BigInt(modulus),
  };
}

/** Applies `rules` in order to `labels` (changed in place). False when a rule drops the set. */
export function relabel(labels: LabelSet, rules: readonly RelabelRule[]): boolean {
  for (const rule of rules) {
    if (!apply(rule, labels)) return false;
  }
  return true;
}

function apply(r: RelabelRule, labels: LabelSet): boolean {
  const val = r.sourceLabels.length === 1 ? labels.get(r.sourceLabels[0]!) ?? '' : r.sourceLabels.map((n) => labels.get(n) ?? '').join(r.separator);
  switch (r.action) {
    case 'drop':
      return !r.regex.test(val);
    case 'keep':
      return r.regex.test(val);
    case 'dropequal':
      return (labels.get(r.targetLabel) ?? '') !== val;
    case 'keepequal':
      return (labels.get(r.targetLabel) ?? '') === val;
    case 'replace': {
      const m = r.regex.exec(val);
      if (!m) break;
      const target = r.targetTemplate ? expand(r.targetTemplate, m) : r.targetLabel;
      if (!isLabelName(target)) break;
      set(labels, target, expand(r.replacement, m));
      break;
    }
    case 'lowercase':
      set(labels, r.targetLabel, val.toLowerCase());
      break;
    case 'uppercase':
      set(labels, r.targetLabel, val.toUpperCase());
      break;
    case 'hashmod': {
      // The last 8 bytes of the MD5, as Prometheus takes them, so targets shard the same way.
      const md5 = createHash('md5').update(val).digest();
      set(labels, r.targetLabel, String(md5.readBigUInt64BE(8) % r.modulus));
      break;
    }
    case 'labelmap':
      for (const [name, value] of [...labels]) {
        const m = r.regex.exec(name);
        if (!m) continue;
        const mapped = expand(r.replacement, m);
        // Prometheus would set a label with an empty name, which then fails the target.
        if (mapped !== '') labels.set(mapped, value);
      }
      break;
    case 'labeldrop':
      for (const name of [...labels.keys()]) if (r.regex.test(name)) labels.delete(name);
      break;
    case 'labelkeep':
      for (const name of [...labels.keys()]) if (!r.regex.test(name)) labels.delete(name);
      break;
  }
  return true;
}

/** Setting a label to the empty string removes it, as in Prometheus. */
function set(labels: LabelSet, name: string, value: string): void {
  if (value === '') labels.delete(name);
  else labels.set(name, value);
}

/**
 * Go's regexp template syntax: `$$` is a dollar; `$name` takes the longest run of letters,
 * digits and `_`; `${name}` is explicit; all-digit names are group numbers (no leading
 * zeros). A reference to a group that does not exist or did not match is empty; a `$`
 * that starts no valid reference is kept as it is.
 */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let literal = '';
  let i = 0;
  while (i < template.length) {
    const dollar = template.indexOf('$', i);
    if (dollar < 0) {
      literal += template.slice(i);
      break;
    }
    literal += template.slice(i, dollar);
    if (template[dollar + 1] === '$') {
      literal += '$';
      i = dollar + 2;
      continue;
    }
    const brace = template[dollar + 1] === '{';
    const m = /^[\p{L}\p{Nd}_]+/u.exec(template.slice(dollar + (brace ? 2 : 1)));
    const name = m?.[0];
    const close = dollar + (brace ? 2 : 1) + (name?.length ?? 0);
    if (!name || (brace && template[close] !== '}')) {
      literal += '$';
      i = dollar + 1;
      continue;
    }
    if (literal) parts.push(literal);
    literal = '';
    parts.push(/^(0|[1-9][0-9]{0,7})$/.test(name) ? { group: Number(name) } : { name });
    i = close + (brace ? 1 : 0);
  }
  if (literal) parts.push(literal);
  return parts;
}

function expand(parts: readonly TemplatePart[], m: RegExpExecArray): string {
  if (parts.length === 1 && typeof parts[0] === 'string') return parts[0];
  let out = '';
  for (const p of parts) {
    if (typeof p === 'string') out += p;
    else if ('group' in p) out += m[p.group] ?? '';
    else out += m.groups?.[p.name] ?? '';
  }
  return out;
}
