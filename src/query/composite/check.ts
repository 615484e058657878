// Syntax tree -> Expr: every function name, argument count and option is checked here,
// before anything is read, so `window(..., {size: "65"})`, an unknown function or a
// `divide` of three literal series is a 400 naming the column. Options are given as
// strings or numbers (`{period: "60"}` and `{period: 60}` are the same).
import type {
  CallNode, Expr, MapNode, NumberNode, ReduceFunction, SeriesExpr, StringNode, Syntax, WindowFunction,
} from './ast.js';
import type { ReadFunction } from './source.js';
import { errorAt } from './error.js';
import {
  MAX_PERIOD, MAX_RANK_COUNT, MAX_SERIES_CALLS, MAX_TIMESHIFT_OFFSETS, MAX_TIMESHIFT_SECONDS, MAX_WINDOW_SIZE,
} from './limits.js';

const METRIC = /^[a-z0-9.:_*-]{1,255}$/;
const TAG_NAME = /^[-.:_a-z0-9]{1,64}$/;
const TAG_PATTERN = /^[-.:_?\\/a-z0-9 *]{1,255}$/;
const TIMESHIFT = /^([+-]?\d{1,9}(?:,[+-]?\d{1,9})*)([smhdw]?)$/;
const UNIT_SECONDS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
const FRACTION = /^(\d{1,15})\/(\d{1,15})$/;
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const READ_FUNCTIONS: readonly ReadFunction[] = ['mean', 'sum', 'min', 'max', 'count'];
const REDUCE_FUNCTIONS: readonly ReduceFunction[] = ['mean', 'sum', 'min', 'max'];
const WINDOW_FUNCTIONS: readonly WindowFunction[] = ['mean', 'sum', 'min', 'max', 'median'];

type Scalar = StringNode | NumberNode;

/** `series()` calls so far, each weighted by the timeshift offsets around it. */
interface Budget {
  weight: number;
  used: number;
}

function show(node: Syntax): string {
  switch (node.kind) {
    case 'string': return `string ${JSON.stringify(node.value.length > 40 ? `${node.value.slice(0, 37)}...` : node.value)}`;
    case 'number': return `number ${node.text}`;
    case 'map': return 'map';
    case 'set': return 'set';
    case 'call': return `${node.name}()`;
  }
}

function text(v: Scalar): string {
  return v.kind === 'string' ? JSON.stringify(v.value) : v.text;
}

function arity(call: CallNode, min: number, max: number, usage: string): void {
  const n = call.args.length;
  if (n < min || n > max) throw errorAt(`${call.name} with ${n} argument${n === 1 ? '' : 's'}`, call.column, usage);
}

function stringArg(node: Syntax, what: string): StringNode {
  if (node.kind !== 'string') throw errorAt(show(node), node.column, `${what} (a double-quoted string)`);
  return node;
}

/** The options map of a call, with unknown keys refused. */
function options(call: CallNode, node: Syntax | undefined, allowed: readonly string[]): Map<string, Scalar> {
  const out = new Map<string, Scalar>();
  if (node === undefined) return out;
  if (node.kind !== 'map') throw errorAt(show(node), node.column, `an options map {...} as the last argument of ${call.name}`);
  for (const e of node.entries) {
    if (!allowed.includes(e.key)) {
      throw errorAt(`unknown option ${JSON.stringify(e.key)} of ${call.name}`, e.keyColumn, allowed.length ? `one of ${allowed.join(', ')}` : 'no options');
    }
    out.set(e.key, e.value);
  }
  return out;
}

function required(call: CallNode, opts: Map<string, Scalar>, key: string, example: string): Scalar {
  const v = opts.get(key);
  if (v === undefined) throw errorAt(`${call.name} without the option ${key}`, call.column, `${call.name}(set, {${key}: ${example}})`);
  return v;
}

function realNumber(v: Scalar, what: string): number {
  const n = v.kind === 'number' ? v.value : DECIMAL.test(v.value.trim()) ? Number(v.value) : NaN;
  if (!Number.isFinite(n)) throw errorAt(`${what} ${text(v)}`, v.column, 'a number');
  return n;
}

function wholeNumber(v: Scalar | undefined, what: string, min: number, max: number, fallback: number): number {
  if (v === undefined) return fallback;
  const n = v.kind === 'number' ? v.value : /^\s*\d{1,15}\s*$/.test(v.value) ? Number(v.value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) throw errorAt(`${what} ${text(v)}`, v.column, `a whole number from ${min} to ${max}`);
  return n;
}

