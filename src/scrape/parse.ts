// The Prometheus text format 0.0.4 and OpenMetrics 1.0 text, parsed a line at a time
// from chunks as they arrive. One hand-written scanner serves both formats; `om` switches
// on OpenMetrics' stricter spacing, its extra types, exemplars and the final `# EOF`.
// The scanner walks each line once with charCodeAt (no regex per character, no tokens);
// the only allocations per sample are the sample itself, its label array and its strings.
// With a SeriesMemo (one per target), a label set seen in an earlier scrape is looked up
// by its text instead of scanned again, so a steady target's lines cost two slices each.
// A line longer than `maxLineLength` is refused as soon as it is seen, not buffered.
import { detached } from '../tsdb/sample.js';
import { StringPool } from './shared-strings.js';

/** The Accept header Prometheus 2 sends: OpenMetrics preferred, the text format next. */
export const SCRAPE_ACCEPT =
  'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1';

export type ExpositionFormat = 'text' | 'openmetrics';

/** Family types as declared by `# TYPE`; `untyped` (text) and `unknown` (OpenMetrics) when none is. */
export type FamilyType = 'counter' | 'gauge' | 'histogram' | 'gaugehistogram' | 'summary' | 'info' | 'stateset' | 'unknown' | 'untyped';

const TEXT_TYPES: ReadonlySet<string> = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const OM_TYPES: ReadonlySet<string> = new Set(['counter', 'gauge', 'histogram', 'gaugehistogram', 'summary', 'info', 'stateset', 'unknown']);

export interface ScrapedSample {
  name: string;
  /** the type of the family the sample belongs to */
  type: FamilyType;
  /**
   * The v1 metric type it is stored as: counters' `_total`, and histograms' and summaries'
   * `_bucket`, `_count` and `_sum` only go up, so they are counters; everything else,
   * `_created` timestamps included, is a gauge.
   */
  kind: 'counter' | 'gauge';
  /**
   * name, value, name, value, ... in exposition order, values unescaped (shared between
   * the samples of one series when a SeriesMemo is used: never modified)
   */
  labels: readonly string[];
  /**
   * The series as written, name and label set (`name{a="b"}`): the same text in every
   * scrape of a steady target, which makes it the key of per-target caches.
   */
  series: string;
  value: number;
  /** false for NaN and ±Inf, which v1 cannot store: the caller skips and counts them */
  finite: boolean;
  /** epoch milliseconds from the exposition, or null */
  timestampMs: number | null;
}

export interface FamilyMeta {
  type: FamilyType | null;
  help: string | null;
  unit: string | null;
}

export interface ParseOptions {
  /** longest line accepted, in characters (default 128 KiB) */
  maxLineLength?: number;
  /** label sets parsed before, kept from one parse of a target to the next */
  memo?: SeriesMemo;
}

interface MemoEntry {
  /** the series as written, name and label set */
  series: string;
  name: string;
  labels: readonly string[];
  /** the label canonicalised when it was parsed (it depends on the family's TYPE) */
  floatLabel: string | null;
  /** the parse it was last used in, and its place in that parse's order */
  seen: number;
  at: number;
}

/**
 * The label sets of one target's series by their text as written. A label set is a
 * prefix-free code: a line that starts with the text of a complete label set parsed
 * before has that label set, so a hit needs no scan of the line's labels at all.
 * A steady target exposes its series in the same order every time, so the memo first
 * tries the series that followed the last hit in the previous parse: one comparison of
 * the line's text, without cutting it out or hashing it.
 */
export class SeriesMemo {
  private readonly entries = new Map<string, MemoEntry>();
  private parses = 0;
  /** the entries in the order the previous parse used them, and this parse's so far */
  private previous: MemoEntry[] = [];
  private order: MemoEntry[] = [];
  /** where in `previous` the next line's series is expected */
  private next = 0;
  private format: ExpositionFormat | null = null;
  /** names and label strings, one copy each for all the target's series (shared-strings.ts) */
  private readonly strings = new StringPool();

  get size(): number {
    return this.entries.size;
  }

