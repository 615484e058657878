// `tags` and `tags_search` -> the engine's TagExpr. `tags`: one name repeated = OR,
// different names = AND, `*` in values, `!pattern` = has the tag and does not match,
// `tags[!name]` = lacks the tag, `*` or an empty map = every series, `{host: *}` = has
// the tag. Accepted as `tags[host]=a`, `tags[host][]=a`, `tags={"host":"a"}` and the
// loose `tags={host: a, region: [x, y]}`. `tags_search`: librato-api-notes §2 grammar.
import { compileGlob } from '../match/glob.js';
import { tagNameProblem, tagPatternProblem } from '../match/tag-pattern.js';
import { paramError } from '../errors.js';
import type { TagExpr } from '../tsdb/tag-expr.js';

/** A clause on one tag name and one value pattern (which may start with `!`). */
function clause(name: string, pattern: string, field: string): TagExpr {
  const problem = tagNameProblem(name) ?? tagPatternProblem(name, pattern);
  if (problem) throw paramError(field, problem);
  const n = name.toLowerCase();
  if (pattern.startsWith('!')) return { op: 'notMatch', name: n, glob: compileGlob(pattern.slice(1)) };
  return { op: 'match', name: n, glob: compileGlob(pattern) };
}

/** name -> patterns, in the order given. */
export function tagsMapToExpr(map: Map<string, string[]>): TagExpr {
  const and: TagExpr[] = [];
  for (const [rawName, patterns] of map) {
    if (rawName.startsWith('!')) {
      const name = rawName.slice(1);
      const problem = tagNameProblem(name);
      if (problem) throw paramError('tags', problem);
      and.push({ op: 'lacks', name: name.toLowerCase() });
      continue;
    }
    const ors = patterns.map((p) => clause(rawName, p, 'tags'));
    and.push(ors.length === 1 ? ors[0]! : { op: 'or', args: ors });
  }
  return and.length === 0 ? { op: 'all' } : and.length === 1 ? and[0]! : { op: 'and', args: and };
}

/** Collects the `tags` parameter in any of its accepted forms. */
export function tagsFromQuery(params: URLSearchParams): Map<string, string[]> | null {
  const map = new Map<string, string[]>();
  let seen = false;
  const add = (name: string, value: string) => {
    const list = map.get(name) ?? [];
    list.push(value);
    map.set(name, list);
  };
  for (const [key, value] of params) {
    if (key === 'tags') {
      seen = true;
      const v = value.trim();
      if (v === '' || v === '*' || v === '{}') continue;
      for (const [k, vs] of parseTagsObject(v)) for (const x of vs) add(k, x);
      continue;
    }
    if (!key.startsWith('tags[')) continue;
    const m = /^tags\[([^\]]*)\](\[\d*\])?$/.exec(key);
    if (!m) throw paramError('tags', `${JSON.stringify(key.slice(0, 70))} is not tags[name]=pattern or tags[name][]=pattern`);
    seen = true;
    add(m[1]!, value);
  }
  return seen ? map : null;
}

/** JSON (`{"host":["a","b"]}`) or the loose `{host: a, region: [x, y]}`. */
function parseTagsObject(text: string): [string, string[]][] {
  if (text.length > 8192) throw paramError('tags', 'is too long');
  let json: unknown;
  try { json = JSON.parse(text); } catch { /* not JSON: the loose form */ }
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
    return Object.entries(json as Record<string, unknown>).map(([k, v]) => [k, nonEmpty(k, (Array.isArray(v) ? v : [v]).map((x) => patternText(k, x)))]);
  }
  if (!text.startsWith('{') || !text.endsWith('}')) throw paramError('tags', 'must be tags[name]=pattern, a JSON object or {name: pattern, ...}');
  const out: [string, string[]][] = [];
  const body = text.slice(1, -1);
  // entries split on commas outside [ ]
  let depth = 0;
  let cur = '';
  const entries: string[] = [];
  for (const ch of body) {
    if (ch === '[') depth++;
    if (ch === ']') depth--;
    if (ch === ',' && depth === 0) { entries.push(cur); cur = ''; } else cur += ch;
  }
  if (cur.trim()) entries.push(cur);
  for (const entry of entries) {
    const sep = entry.search(/[:=]/);
    if (sep < 0) throw paramError('tags', `entry ${JSON.stringify(entry.trim().slice(0, 70))} has no value`);
    const name = unquote(entry.slice(0, sep).trim());
    const value = entry.slice(sep + 1).trim();
    const values = value.startsWith('[') && value.endsWith(']')
      ? value.slice(1, -1).split(',').map((x) => unquote(x.trim())).filter((x) => x !== '')
      : [unquote(value)];
    out.push([name, nonEmpty(name, values)]);
  }
  return out;
}

