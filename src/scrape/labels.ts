// Prometheus labels -> v1 tags. Label names and values may hold anything (values: any
// UTF-8, any case); v1 tags allow a small charset and are lower-cased on write, so `GET`
// and `get` would become one series. The mapping keeps the common case unchanged (a
// lower-case value in the charset maps to itself) and escapes the rest reversibly:
//
//   value: `?` toggles upper case (`GET` -> `?get`, `Running` -> `?r?unning`); a character
//          outside the charset, and `?` and `\` themselves, become `\` + two hex digits per
//          UTF-8 byte (`a=b` -> `a\3db`, `é` -> `\c3\a9`); `+Inf` -> `inf`, `-Inf` -> `-inf`,
//          `NaN` -> `nan` (so the literal values `inf`, `-inf`, `nan` are escaped instead).
//   name:  the same with `.` as the case toggle and `:` + two hex digits as the byte escape
//          (Prometheus names are `[a-zA-Z_][a-zA-Z0-9_]*`, so neither is needed often).
//
// An encoding longer than v1 allows (255 / 64) is cut and ends in a 64-bit hash of the
// whole original (`\:` + 16 hex for values, `-` + 16 hex for names): still distinct, no
// longer reversible. docs/scrape.md shows examples.
import { createHash } from 'node:crypto';

/** The v1 tag charsets (the API spec's "Tagged measurement"). */
export const TAG_NAME = /^[-.:_A-Za-z0-9]{1,64}$/;
export const TAG_VALUE = /^[-.:_?\\/A-Za-z0-9 ]{1,255}$/;
const MAX_NAME = 64;
const MAX_VALUE = 255;

/** Label names and values that map to themselves. */
const PLAIN_NAME = /^[a-z0-9_]{1,64}$/;
const PLAIN_VALUE = /^[a-z0-9 _.:/-]{1,255}$/;

const SPECIAL_VALUES: ReadonlyMap<string, string> = new Map([['+Inf', 'inf'], ['-Inf', '-inf'], ['NaN', 'nan']]);
const SPECIAL_TAGS: ReadonlyMap<string, string> = new Map([...SPECIAL_VALUES].map(([k, v]) => [v, k]));

interface Scheme {
  /** characters other than a-z that stand for themselves */
  plain: string;
  toggle: string;
  escape: string;
  /** put between the cut encoding and the hash */
  hashMark: string;
  max: number;
}

const VALUE_SCHEME: Scheme = { plain: '0123456789 _.:/-', toggle: '?', escape: '\\', hashMark: '\\:', max: MAX_VALUE };
const NAME_SCHEME: Scheme = { plain: '0123456789_', toggle: '.', escape: ':', hashMark: '-', max: MAX_NAME };

/** The tag name for a label name; null for the empty name, which no tag can have. */
export function tagName(labelName: string): string | null {
  if (PLAIN_NAME.test(labelName)) return labelName;
  return labelName === '' ? null : encode(labelName, NAME_SCHEME);
}

/** The tag value for a label value; null for the empty value, which in Prometheus means "no label". */
export function tagValue(labelValue: string): string | null {
  if (PLAIN_VALUE.test(labelValue) && !SPECIAL_TAGS.has(labelValue)) return labelValue;
  if (labelValue === '') return null;
  return SPECIAL_VALUES.get(labelValue) ?? encode(labelValue, VALUE_SCHEME);
}

/** The label name a tag name came from, or null if it cannot be told (hashed or malformed). */
export function labelName(tag: string): string | null {
  return decode(tag, NAME_SCHEME);
}

/** The label value a tag value came from, or null if it cannot be told (hashed or malformed). */
export function labelValue(tag: string): string | null {
  return SPECIAL_TAGS.get(tag) ?? decode(tag, VALUE_SCHEME);
}

/**
 * The tags of a label set, sorted by name: labels whose name starts with `__` are
 * internal to scraping and dropped, as are empty values.
 */
export function tagsOf(labels: Iterable<readonly [string, string]>): Array<[string, string]> {
  const tags: Array<[string, string]> = [];
  for (const [name, value] of labels) {
    if (name.startsWith('__')) continue;
    const n = tagName(name);
    const v = tagValue(value);
    if (n !== null && v !== null) tags.push([n, v]);
  }
  return tags.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function encode(text: string, scheme: Scheme): string {
  let out = '';
  let upper = false;
  for (const ch of text) {
    // past the bound only the hash of the whole text is added: encoding the rest of a
    // 120 kB value cost 20 ms of the request thread, for characters then cut off
    if (out.length > scheme.max) break;
    if (ch >= 'a' && ch <= 'z') {
      if (upper) { out += scheme.toggle; upper = false; }
      out += ch;
    } else if (ch >= 'A' && ch <= 'Z') {
      if (!upper) { out += scheme.toggle; upper = true; }
      out += ch.toLowerCase();
    } else if (scheme.plain.includes(ch)) {
      out += ch;
    } else {
      for (const byte of Buffer.from(ch, 'utf8')) out += scheme.escape + byte.toString(16).padStart(2, '0');
    }
  }
  // A plain lower-case value never reaches here unless it is one of the special words.
  if (scheme === VALUE_SCHEME && SPECIAL_TAGS.has(out)) out = `\\${out.charCodeAt(0).toString(16)}${out.slice(1)}`;
  if (out.length <= scheme.max) return out;
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  return out.slice(0, scheme.max - scheme.hashMark.length - hash.length) + scheme.hashMark + hash;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function decode(tag: string, scheme: Scheme): string | null {
  if (tag === '' || tag.includes(scheme.hashMark)) return null;
  let out = '';
  let upper = false;
  for (let i = 0; i < tag.length; i++) {
    const ch = tag[i]!;
    if (ch === scheme.toggle) {
      upper = !upper;
    } else if (ch === scheme.escape) {
      // A run of escapes is the UTF-8 of one or more characters.
      const bytes: number[] = [];
      while (tag[i] === scheme.escape) {
        const hex = tag.slice(i + 1, i + 3);
        if (!/^[0-9a-f]{2}$/.test(hex)) return null;
        bytes.push(parseInt(hex, 16));
        i += 3;
      }
      i--;
      try {
        out += UTF8.decode(new Uint8Array(bytes));
      } catch {
        return null;
      }
    } else {
      out += upper ? ch.toUpperCase() : ch;
    }
  }
  return out;
}