  /**
   * A parse starts: entries used now are kept by the sweep at its end. A target that
   * changed format starts afresh: a label set's text means what its format says.
   */
  begin(format: ExpositionFormat): void {
    if (format !== this.format) {
      this.entries.clear();
      this.strings.clear();
      this.order = [];
      this.format = format;
    }
    this.parses++;
    this.previous = this.order;
    this.order = [];
    this.next = 0;
  }

  /** The entry expected at `pos` (the start of a line's name), if the line starts with its text. */
  expected(s: string, pos: number): MemoEntry | undefined {
    const e = this.previous[this.next];
    return e !== undefined && s.startsWith(e.series, pos) ? e : undefined;
  }

  get(series: string, floatLabel: string | null): MemoEntry | undefined {
    const e = this.entries.get(series);
    return e === undefined || e.floatLabel !== floatLabel ? undefined : e;
  }

  /** A line had this entry's series. */
  use(e: MemoEntry): void {
    // its place in the previous parse, if it was in it, predicts the next line's series
    if (e.seen === this.parses - 1) this.next = e.at + 1;
    e.seen = this.parses;
    e.at = this.order.length;
    this.order.push(e);
  }

  set(series: string, name: string, labels: readonly string[], floatLabel: string | null): MemoEntry {
    // copies: slices of this scrape's body would keep it alive as long as the series lasts
    const strings = this.strings;
    const e: MemoEntry = { series: detached(series), name: strings.get(name), labels: labels.map((l) => strings.get(l)), floatLabel, seen: -1, at: 0 };
    this.entries.set(e.series, e);
    this.use(e);
    return e;
  }

  /** After a parse: forgets series absent from it and the one before. */
  sweep(): void {
    const entries = this.entries;
    for (const [series, e] of entries) if (e.seen < this.parses - 1) entries.delete(series);
    this.strings.trim(entries.size, function* () {
      for (const e of entries.values()) {
        yield e.name;
        yield* e.labels;
      }
    });
  }
}

export const DEFAULT_MAX_LINE_LENGTH = 128 * 1024;

export class ExpositionError extends Error {
  /** 1-based line of the problem; 0 when it is about the response as a whole */
  readonly line: number;
  constructor(line: number, message: string) {
    super(line > 0 ? `line ${line}: ${message}` : message);
    this.name = 'ExpositionError';
    this.line = line;
  }
}

/**
 * The format of a response by its Content-Type. No Content-Type is read as the text
 * format (as simple exporters often send none); any other type is refused by name, so a
 * login page or a protobuf body gets a clear error rather than a confusing parse failure.
 */
export function formatForContentType(contentType: string | null | undefined): ExpositionFormat {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (media === 'application/openmetrics-text') return 'openmetrics';
  if (media === 'text/plain' || media === '') return 'text';
  throw new ExpositionError(0, `unsupported Content-Type "${contentType}": expected text/plain (version 0.0.4) or application/openmetrics-text`);
}

/** Parses a whole exposition at once; see ExpositionParser for the streaming form. */
export function parseExposition(text: string, format: ExpositionFormat, options?: ParseOptions): ScrapedSample[] {
  const samples: ScrapedSample[] = [];
  const parser = new ExpositionParser(format, (s) => samples.push(s), options);
  parser.push(text);
  parser.end();
  return samples;
}

interface Resolved {
  type: FamilyType;
  kind: 'counter' | 'gauge';
  /** the label whose numeric value is put in canonical form: `le` of buckets, `quantile` of summaries */
  floatLabel: string | null;
}

/** Which sample-name suffixes belong to a family of each type, and what they are stored as. */
const SUFFIXES: Readonly<Record<string, Readonly<Partial<Record<FamilyType, 'counter' | 'gauge'>>>>> = {
  _total: { counter: 'counter' },
  _created: { counter: 'gauge', histogram: 'gauge', summary: 'gauge' },
  _bucket: { histogram: 'counter', gaugehistogram: 'gauge' },
  _count: { histogram: 'counter', summary: 'counter' },
  _sum: { histogram: 'counter', summary: 'counter' },
  _gcount: { gaugehistogram: 'gauge' },
  _gsum: { gaugehistogram: 'gauge' },
  _info: { info: 'gauge' },
};

const NO_LABELS: readonly string[] = [];

const TAB = 9, SPACE = 32, QUOTE = 34, HASH = 35, COMMA = 44, EQUALS = 61, BACKSLASH = 92, LBRACE = 123, RBRACE = 125, CR = 13;

