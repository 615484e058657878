// Composite expressions -> syntax tree, by a tokenizer and a recursive-descent parser
// (grammar: docs/composite.md). Linear in the input; the depth bound keeps the recursion
// shallow whatever the input.
//
//   value := call | set | map | string | number
//   call  := name "(" [value {"," value}] ")"      no space between name and "("
//   set   := "[" [value {"," value}] "]"
//   map   := "{" [key ":" (string | number) {"," key ":" (string | number)}] "}"
//   key   := name | string
import type { CallNode, Expr, MapEntry, MapNode, NumberNode, SetNode, StringNode, Syntax } from './ast.js';
import { checkComposite } from './check.js';
import { composeError, errorAt } from './error.js';
import { MAX_DEPTH, MAX_EXPRESSION_LENGTH, MAX_SET_ITEMS } from './limits.js';

type Punct = '(' | ')' | '[' | ']' | '{' | '}' | ',' | ':';
type Token =
  | { kind: 'name'; text: string; column: number; end: number }
  | { kind: 'string'; text: string; value: string; column: number; end: number }
  | { kind: 'number'; text: string; value: number; column: number; end: number }
  | { kind: Punct | 'end'; text: string; column: number; end: number };

const PUNCT = new Set<string>(['(', ')', '[', ']', '{', '}', ',', ':']);
const NAME_START = /[A-Za-z_@]/;
// no ":" in a bare name: it ends a map key (`{size:"10"}`); quote a tag name that has one
const NAME_REST = /[-A-Za-z0-9_.@]/y;
const NUMBER = /-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const ESCAPE_LIST = '\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX';

function describe(t: Token): string {
  switch (t.kind) {
    case 'end': return 'end of expression';
    case 'name': return `name ${JSON.stringify(clip(t.text))}`;
    case 'string': return `string ${clip(t.text)}`;
    case 'number': return `number ${clip(t.text)}`;
    default: return JSON.stringify(t.text);
  }
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/** Whether src[i] starts a character beyond U+FFFF, which takes two UTF-16 units. */
function isPair(src: string, i: number): boolean {
  const c = src.charCodeAt(i);
  const d = src.charCodeAt(i + 1);
  return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff;
}

/** The string starting at `at`, whose column is `column`; `pairs` counts its characters beyond U+FFFF. */
function readString(src: string, at: number, column: number): { token: Token; pairs: number } {
  let value = '';
  let i = at + 1;
  let pairs = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === '"') return { token: { kind: 'string', text: src.slice(at, i + 1), value, column, end: i + 1 }, pairs };
    if (c !== '\\') {
      if (isPair(src, i)) pairs++;
      value += c;
      i++;
      continue;
    }
    const e = src[i + 1];
    if (e === 'u' && /^[0-9A-Fa-f]{4}$/.test(src.slice(i + 2, i + 6))) {
      value += String.fromCharCode(parseInt(src.slice(i + 2, i + 6), 16));
      i += 6;
    } else if (e !== undefined && e in ESCAPES) {
      value += ESCAPES[e];
      i += 2;
    } else {
      throw errorAt(`unknown escape ${JSON.stringify(src.slice(i, i + 2))}`, column + (i - at) - pairs, ESCAPE_LIST);
    }
  }
  throw errorAt('unterminated string', column, 'a closing double quote');
}

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  // Columns count characters, as a reader does: one beyond U+FFFF (an emoji) is two
  // UTF-16 units of `src`, and only a string can hold one, so the strings read so far
  // say how far columns lag behind indexes.
  let pairs = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue; }
    const column = i + 1 - pairs;
    let t: Token;
    if (PUNCT.has(c)) t = { kind: c as Punct, text: c, column, end: i + 1 };
    else if (c === '"') {
      const read = readString(src, i, column);
      pairs += read.pairs;
      t = read.token;
    } else if (NAME_START.test(c)) {
      NAME_REST.lastIndex = i + 1;
      let end = i + 1;
      while (NAME_REST.test(src)) end = NAME_REST.lastIndex;
      t = { kind: 'name', text: src.slice(i, end), column, end };
    } else {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(src);
      if (!m) {
        const char = String.fromCodePoint(src.codePointAt(i)!);
        throw errorAt(`unexpected character ${JSON.stringify(char)}`, column, 'a function call, "[", "{", a string or a number');
      }
      const value = Number(m[0]);
      if (!Number.isFinite(value)) throw errorAt(`number ${clip(m[0])} is too large`, column, 'a finite number');
      t = { kind: 'number', text: m[0], value, column, end: i + m[0].length };
    }
    tokens.push(t);
    i = t.end;
  }
  tokens.push({ kind: 'end', text: '', column: src.length + 1 - pairs, end: src.length });
  return tokens;
}