function oneOf<T extends string>(v: Scalar | undefined, what: string, values: readonly T[], fallback: T): T {
  if (v === undefined) return fallback;
  const found = v.kind === 'string' ? values.find((x) => x === v.value) : undefined;
  if (found === undefined) throw errorAt(`${what} ${text(v)}`, v.column, `one of ${values.join(', ')}`);
  return found;
}

function bool(v: Scalar | undefined, what: string, fallback: boolean): boolean {
  return oneOf(v, what, ['true', 'false'], fallback ? 'true' : 'false') === 'true';
}

function series(call: CallNode, budget: Budget): SeriesExpr {
  arity(call, 1, 3, `${call.name}(metric, tags, {function, period, group})`);
  budget.used += budget.weight;
  if (budget.used > MAX_SERIES_CALLS) {
    throw errorAt(`more than ${MAX_SERIES_CALLS} series() calls (counting each timeshift offset)`, call.column, `at most ${MAX_SERIES_CALLS}`);
  }
  const nameNode = stringArg(call.args[0]!, 'a metric name');
  const metric = nameNode.value.toLowerCase();
  if (!METRIC.test(metric)) throw errorAt(`metric name ${text(nameNode)}`, nameNode.column, '1-255 letters, digits, . : - _ or *');
  let tags: SeriesExpr['tags'] = [];
  const t = call.args[1];
  if (t?.kind === 'string' && t.value === '%') tags = 'dynamic';
  else if (t?.kind === 'map') tags = tagFilter(t);
  else if (t?.kind === 'string' && t.value !== '*') {
    // Librato's legacy source pattern: sources are the `source` tag here
    const pattern = t.value.toLowerCase();
    if (!TAG_PATTERN.test(pattern)) throw errorAt(`source pattern ${text(t)}`, t.column, '1-255 letters, digits, spaces, . : - _ ? \\ / or *');
    tags = [['source', pattern]];
  } else if (t !== undefined && t.kind !== 'string') {
    throw errorAt(show(t), t.column, 'a tag map {"name": "pattern"}, a source pattern, "*" or "%"');
  }
  const opts = options(call, call.args[2], ['function', 'period', 'group']);
  return {
    kind: 'series',
    metric,
    tags,
    fn: oneOf(opts.get('function'), `${call.name} function`, READ_FUNCTIONS, 'mean'),
    period: opts.has('period') ? wholeNumber(opts.get('period'), `${call.name} period`, 1, MAX_PERIOD, 0) : null,
    group: bool(opts.get('group'), `${call.name} group`, true),
  };
}