const isBlank = (c: number) => c === SPACE || c === TAB;
const isLabelStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isLabelChar = (c: number) => isLabelStart(c) || (c >= 48 && c <= 57);
const isNameStart = (c: number) => isLabelStart(c) || c === 58;
const isNameChar = (c: number) => isLabelChar(c) || c === 58;

/**
 * Feed it chunks with push() and call end() when the body is complete; every sample is
 * handed to `onSample` as its line is parsed. An error (ExpositionError, with the line)
 * is thrown from push() or end() and again on any later call: the scrape has failed, and
 * the samples already delivered must be discarded with it, as Prometheus discards a
 * scrape that does not parse to the end. An error thrown by `onSample` (a sample limit,
 * say) ends the parse the same way and is passed on unchanged.
 */
export class ExpositionParser {
  /** HELP, TYPE and UNIT per family name, as far as parsed */
  readonly families = new Map<string, FamilyMeta>();
  private readonly om: boolean;
  private readonly maxLine: number;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private pending = '';
  private line = 0;
  private eof = false;
  private failed = false;
  private failure: unknown = null;
  /** an error thrown by onSample, passed on as it is (a caller's sample limit, say) */
  private sinkError: unknown = null;
  private readonly resolved = new Map<string, Resolved>();
  private lastName = '';
  private lastResolved: Resolved | null = null;

  private readonly memo: SeriesMemo | null;

  constructor(format: ExpositionFormat, private readonly onSample: (s: ScrapedSample) => void, options: ParseOptions = {}) {
    this.om = format === 'openmetrics';
    this.maxLine = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
    this.memo = options.memo ?? null;
    this.memo?.begin(format);
  }

  /** Lines parsed so far. */
  get lines(): number {
    return this.line;
  }

  push(chunk: string | Uint8Array): void {
    this.guard(() => this.consume(typeof chunk === 'string' ? chunk : this.decode(chunk, true)));
  }

  end(): void {
    this.guard(() => {
      const rest = this.decode(new Uint8Array(0), false);
      if (rest) this.consume(rest);
      if (this.pending !== '') {
        const last = this.pending;
        this.pending = '';
        this.parseLine(last, 0, last.length);
      }
      if (this.om && !this.eof) throw this.error('the exposition does not end with "# EOF" (required in OpenMetrics)');
      this.memo?.sweep();
    });
  }

  private guard(work: () => void): void {
    if (this.failed) throw this.failure;
    try {
      work();
    } catch (e) {
      this.failed = true;
      // what this parse remembered goes with what the last one did not see, as at a good end
      this.memo?.sweep();
      this.failure = e instanceof ExpositionError || e === this.sinkError ? e : this.error(`cannot parse: ${e instanceof Error ? e.message : String(e)}`);
      throw this.failure;
    }
  }

  private decode(bytes: Uint8Array, stream: boolean): string {
    try {
      return this.decoder.decode(bytes, { stream });
    } catch {
      throw this.error('the body is not valid UTF-8');
    }
  }

  private error(message: string, at?: { s: string; pos: number }): ExpositionError {
    // (the text is the chunk being parsed: the quote stops at the end of the line)
    const lineEnd = at ? at.s.indexOf('\n', at.pos) : -1;
    const near = at ? `, at ${JSON.stringify(at.s.slice(at.pos, Math.min(at.pos + 40, lineEnd < 0 ? at.s.length : lineEnd)))}` : '';
    return new ExpositionError(Math.max(this.line, 1), message + near);
  }

  private consume(text: string): void {
    let start = 0;
    if (this.pending !== '') {
      const nl = text.indexOf('\n');
      if (nl < 0) {
        if (this.pending.length + text.length > this.maxLine) throw this.tooLong();
        this.pending += text;
        return;
      }
      const line = this.pending + text.slice(0, nl);
      this.pending = '';
      this.checkLength(line.length);
      this.parseLine(line, 0, line.length);
      start = nl + 1;
    }
    for (let nl = text.indexOf('\n', start); nl >= 0; nl = text.indexOf('\n', start)) {
      this.checkLength(nl - start);
      this.parseLine(text, start, nl);
      start = nl + 1;
    }
    if (start < text.length) {
      if (text.length - start > this.maxLine) throw this.tooLong();
      this.pending = text.slice(start);
    }
  }