class Parser {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.at]!;
  }

  private next(): Token {
    const t = this.tokens[this.at]!;
    if (t.kind !== 'end') this.at++;
    return t;
  }

  private unexpected(t: Token, expected: string): never {
    throw errorAt(`unexpected ${describe(t)}`, t.column, expected);
  }

  value(depth: number): Syntax {
    const t = this.peek();
    if (depth > MAX_DEPTH && (t.kind === 'name' || t.kind === '[' || t.kind === '{')) {
      throw errorAt(`nesting deeper than ${MAX_DEPTH} levels`, t.column, `at most ${MAX_DEPTH} levels of calls, sets and maps`);
    }
    switch (t.kind) {
      case 'name': return this.call(depth);
      case '[': return this.set(depth);
      case '{': return this.map();
      case 'string': this.next(); return { kind: 'string', value: t.value, column: t.column };
      case 'number': this.next(); return { kind: 'number', value: t.value, text: t.text, column: t.column };
      default: return this.unexpected(t, 'a function call, a set "[...]", a map "{...}", a string or a number');
    }
  }

  private call(depth: number): CallNode {
    const name = this.next();
    const open = this.peek();
    if (open.kind !== '(') this.unexpected(open, `"(" after the function name ${JSON.stringify(name.text)}`);
    // `end` is an index, as is the end of the one-unit "(" (columns may lag behind indexes)
    if (open.end !== name.end + 1) throw errorAt(`space before "("`, name.column + name.text.length, `"(" directly after the function name ${JSON.stringify(name.text)}`);
    this.next();
    const args = this.list(')', depth, Infinity);
    return { kind: 'call', name: name.text, args, column: name.column };
  }

  private set(depth: number): SetNode {
    const open = this.next();
    return { kind: 'set', items: this.list(']', depth, MAX_SET_ITEMS), column: open.column };
  }

  /** Comma-separated values up to `close`, which it consumes. */
  private list(close: ')' | ']', depth: number, max: number): Syntax[] {
    const items: Syntax[] = [];
    if (this.peek().kind === close) { this.next(); return items; }
    for (;;) {
      const item = this.value(depth + 1);
      if (items.length === max) throw errorAt(`set of more than ${max} items`, item.column, `at most ${max} items in one set`);
      items.push(item);
      const t = this.next();
      if (t.kind === close) return items;
      if (t.kind !== ',') this.unexpected(t, `"," or "${close}"`);
    }
  }

  private map(): MapNode {
    const open = this.next();
    const entries: MapEntry[] = [];
    const seen = new Set<string>();
    if (this.peek().kind === '}') { this.next(); return { kind: 'map', entries, column: open.column }; }
    for (;;) {
      const k = this.next();
      if (k.kind !== 'name' && k.kind !== 'string') this.unexpected(k, 'a key (a name or a string)');
      const key = k.kind === 'string' ? k.value : k.text;
      if (seen.has(key)) throw errorAt(`duplicate key ${JSON.stringify(clip(key))}`, k.column, 'each key once');
      seen.add(key);
      const colon = this.next();
      if (colon.kind !== ':') this.unexpected(colon, '":"');
      const v = this.next();
      let value: StringNode | NumberNode;
      if (v.kind === 'string') value = { kind: 'string', value: v.value, column: v.column };
      else if (v.kind === 'number') value = { kind: 'number', value: v.value, text: v.text, column: v.column };
      else return this.unexpected(v, 'a string or a number');
      entries.push({ key, keyColumn: k.column, value });
      const t = this.next();
      if (t.kind === '}') return { kind: 'map', entries, column: open.column };
      if (t.kind !== ',') this.unexpected(t, '"," or "}"');
    }
  }

  end(): void {
    const t = this.peek();
    if (t.kind !== 'end') this.unexpected(t, 'end of expression');
  }
}

/** The syntax tree of an expression; a 400 naming the column on the first error. */
export function parseSyntax(src: string): Syntax {
  if (src.length > MAX_EXPRESSION_LENGTH) {
    throw composeError(`is ${src.length} characters long: expected at most ${MAX_EXPRESSION_LENGTH}`);
  }
  const p = new Parser(tokenize(src));
  const tree = p.value(1);
  p.end();
  return tree;
}

/** An expression, parsed and checked: what the evaluator runs. */
export function parseComposite(src: string): Expr {
  return checkComposite(parseSyntax(src));
}