/** Sorted by name, so that the same filter written in another order is read once. */
function tagFilter(map: MapNode): [string, string][] {
  const seen = new Set<string>();
  const pairs = map.entries.map((e): [string, string] => {
    const name = e.key.toLowerCase();
    if (!TAG_NAME.test(name)) throw errorAt(`tag name ${JSON.stringify(e.key)}`, e.keyColumn, '1-64 letters, digits, . : - _');
    const pattern = (e.value.kind === 'string' ? e.value.value : e.value.text).toLowerCase();
    if (!TAG_PATTERN.test(pattern)) {
      throw errorAt(`tag pattern ${text(e.value)}`, e.value.column, '1-255 letters, digits, spaces, . : - _ ? \\ / or *');
    }
    if (seen.has(name)) throw errorAt(`duplicate tag name ${JSON.stringify(e.key)}`, e.keyColumn, 'each tag name once');
    seen.add(name);
    return [name, pattern];
  });
  return pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function timeshiftOffsets(node: StringNode): number[] {
  const spec = node.value.replace(/\s+/g, '');
  const m = TIMESHIFT.exec(spec);
  const expected = 'offsets like "1d", "0,1,2w" or "+1h" (units s, m, h, d, w)';
  if (!m) throw errorAt(`timeshift ${text(node)}`, node.column, expected);
  const unit = UNIT_SECONDS[m[2]!]!;
  const offsets = m[1]!.split(',').map((n) => (n.startsWith('+') ? -1 : 1) * Math.abs(Number(n)) * unit);
  if (offsets.length > MAX_TIMESHIFT_OFFSETS) throw errorAt(`timeshift with ${offsets.length} offsets`, node.column, `at most ${MAX_TIMESHIFT_OFFSETS}`);
  if (offsets.some((s) => Math.abs(s) > MAX_TIMESHIFT_SECONDS)) throw errorAt(`timeshift ${text(node)}`, node.column, `shifts of at most ${MAX_TIMESHIFT_SECONDS / 86400} days`);
  return offsets.map((s) => s + 0); // no -0
}

function groupTags(node: StringNode): string[] {
  const tags = [...new Set(node.value.split(',').map((s) => s.trim().toLowerCase()))];
  for (const t of tags) if (!TAG_NAME.test(t)) throw errorAt(`group_by tags ${text(node)}`, node.column, 'comma-separated tag names such as "region,az"');
  return tags;
}

function scaleFactor(v: Scalar): number {
  const m = v.kind === 'string' ? FRACTION.exec(v.value.trim()) : null;
  if (m) {
    const d = Number(m[2]);
    if (d === 0) throw errorAt(`scale factor ${text(v)}`, v.column, 'a fraction with a non-zero divisor');
    return Number(m[1]) / d;
  }
  return realNumber(v, 'scale factor');
}

/** Series a literal set holds once nested literal sets are flattened. */
function literalCount(node: Syntax): number {
  return node.kind === 'set' ? node.items.reduce((n, item) => n + literalCount(item), 0) : 1;
}

type Checker = (call: CallNode, budget: Budget) => Expr;

function aggregate(fn: 'sum' | 'mean' | 'min' | 'max' | 'multiply'): Checker {
  return (call, budget) => {
    arity(call, 1, 1, `${fn}(set)`);
    return { kind: 'aggregate', fn, arg: set(call.args[0]!, budget) };
  };
}

function pair(fn: 'divide' | 'subtract'): Checker {
  return (call, budget) => {
    arity(call, 1, 1, `${fn}([a, b])`);
    const arg = call.args[0]!;
    if (arg.kind === 'set' && literalCount(arg) !== 2) throw errorAt(`${fn} of ${literalCount(arg)} series`, arg.column, 'a set of exactly 2 series');
    return { kind: 'pair', fn, arg: set(arg, budget) };
  };
}

function windowed(name: 'window' | 'moving_average'): Checker {
  return (call, budget) => {
    const keys = name === 'window' ? ['size', 'function'] : ['size'];
    arity(call, 1, 2, `${name}(set, {${keys.join(', ')}})`);
    const arg = set(call.args[0]!, budget);
    const opts = options(call, call.args[1], keys);
    return {
      kind: 'window',
      size: wholeNumber(opts.get('size'), `${name} size`, 1, MAX_WINDOW_SIZE, 1),
      fn: oneOf(opts.get('function'), `${name} function`, WINDOW_FUNCTIONS, 'mean'),
      arg,
    };
  };
}

function rank(order: 'top' | 'bottom'): Checker {
  return (call, budget) => {
    arity(call, 1, 2, `${order}(set, {count, function})`);
    const arg = set(call.args[0]!, budget);
    const opts = options(call, call.args[1], ['count', 'function']);
    return {
      kind: 'rank',
      order,
      count: wholeNumber(opts.get('count'), `${order} count`, 1, MAX_RANK_COUNT, 10),
      fn: oneOf(opts.get('function'), `${order} function`, REDUCE_FUNCTIONS, 'mean'),
      arg,
    };
  };
}

const FUNCTIONS = new Map<string, Checker>([
  ['series', series],
  ['s', series],
  ['sum', aggregate('sum')],
  ['mean', aggregate('mean')],
  ['min', aggregate('min')],
  ['max', aggregate('max')],
  ['multiply', aggregate('multiply')],
  ['divide', pair('divide')],
  ['subtract', pair('subtract')],
  ['derive', (call, budget) => {
    arity(call, 1, 2, 'derive(set, {detect_reset})');
    const arg = set(call.args[0]!, budget);
    const opts = options(call, call.args[1], ['detect_reset']);
    return { kind: 'derive', detectReset: bool(opts.get('detect_reset'), 'derive detect_reset', true), arg };
  }],
  ['integrate', (call, budget) => {
    arity(call, 1, 1, 'integrate(set)');
    return { kind: 'integrate', arg: set(call.args[0]!, budget) };
  }],
  ['rate', (call, budget) => {
    arity(call, 1, 2, 'rate(set, {duration})');
    const arg = set(call.args[0]!, budget);
    const d = options(call, call.args[1], ['duration']).get('duration');
    const duration = d === undefined ? 1 : realNumber(d, 'rate duration');
    if (d !== undefined && !(duration > 0)) throw errorAt(`rate duration ${text(d)}`, d.column, 'a positive number of seconds');
    return { kind: 'rate', duration, arg };
  }],
  ['scale', (call, budget) => {
    arity(call, 2, 2, 'scale(set, {factor: "2"})');
    const arg = set(call.args[0]!, budget);
    const factor = scaleFactor(required(call, options(call, call.args[1], ['factor']), 'factor', '"1/1024"'));
    return { kind: 'scale', factor, arg };
  }],
  ['window', windowed('window')],
  ['moving_average', windowed('moving_average')],
  ['timeshift', (call, budget) => {
    arity(call, 2, 2, 'timeshift("1d", set)');
    const offsets = timeshiftOffsets(stringArg(call.args[0]!, 'offsets like "1d" or "0,1w"'));
    const inner: Budget = { weight: budget.weight * offsets.length, used: budget.used };
    // the inner expression runs once per offset, nested shifts multiply: bounded even when
    // no series() inside would count it (`timeshift(..., timeshift(..., []))`)
    if (inner.weight > MAX_SERIES_CALLS) {
      throw errorAt(`timeshifts that run their expression ${inner.weight} times`, call.column, `at most ${MAX_SERIES_CALLS} runs (the product of the nested offsets)`);
    }
    const arg = set(call.args[1]!, inner);
    budget.used = inner.used;
    return { kind: 'timeshift', offsets, arg };
  }],
  ['fill', (call, budget) => {
    arity(call, 2, 2, 'fill(set, {value: "0"})');
    const arg = set(call.args[0]!, budget);
    const v = required(call, options(call, call.args[1], ['value']), 'value', '"0" or "last"');
    const value = v.kind === 'string' && v.value === 'last' ? 'last' : realNumber(v, 'fill value');
    return { kind: 'fill', value, arg };
  }],
  ['zero_fill', (call, budget) => {
    arity(call, 1, 1, 'zero_fill(set)');
    return { kind: 'fill', value: 0, arg: set(call.args[0]!, budget) };
  }],
  ['top', rank('top')],
  ['bottom', rank('bottom')],
  ['filter', (call, budget) => {
    arity(call, 2, 2, 'filter(set, {gt, gte, lt, lte, function})');
    const arg = set(call.args[0]!, budget);
    const opts = options(call, call.args[1], ['gt', 'gte', 'lt', 'lte', 'function']);
    const bound = (key: string) => {
      const v = opts.get(key);
      return v === undefined ? null : realNumber(v, `filter ${key}`);
    };
    const f = { gt: bound('gt'), gte: bound('gte'), lt: bound('lt'), lte: bound('lte') };
    if (f.gt === null && f.gte === null && f.lt === null && f.lte === null) {
      throw errorAt('filter without a bound', call.column, 'at least one of the options gt, gte, lt, lte');
    }
    return { kind: 'filter', fn: oneOf(opts.get('function'), 'filter function', REDUCE_FUNCTIONS, 'mean'), ...f, arg };
  }],
  ['group_by', (call, budget) => {
    arity(call, 2, 2, 'group_by("tag1,tag2", set)');
    const tags = groupTags(stringArg(call.args[0]!, 'comma-separated tag names'));
    return { kind: 'group_by', tags, arg: set(call.args[1]!, budget) };
  }],
]);

const NAMES = [...FUNCTIONS.keys()].join(', ');

/** A node that yields a set of series: a function call or a `[...]` literal. */
function set(node: Syntax, budget: Budget): Expr {
  if (node.kind === 'set') return { kind: 'set', items: node.items.map((item) => set(item, budget)) };
  if (node.kind !== 'call') throw errorAt(show(node), node.column, 'a set of series (a function call or [...])');
  const checker = FUNCTIONS.get(node.name);
  if (!checker) throw errorAt(`unknown function ${JSON.stringify(node.name)}`, node.column, `one of ${NAMES}`);
  return checker(node, budget);
}

export function checkComposite(tree: Syntax): Expr {
  return set(tree, { weight: 1, used: 0 });
}