  private checkLength(length: number): void {
    if (length > this.maxLine) throw this.tooLong();
  }

  private tooLong(): ExpositionError {
    this.line++;
    return this.error(`line longer than ${this.maxLine} characters`);
  }

  private parseLine(s: string, start: number, end: number): void {
    this.line++;
    if (this.eof) throw this.error('unexpected data after "# EOF"');
    if (this.om) {
      if (start === end) throw this.error('empty line (not allowed in OpenMetrics)');
    } else {
      if (end > start && s.charCodeAt(end - 1) === CR) end--;
      while (start < end && isBlank(s.charCodeAt(start))) start++;
      if (start === end) return;
    }
    if (s.charCodeAt(start) === HASH) this.comment(s, start, end);
    else this.sample(s, start, end);
  }

  // ---- # lines ----

  private comment(s: string, pos: number, end: number): void {
    if (this.om) return this.omComment(s, pos, end);
    // The text format: `# HELP name text`, `# TYPE name type`; any other # line is a comment.
    let p = pos + 1;
    if (p >= end || !isBlank(s.charCodeAt(p))) return;
    while (p < end && isBlank(s.charCodeAt(p))) p++;
    const keyword = s.startsWith('HELP', p) ? 'HELP' : s.startsWith('TYPE', p) ? 'TYPE' : null;
    if (!keyword || p + 4 >= end || !isBlank(s.charCodeAt(p + 4))) return;
    p += 4;
    while (p < end && isBlank(s.charCodeAt(p))) p++;
    const nameEnd = this.metricNameEnd(s, p, end, `a metric name after ${keyword}`);
    const name = s.slice(p, nameEnd);
    if (nameEnd < end && !isBlank(s.charCodeAt(nameEnd))) throw this.error(`expected a space after the metric name in ${keyword}`, { s, pos: nameEnd });
    const text = nameEnd < end ? s.slice(nameEnd + 1, end) : '';
    if (keyword === 'HELP') this.setHelp(name, unescapeHelp(text, false));
    else this.setType(name, text.trim(), TEXT_TYPES);
  }

  private omComment(s: string, pos: number, end: number): void {
    if (end - pos === 5 && s.startsWith('# EOF', pos)) {
      this.eof = true;
      return;
    }
    const keyword = s.startsWith('# HELP ', pos) ? 'HELP' : s.startsWith('# TYPE ', pos) ? 'TYPE' : s.startsWith('# UNIT ', pos) ? 'UNIT' : null;
    if (!keyword) throw this.error('expected "# HELP", "# TYPE", "# UNIT" or "# EOF" (OpenMetrics has no other comments)', { s, pos });
    const p = pos + 7;
    const nameEnd = this.metricNameEnd(s, p, end, `a metric name after ${keyword}`);
    if (nameEnd >= end || s.charCodeAt(nameEnd) !== SPACE) throw this.error(`expected a space after the metric name in ${keyword}`, { s, pos: nameEnd });
    const name = s.slice(p, nameEnd);
    const text = s.slice(nameEnd + 1, end);
    if (keyword === 'HELP') this.setHelp(name, unescapeHelp(text, true));
    else if (keyword === 'TYPE') this.setType(name, text, OM_TYPES);
    else this.setUnit(name, text);
  }

  private family(name: string): FamilyMeta {
    let f = this.families.get(name);
    if (!f) {
      f = { type: null, help: null, unit: null };
      this.families.set(name, f);
    }
    return f;
  }

  /** A second HELP for a family is ignored: the first one stays. */
  private setHelp(name: string, help: string): void {
    const f = this.family(name);
    f.help ??= help;
  }

  private setType(name: string, type: string, allowed: ReadonlySet<string>): void {
    if (!allowed.has(type)) throw this.error(`unknown metric type "${type}" for ${name} (expected one of ${[...allowed].join(', ')})`);
    const f = this.family(name);
    if (f.type !== null && f.type !== type) throw this.error(`second TYPE for ${name}: "${type}" after "${f.type}"`);
    f.type = type as FamilyType;
    // Names resolved before this line may belong to this family from now on.
    this.resolved.clear();
    this.lastResolved = null;
  }

