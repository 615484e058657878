// Relabel regexes are written for Go's RE2 syntax; this turns one into a JavaScript
// RegExp with the same meaning, fully anchored as Prometheus anchors it: ^(?s:regex)$.
// The two syntaxes mostly agree. Where they differ:
//   - translated: `(?P<name>` named groups; a leading `(?i)` / `(?s)`; `\A`, `\z`, `\Q...\E`,
//     `\a`, `\x{10FFFF}`, `\pL`; POSIX classes such as `[[:alpha:]]`; an escaped punctuation
//     character (RE2 allows `\_`, JavaScript's unicode mode does not); a `{` or `}` that is
//     not a repetition, and a `]` first in a class, which RE2 reads as literals.
//   - refused with a message: what RE2 does not have (lookaround, backreferences) and
//     what JavaScript cannot do here (inline flags other than at the very start).
// Matching runs on a backtracking engine, unlike RE2: the regexes come from the
// operator's own config file, and the values they run on are short label values.

const POSIX: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7f', blank: '\\t ', cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9', graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-\\/:-@\\[-`{-~', space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z', word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};

const PASS_ESCAPES = 'dDwWsSbBftnrv';
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const REPEAT = /^\{([0-9]+)(?:,([0-9]*))?\}/;

export class RegexError extends Error {}

/** `source` (RE2 syntax) as a RegExp matching whole strings only. Throws RegexError. */
export function compileAnchored(source: string): RegExp {
  const { pattern, flags } = translate(source);
  try {
    return new RegExp(`^(?:${pattern})$`, flags);
  } catch (e) {
    throw new RegexError(`invalid regex ${JSON.stringify(source)}: ${(e as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /, '')}`);
  }
}

function translate(source: string): { pattern: string; flags: string } {
  let flags = 'su';
  let i = 0;
  const lead = /^\(\?([a-zA-Z]+)\)/.exec(source);
  if (lead) {
    for (const f of lead[1]!) {
      if (f === 'i') flags += flags.includes('i') ? '' : 'i';
      else if (f !== 's') throw new RegexError(`regex flag "${f}" is not supported (only (?i) and (?s), at the start)`);
    }
    i = lead[0].length;
  }
  let out = '';
  let inClass = false;
  let classStart = false;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\\') {
      const [text, next] = escape(source, i, inClass);
      out += text;
      i = next;
      classStart = false;
      continue;
    }
    if (inClass) {
      if (c === ']') {
        out += classStart ? '\\]' : ']';
        inClass = classStart;
      } else if (c === '[' && source[i + 1] === ':') {
        const close = source.indexOf(':]', i + 2);
        const name = close < 0 ? '' : source.slice(i + 2, close);
        const negated = name.startsWith('^');
        const range = POSIX[negated ? name.slice(1) : name];
        if (range === undefined || negated) throw new RegexError(`unknown or unsupported character class "[:${name}:]"`);
        out += range;
        i = close + 2;
        classStart = false;
        continue;
      } else {
        out += c === '[' ? '\\[' : c;
      }
      classStart = false;
      i++;
      continue;
    }
    if (c === '[') {
      inClass = true;
      classStart = true;
      out += source[i + 1] === '^' ? '[^' : '[';
      i += source[i + 1] === '^' ? 2 : 1;
      continue;
    }
    if (c === '(' && source[i + 1] === '?') {
      const [text, next] = group(source, i);
      out += text;
      i = next;
      continue;
    }
    if (c === '{') {
      const m = REPEAT.exec(source.slice(i));
      if (m) {
        if (Number(m[1]) > 1000 || (m[2] !== undefined && m[2] !== '' && Number(m[2]) > 1000)) throw new RegexError(`repeat count above 1000 in ${m[0]}`);
        out += m[0];
        i += m[0].length;
        continue;
      }
      out += '\\{';
    } else if (c === '}' || c === ']') {
      out += `\\${c}`;
    } else {
      out += c;
    }
    i++;
  }
  if (inClass) throw new RegexError('missing "]" at the end of a character class');
  return { pattern: out, flags };
}

function group(source: string, i: number): [string, number] {
  const rest = source.slice(i, i + 4);
  if (rest.startsWith('(?:')) return ['(?:', i + 3];
  if (rest === '(?P<') return ['(?<', i + 4];
  if (rest.startsWith('(?P')) throw new RegexError(`invalid group syntax ${JSON.stringify(rest)} (named backreferences are not supported)`);
  if (/^\(\?<[A-Za-z_]/.test(rest)) return ['(?<', i + 3];
  if (/^\(\?(=|!|<=|<!)/.test(rest)) throw new RegexError('lookahead and lookbehind are not supported (RE2 syntax)');
  if (/^\(\?[a-zA-Z-]/.test(rest)) throw new RegexError('inline flags are supported only at the very start, as (?i) or (?s)');
  throw new RegexError(`invalid group syntax ${JSON.stringify(source.slice(i, i + 4))}`);
}

function escape(source: string, i: number, inClass: boolean): [string, number] {
  const n = source[i + 1];
  if (n === undefined) throw new RegexError('trailing backslash');
  if (n >= '0' && n <= '9') throw new RegexError(`\\${n}: backreferences and octal escapes are not supported (RE2 syntax)`);
  if (PASS_ESCAPES.includes(n)) return [`\\${n}`, i + 2];
  if (n === 'A' || n === 'z') {
    if (inClass) throw new RegexError(`\\${n} is not allowed in a character class`);
    return [n === 'A' ? '^' : '$', i + 2];
  }
  if (n === 'a') return ['\\x07', i + 2];
  if (n === 'Q') {
    const end = source.indexOf('\\E', i + 2);
    const literal = source.slice(i + 2, end < 0 ? undefined : end);
    return [[...literal].map((ch) => (ASCII_PUNCTUATION.test(ch) ? hexEscape(ch) : ch)).join(''), end < 0 ? source.length : end + 2];
  }
  if (n === 'x') {
    if (source[i + 2] === '{') {
      const close = source.indexOf('}', i + 3);
      const hex = close < 0 ? '' : source.slice(i + 3, close);
      if (!/^[0-9a-fA-F]{1,6}$/.test(hex)) throw new RegexError('invalid \\x{...} escape');
      return [`\\u{${hex}}`, close + 1];
    }
    const hex = source.slice(i + 2, i + 4);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new RegexError('invalid \\x escape (two hex digits or \\x{...})');
    return [`\\x${hex}`, i + 4];
  }
  if (n === 'p' || n === 'P') {
    if (source[i + 2] === '{') {
      const close = source.indexOf('}', i + 3);
      if (close < 0) throw new RegexError(`missing "}" after \\${n}{`);
      return [unicodeClass(n, source.slice(i + 3, close)), close + 1];
    }
    const letter = source[i + 2];
    if (letter === undefined || !/[A-Za-z]/.test(letter)) throw new RegexError(`invalid \\${n} escape`);
    return [unicodeClass(n, letter), i + 3];
  }
  if (ASCII_PUNCTUATION.test(n)) return [hexEscape(n), i + 2];
  throw new RegexError(`invalid escape \\${n}`);
}

/** RE2's `\\pL`, `\\p{Lu}`, `\\p{Greek}`, `\\p{^Greek}`: JavaScript names scripts as Script=Greek. */
function unicodeClass(p: string, name: string): string {
  const negated = name.startsWith('^');
  const bare = negated ? name.slice(1) : name;
  const letter = negated === (p === 'p') ? 'P' : 'p';
  return `\\${letter}{${bare.length <= 2 ? bare : `Script=${bare}`}}`;
}

function hexEscape(ch: string): string {
  return `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
}