/**
 * A JSON value as a pattern: a string, or a number or boolean as the text a tag value
 * given so is stored as. Anything else (null, an object, a nested list) is no pattern;
 * read as its text, null filtered for the value "null".
 */
function patternText(name: string, value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw paramError('tags', `the value of ${JSON.stringify(name.slice(0, 70))} must be a pattern or a list of patterns`);
}

/**
 * A tag given an empty list (`{"host":[]}`) could mean "any host" or "no host", and
 * silently matching every series was the first: a 400 says so instead.
 */
function nonEmpty(name: string, values: string[]): string[] {
  if (values.length === 0) throw paramError('tags', `${JSON.stringify(name.slice(0, 70))} has an empty list: give at least one pattern, or leave the tag out`);
  return values;
}

function unquote(s: string): string {
  return /^(["']).*\1$/.test(s) ? s.slice(1, -1) : s;
}

// ---- tags_search: expr := and ('or' and)* ; and := term ('and' term)* ;
// term := '(' expr ')' | '!' name | name '=' pattern

type Token = { kind: 'word' | '(' | ')' | 'and' | 'or' | '='; text: string };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === ' ' || ch === '\t') { i++; continue; }
    if (ch === '(' || ch === ')' || ch === '=') { tokens.push({ kind: ch, text: ch }); i++; continue; }
    if (ch === '"' || ch === "'") {
      const close = src.indexOf(ch, i + 1);
      if (close < 0) throw paramError('tags_search', 'has an unterminated quote');
      tokens.push({ kind: 'word', text: src.slice(i + 1, close) });
      i = close + 1;
      continue;
    }
    let j = i;
    while (j < src.length && !' \t()="\''.includes(src[j]!)) j++;
    const word = src.slice(i, j);
    const lower = word.toLowerCase();
    tokens.push(lower === 'and' || lower === 'or' ? { kind: lower, text: word } : { kind: 'word', text: word });
    i = j;
  }
  return tokens;
}

export function parseTagsSearch(src: string): TagExpr {
  if (src.length > 4096) throw paramError('tags_search', 'is too long');
  const tokens = tokenize(src);
  let pos = 0;
  const peek = () => tokens[pos];
  const expect = (kind: Token['kind']) => {
    const t = tokens[pos++];
    if (!t || t.kind !== kind) throw paramError('tags_search', `expected ${kind === 'word' ? 'a tag name or pattern' : `"${kind}"`} at token ${pos}`);
    return t;
  };
  let depth = 0;
  const expr = (): TagExpr => {
    const args = [and()];
    while (peek()?.kind === 'or') { pos++; args.push(and()); }
    return args.length === 1 ? args[0]! : { op: 'or', args };
  };
  const and = (): TagExpr => {
    const args = [term()];
    while (peek()?.kind === 'and') { pos++; args.push(term()); }
    return args.length === 1 ? args[0]! : { op: 'and', args };
  };
  const term = (): TagExpr => {
    const t = peek();
    if (t?.kind === '(') {
      if (++depth > 32) throw paramError('tags_search', 'is nested too deeply');
      pos++;
      const e = expr();
      expect(')');
      depth--;
      return e;
    }
    const name = expect('word').text;
    if (peek()?.kind !== '=') {
      if (name.startsWith('!')) {
        const n = name.slice(1);
        const problem = tagNameProblem(n);
        if (problem) throw paramError('tags_search', problem);
        return { op: 'lacks', name: n.toLowerCase() };
      }
      throw paramError('tags_search', `expected "=" after ${JSON.stringify(name.slice(0, 70))}`);
    }
    pos++;
    return clause(name, expect('word').text, 'tags_search');
  };
  if (tokens.length === 0) return { op: 'all' };
  const e = expr();
  if (pos !== tokens.length) throw paramError('tags_search', `unexpected ${JSON.stringify(tokens[pos]!.text.slice(0, 70))}`);
  return e;
}