  private setUnit(name: string, unit: string): void {
    if (unit !== '' && !(name.endsWith(unit) && name.length > unit.length && name.charCodeAt(name.length - unit.length - 1) === 95)) {
      throw this.error(`unit "${unit}" is not a suffix of the metric name ${name} (OpenMetrics wants ${name}_${unit} or similar)`);
    }
    this.family(name).unit = unit;
  }

  private metricNameEnd(s: string, pos: number, end: number, what: string): number {
    if (pos >= end || !isNameStart(s.charCodeAt(pos))) throw this.error(`expected ${what}`, { s, pos });
    let p = pos + 1;
    while (p < end && isNameChar(s.charCodeAt(p))) p++;
    return p;
  }

  // ---- samples ----

  private sample(s: string, pos: number, end: number): void {
    const om = this.om;
    const memo = this.memo;
    let name: string;
    let r: Resolved;
    let labels: readonly string[] = NO_LABELS;
    let series: string;
    let p: number;
    const expected = memo?.expected(s, pos);
    if (expected !== undefined && (r = this.resolve(expected.name)).floatLabel === expected.floatLabel) {
      memo!.use(expected);
      ({ name, labels, series } = expected);
      p = pos + series.length;
    } else {
      p = this.metricNameEnd(s, pos, end, 'a metric name, a "#" line or an empty line');
      name = s.slice(pos, p);
      r = this.resolve(name);
      series = name;
      if (!om) {
        const afterName = p;
        while (p < end && isBlank(s.charCodeAt(p))) p++;
        if (p < end && s.charCodeAt(p) !== LBRACE && p === afterName) throw this.error('expected "{" or a space after the metric name', { s, pos: p });
      }
      if (p < end && s.charCodeAt(p) === LBRACE) {
        // The first "}" ends the label set unless a label value holds one; then the text
        // up to it is no complete label set and cannot be in the memo.
        const close = memo ? s.indexOf('}', p) : -1;
        const known = close >= 0 && close < end ? memo!.get((series = s.slice(pos, close + 1)), r.floatLabel) : undefined;
        if (known) {
          memo!.use(known);
          labels = known.labels;
          series = known.series;
          p = close + 1;
        } else {
          const parsed: string[] = [];
          p = this.labels(s, p + 1, end, parsed, r.floatLabel);
          series = s.slice(pos, p);
          if (memo) ({ labels, series } = memo.set(series, name, parsed, r.floatLabel));
          else labels = parsed;
        }
      }
    }
    if (labels !== NO_LABELS && !om) while (p < end && isBlank(s.charCodeAt(p))) p++;
    if (om) p = this.space(s, p, end, 'the value');
    if (p >= end) throw this.error(`expected a value for ${name}`);
    let q = tokenEnd(s, p, end);
    const value = plainDecimal(s, p, q) ?? parseNumber(s.slice(p, q));
    if (value === undefined) throw this.error(`invalid value for ${name}`, { s, pos: p });
    let timestampMs: number | null = null;
    p = q;
    if (om) {
      if (p < end && !s.startsWith(' # ', p)) {
        p = this.space(s, p, end, 'a timestamp');
        q = tokenEnd(s, p, end);
        timestampMs = this.omTimestamp(s, p, q);
        p = q;
      }
      if (p < end) p = this.exemplar(s, p, end);
    } else {
      while (p < end && isBlank(s.charCodeAt(p))) p++;
      if (p < end) {
        // an int64 of milliseconds, negative ones included (before 1970), as Prometheus reads it
        const digits = s.charCodeAt(p) === 45 ? p + 1 : p;
        q = digits;
        while (q < end && s.charCodeAt(q) >= 48 && s.charCodeAt(q) <= 57) q++;
        if (q === digits) throw this.error('expected a timestamp in milliseconds or the end of the line', { s, pos: p });
        timestampMs = Number(s.slice(p, q));
        p = q;
        while (p < end && isBlank(s.charCodeAt(p))) p++;
      }
    }
    if (p < end) throw this.error('unexpected text after the sample', { s, pos: p });
    try {
      this.onSample({ name, type: r.type, kind: r.kind, labels, series, value, finite: Number.isFinite(value), timestampMs });
    } catch (e) {
      this.sinkError = e;
      throw e;
    }
  }

  /** Parses `name="value",...}` from just after the `{`; returns the position after the `}`. */
  private labels(s: string, pos: number, end: number, out: string[] | null, floatLabel: string | null): number {
    const om = this.om;
    let p = pos;
    for (;;) {
      if (!om) while (p < end && isBlank(s.charCodeAt(p))) p++;
      if (p >= end) throw this.error('unterminated label set: expected "}"');
      if (s.charCodeAt(p) === RBRACE) return p + 1;
      if (!isLabelStart(s.charCodeAt(p))) throw this.error('expected a label name', { s, pos: p });
      const nameStart = p;
      while (p < end && isLabelChar(s.charCodeAt(p))) p++;
      const name = s.slice(nameStart, p);
      if (!om) while (p < end && isBlank(s.charCodeAt(p))) p++;
      if (s.charCodeAt(p) !== EQUALS) throw this.error(`expected "=" after the label name ${name}`, { s, pos: p });
      p++;
      if (!om) while (p < end && isBlank(s.charCodeAt(p))) p++;
      if (s.charCodeAt(p) !== QUOTE) throw this.error(`expected a quoted value for the label ${name}`, { s, pos: p });
      p++;
      // Fast path: no backslash before the closing quote, so the value is a plain slice.
      const valueStart = p;
      let escaped = false;
      while (p < end) {
        const c = s.charCodeAt(p);
        if (c === QUOTE) break;
        if (c === BACKSLASH) {
          escaped = true;
          p++;
        }
        p++;
      }
      if (p >= end) throw this.error(`unterminated value for the label ${name}`);
      if (out) {
        let value = escaped ? unescapeLabel(s, valueStart, p) : s.slice(valueStart, p);
        if (name === floatLabel) value = canonicalFloat(value);
        for (let i = 0; i < out.length; i += 2) {
          if (out[i] === name) throw this.error(`label ${name} appears twice`);
        }
        out.push(name, value);
      }
      p++;
      if (!om) while (p < end && isBlank(s.charCodeAt(p))) p++;
      const c = s.charCodeAt(p);
      if (c === COMMA) p++;
      else if (c !== RBRACE) throw this.error('expected "," or "}" after a label value', { s, pos: p });
    }
  }

  private space(s: string, p: number, end: number, what: string): number {
    if (p >= end || s.charCodeAt(p) !== SPACE) throw this.error(`expected one space before ${what}`, { s, pos: p });
    return p + 1;
  }

  /** OpenMetrics timestamps are seconds, with a fraction. */
  private omTimestamp(s: string, p: number, q: number): number {
    const seconds = parseNumber(s.slice(p, q));
    if (seconds === undefined || !Number.isFinite(seconds)) throw this.error('invalid timestamp (OpenMetrics wants seconds, such as 1700000000.123)', { s, pos: p });
    return Math.round(seconds * 1000);
  }

  /** ` # {labels} value [timestamp]` after an OpenMetrics sample: checked, then ignored. */
  private exemplar(s: string, p: number, end: number): number {
    if (!s.startsWith(' # {', p)) throw this.error('unexpected text after the sample', { s, pos: p });
    p = this.labels(s, p + 4, end, null, null);
    p = this.space(s, p, end, 'the exemplar value');
    let q = tokenEnd(s, p, end);
    if (parseNumber(s.slice(p, q)) === undefined) throw this.error('invalid exemplar value', { s, pos: p });
    if (q < end) {
      p = this.space(s, q, end, 'the exemplar timestamp');
      q = tokenEnd(s, p, end);
      this.omTimestamp(s, p, q);
    }
    return q;
  }

  private resolve(name: string): Resolved {
    if (this.lastResolved && name === this.lastName) return this.lastResolved;
    let r = this.resolved.get(name);
    if (!r) {
      r = this.resolveUncached(name);
      this.resolved.set(name, r);
    }
    this.lastName = name;
    this.lastResolved = r;
    return r;
  }

  /**
   * The family of a sample name: a family of that exact name, else one whose name is the
   * sample's less a suffix that family's type has (`x_bucket` of histogram `x`), else none.
   */
  private resolveUncached(name: string): Resolved {
    const own = this.families.get(name)?.type;
    if (own) return { type: own, kind: own === 'counter' ? 'counter' : 'gauge', floatLabel: own === 'summary' ? 'quantile' : null };
    for (const suffix in SUFFIXES) {
      if (!name.endsWith(suffix)) continue;
      const type = this.families.get(name.slice(0, -suffix.length))?.type;
      const kind = type ? SUFFIXES[suffix]![type] : undefined;
      if (type && kind) return { type, kind, floatLabel: suffix === '_bucket' ? 'le' : null };
    }
    return { type: this.om ? 'unknown' : 'untyped', kind: 'gauge', floatLabel: null };
  }
}

function tokenEnd(s: string, p: number, end: number): number {
  while (p < end && !isBlank(s.charCodeAt(p))) p++;
  return p;
}

const TEN_POWERS = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * The value of s[p, q) when it is a plain decimal of at most 15 digits (`-12.5`, `3`,
 * `0.001`), read in place; undefined for anything else, which parseNumber then reads.
 * Most exposed values are such decimals, and reading them here spares cutting each one
 * out as a string. Exact: an integer below 2^53 divided by a power of ten up to 1e15 is
 * the correctly rounded double, as Number() would give (both operands are exact).
 */
export function plainDecimal(s: string, p: number, q: number): number | undefined {
  let i = p;
  const negative = s.charCodeAt(i) === 45;
  if (negative || s.charCodeAt(i) === 43) i++;
  let digits = 0;
  let fraction = -1;
  let m = 0;
  for (; i < q; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      digits++;
    } else if (c === 46 && fraction < 0) {
      fraction = digits;
    } else {
      return undefined;
    }
  }
  if (digits === 0 || digits > 15) return undefined;
  const v = fraction < 0 ? m : m / TEN_POWERS[digits - fraction]!;
  return negative ? -v : v;
}

// Unambiguous (each digit run has one way to match), so it runs in linear time on any input.
const DECIMAL = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/** A float as Go's ParseFloat reads one (decimal, `NaN`, `+Inf`, `-Inf`), or undefined. */
export function parseNumber(token: string): number | undefined {
  if (DECIMAL.test(token)) return Number(token);
  const m = SPECIAL.exec(token);
  if (!m) return undefined;
  if (m[2]!.toLowerCase() === 'nan') return m[1] === '' ? NaN : undefined;
  return m[1] === '-' ? -Infinity : Infinity;
}

/**
 * `le` and `quantile` values in canonical float form (`1` -> `1.0`, `+inf` -> `+Inf`), as
 * Prometheus 3 writes them, so a series keeps its labels whichever format it came in.
 */
export function canonicalFloat(value: string): string {
  const f = parseNumber(value);
  if (f === undefined) return value;
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (Number.isNaN(f)) return 'NaN';
  if (f === 0) return Object.is(f, -0) ? '-0.0' : '0.0';
  // Go's strconv 'g' with the shortest precision: exponent form below 1e-4 and from 1e6.
  const [mantissa, e] = f.toExponential().split('e') as [string, string];
  const exp = Number(e);
  const out = exp < -4 || exp >= 6 ? `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}` : String(f);
  return /[.e]/.test(out) ? out : `${out}.0`;
}

/** Label values: `\\`, `\"` and `\n`; any other backslash stays as it is (as in Prometheus). */
function unescapeLabel(s: string, start: number, end: number): string {
  let out = '';
  let run = start;
  for (let i = start; i < end; i++) {
    if (s.charCodeAt(i) !== BACKSLASH) continue;
    const next = s[i + 1];
    const replacement = next === '\\' ? '\\' : next === '"' ? '"' : next === 'n' ? '\n' : null;
    if (replacement !== null) {
      out += s.slice(run, i) + replacement;
      run = i + 2;
    }
    i++;
  }
  return out + s.slice(run, end);
}

/** HELP text: `\\` and `\n`, and in OpenMetrics also `\"`. */
function unescapeHelp(text: string, om: boolean): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\(.)/g, (all, c: string) => (c === '\\' ? '\\' : c === 'n' ? '\n' : c === '"' && om ? '"' : all));
}
