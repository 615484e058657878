// The fast path of POST /v1/measurements: scans the JSON text of the common body shape
// ({"time", "tags", "measurements": [{"name", "tags", "value", "time"}]}) and builds
// typed columns directly (no object a measurement), without JSON.parse's object tree, the
// body inspector's walk or one hashed string per tag value (a tag map is looked up by its
// raw text and handed on as a number, tag-sets.ts). Pure, so it runs on a parse thread.
//
// It never decides anything on its own: whatever it does not recognise or cannot accept
// (other keys, escapes, count/sum, a bad name, tag or time, duplicate keys, invalid JSON)
// makes it return null, and the caller parses the same text the ordinary way, which
// names every error. So it accepts only bodies the ordinary path accepts, with the same
// result.
import { detached, rowColumns, ROW_BYTES, type TagPairs, type ValueColumns } from '../tsdb/sample.js';
import { MAX_MAGNITUDE, MIN_MAGNITUDE } from './float-limits.js';
import { cachedMetricName, tagsOfObject, type TaggedBatch, type TaggedLimits } from './tagged.js';
import { FORBIDDEN_KEYS } from '../schema/inspect.js';
import { TagSetIds } from './tag-sets.js';

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/** The numbering of this thread's scans (only valid maps are remembered). */
export const threadTagSets = new TagSetIds();

/** A batch in columns, and what it says about each metric it names. */
export interface ScannedBatch {
  values: ValueColumns;
  metricInputs: TaggedBatch['metricInputs'];
}


/** The UTF-8 text of a body, a byte-order mark dropped (as co-body reads it). */
export function bodyText(bytes: Uint8Array): string {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** `parseTaggedFast` of a body's bytes. */
export function scanTaggedBody(bytes: Uint8Array, limits: TaggedLimits, maxDepth: number, tagSets: TagSetIds = threadTagSets): ScannedBatch | null {
  return parseTaggedFast(bodyText(bytes), limits, maxDepth, tagSets);
}

/** The shortest measurement, `{"name":"a","value":1}`: a bound on the rows of a text. */
const MIN_MEASUREMENT_CHARS = 22;

const Q = 0x22; // "
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJ = 0x7b;
const CLOSE_OBJ = 0x7d;
const OPEN_ARR = 0x5b;
const CLOSE_ARR = 0x5d;

// Keys the scanner knows, as bits, so a repeated key (JSON.parse keeps the last) bails.
const K_NAME = 1, K_TAGS = 2, K_VALUE = 4, K_TIME = 8, K_MEASUREMENTS = 16;

class Bail extends Error {}
const BAIL = new Bail();

/**
 * The batch of a body in the common shape, or null: parse it the ordinary way then.
 * `maxDepth` is the body depth limit; bodies this path accepts nest 4 levels.
 */
export function parseTaggedFast(text: string, limits: TaggedLimits, maxDepth: number, tagSets: TagSetIds = threadTagSets): ScannedBatch | null {
  if (maxDepth < 4) return null;
  if (limits.tagSets !== undefined) tagSets.limit = limits.tagSets;
  try {
    return new Scanner(text, limits, tagSets).body();
  } catch (err) {
    if (err === BAIL) return null;
    throw err;
  }
}

class Scanner {
  private pos = 0;
  /** end of the last string scanned (exclusive of its closing quote) */
  private strStart = 0;
  private strEnd = 0;
  /** the raw text and canonical form of the last metric name seen */
  private lastRawName = '';
  private lastName = '';
  /** the batch index of the last metric name seen */
  private lastMetric = -1;
  private readonly metrics: string[] = [];
  private readonly metricIndex = new Map<string, number>();
  /** the rows; sized for the most measurements the text can hold */
  private n = 0;
  private readonly rowTime: Float64Array;
  private readonly rowValue: Float64Array;
  private readonly rowMetric: Uint32Array;
  private readonly rowTag: Uint32Array;
  private readonly generation: number;

  constructor(private readonly s: string, private readonly limits: TaggedLimits, private readonly tagSets: TagSetIds) {
    const cap = Math.floor(s.length / MIN_MEASUREMENT_CHARS) + 1;
    ({ time: this.rowTime, value: this.rowValue, metric: this.rowMetric, tag: this.rowTag } = rowColumns(new ArrayBuffer(cap * ROW_BYTES), cap));
    this.generation = tagSets.generation;
  }

  body(): ScannedBatch {
    let seen = 0;
    let topTime = this.limits.now;
    let topTags = -1;
    let batch: ScannedBatch | null = null;
    this.ws();
    this.expect(OPEN_OBJ);
    this.ws();
    for (;;) {
      const key = this.key();
      if (seen & key) throw BAIL;
      // top-level time and tags after the measurements: rare, left to the ordinary path
      if (batch !== null && key !== K_MEASUREMENTS) throw BAIL;
      seen |= key;
      if (key === K_TIME) topTime = this.time();
      else if (key === K_TAGS) topTags = this.tags();
      else if (key === K_MEASUREMENTS) batch = this.measurements(topTime, topTags);
      else throw BAIL;
      if (!this.more(CLOSE_OBJ)) break;
    }
    this.ws();
    if (this.pos !== this.s.length || batch === null) throw BAIL;
    return batch;
  }

  private measurements(topTime: number, topTags: number): ScannedBatch {
    const metricInputs: TaggedBatch['metricInputs'] = new Map();
    this.expect(OPEN_ARR);
    this.ws();
    if (this.peek() === CLOSE_ARR) throw BAIL;
    for (;;) {
      const before = this.metrics.length;
      this.measurement(topTime, topTags);
      // (the last name scanned is this measurement's: a new metric keeps its spelling)
      if (this.metrics.length > before) {
        const name = this.lastName;
        metricInputs.set(name, this.lastRawName !== name ? { input: {}, index: this.n - 1, spelling: this.lastRawName } : { input: {}, index: this.n - 1 });
      }
      if (!this.more(CLOSE_ARR)) break;
    }
    if (this.tagSets.generation !== this.generation) throw BAIL; // numbered in two generations
    const n = this.n;
    const values: ValueColumns = {
      length: n, metrics: this.metrics, metric: this.rowMetric, tagSets: this.tagSets.sets, tag: this.rowTag, time: this.rowTime, value: this.rowValue,
    };
    return { values, metricInputs };
  }

  /** One measurement into the next row. */
  private measurement(topTime: number, topTags: number): void {
    this.ws();
    this.expect(OPEN_OBJ);
    let seen = 0;
    let metric = -1;
    let tags = topTags;
    let time = topTime;
    let value = 0;
    for (;;) {
      const key = this.key();
      if (seen & key) throw BAIL;
      seen |= key;
      if (key === K_NAME) metric = this.metricName();
      else if (key === K_VALUE) value = this.value();
      else if (key === K_TIME) time = this.time();
      else if (key === K_TAGS) {
        const t = this.tags();
        if (this.tagSets.sets[t]!.length > 0) tags = t; // an empty map counts as not given
      } else throw BAIL;
      if (!this.more(CLOSE_OBJ)) break;
    }
    if ((seen & (K_NAME | K_VALUE)) !== (K_NAME | K_VALUE)) throw BAIL;
    const i = this.n++;
    if (i >= this.rowTime.length) throw BAIL; // cannot happen (MIN_MEASUREMENT_CHARS); never drop a row
    this.rowMetric[i] = metric;
    this.rowTag[i] = tags >= 0 ? tags : this.numbered('', NO_TAGS);
    this.rowTime[i] = time;
    this.rowValue[i] = value;
  }

  /** The number of a validated map, given it now if new. */
  private numbered(text: string, pairs: TagPairs): number {
    const id = this.tagSets.get(text) ?? this.tagSets.add(text, pairs);
    if (id < 0) throw BAIL; // the numbering started again part way through this batch
    return id;
  }

  /**
   * A known key and its colon, as one of the K_ bits. Any other key (or none) bails, so
   * keys are matched in place, never sliced out.
   */
  private key(): number {
    this.ws();
    const s = this.s;
    let p = this.pos;
    if (s.charCodeAt(p) !== Q) throw BAIL;
    p++;
    let key = 0;
    switch (s.charCodeAt(p)) {
      case 0x6e: if (s.startsWith('name"', p)) { key = K_NAME; p += 5; } break; // n
      case 0x76: if (s.startsWith('value"', p)) { key = K_VALUE; p += 6; } break; // v
      case 0x74: // t
        if (s.startsWith('tags"', p)) { key = K_TAGS; p += 5; } else if (s.startsWith('time"', p)) { key = K_TIME; p += 5; }
        break;
      case 0x6d: if (s.startsWith('measurements"', p)) { key = K_MEASUREMENTS; p += 13; } break; // m
    }
    if (key === 0) throw BAIL;
    this.pos = p;
    this.ws();
    this.expect(COLON);
    this.ws();
    return key;
  }

  /** After a value: true if a comma follows (another member), false at `close`. */
  private more(close: number): boolean {
    this.ws();
    const c = this.s.charCodeAt(this.pos++);
    if (c === COMMA) return true;
    if (c === close) return false;
    throw BAIL;
  }

  /** The batch index of the measurement's metric. */
  private metricName(): number {
    const s = this.s;
    const raw = this.lastRawName;
    const p = this.pos;
    // consecutive measurements usually repeat the name: compare in place instead of slicing
    if (raw.length > 0 && s.charCodeAt(p) === Q && s.startsWith(raw, p + 1) && s.charCodeAt(p + 1 + raw.length) === Q) {
      this.pos = p + raw.length + 2;
      return this.lastMetric;
    }
    this.string();
    const text = detached(s.slice(this.strStart, this.strEnd));
    const name = cachedMetricName(text);
    if (name === null) throw BAIL;
    this.lastRawName = text;
    this.lastName = name;
    let index = this.metricIndex.get(name);
    if (index === undefined) {
      index = this.metrics.length;
      this.metrics.push(name);
      this.metricIndex.set(name, index);
    }
    return (this.lastMetric = index);
  }

  /**
   * A flat map of string values, looked up by its raw text. A remembered text is a whole
   * valid map whose names and values cannot contain `}`, so a hit up to the first `}` is
   * exactly that map; a miss is scanned properly, validated and remembered.
   */
  private tags(): number {
    const s = this.s;
    const start = this.pos;
    if (s.charCodeAt(start) !== OPEN_OBJ) throw BAIL;
    const close = s.indexOf('}', start);
    if (close < 0) throw BAIL;
    const hit = this.tagSets.get(s.slice(start, close + 1));
    if (hit !== undefined) {
      if (this.tagSets.sets[hit]!.length > this.limits.tagsPerMeasurement) throw BAIL;
      this.pos = close + 1;
      return hit;
    }
    this.pos++;
    this.ws();
    if (this.peek() !== CLOSE_OBJ) {
      for (;;) {
        this.ws();
        this.string();
        this.ws();
        this.expect(COLON);
        this.ws();
        this.string();
        if (!this.more(CLOSE_OBJ)) break;
      }
    } else this.pos++;
    const text = s.slice(start, this.pos);
    const raw = JSON.parse(text) as Record<string, unknown>;
    for (const k of Object.keys(raw)) if (FORBIDDEN_KEYS.has(k)) throw BAIL;
    const pairs = tagsOfObject(raw, this.limits, false);
    if (pairs === null) throw BAIL;
    return this.numbered(detached(text), pairs);
  }

  private time(): number {
    const t = this.number();
    if (!Number.isInteger(t) || t < this.limits.oldest || t > this.limits.newest) throw BAIL;
    return t;
  }

  /** A measurement value, with the exponent limits of the ordinary path. */
  private value(): number {
    const v = this.number();
    const mag = Math.abs(v);
    if (!(mag < MAX_MAGNITUDE)) throw BAIL;
    return mag < MIN_MAGNITUDE ? 0 : v;
  }

  /**
   * A JSON number token. Up to 15 significant digits and no exponent, the value is an
   * exact integer divided by an exact power of ten: one correctly rounded division,
   * the same double JSON.parse gives. Anything else goes through Number().
   */
  private number(): number {
    const s = this.s;
    const start = this.pos;
    let p = start;
    let neg = false;
    if (s.charCodeAt(p) === 0x2d) { neg = true; p++; }
    let c = s.charCodeAt(p);
    if (c === 0x30) { p++; } else if (c >= 0x31 && c <= 0x39) {
      while (p < s.length && (c = s.charCodeAt(p)) >= 0x30 && c <= 0x39) p++;
    } else throw BAIL;
    const intEnd = p;
    let fracDigits = 0;
    if (s.charCodeAt(p) === 0x2e) {
      p++;
      const f = p;
      while (p < s.length && (c = s.charCodeAt(p)) >= 0x30 && c <= 0x39) p++;
      fracDigits = p - f;
      if (fracDigits === 0) throw BAIL;
    }
    let exponent = false;
    c = s.charCodeAt(p);
    if (c === 0x65 || c === 0x45) {
      exponent = true;
      p++;
      c = s.charCodeAt(p);
      if (c === 0x2b || c === 0x2d) p++;
      const e = p;
      while (p < s.length && (c = s.charCodeAt(p)) >= 0x30 && c <= 0x39) p++;
      if (p === e) throw BAIL;
    }
    this.pos = p;
    const digits = intEnd - start - (neg ? 1 : 0) + fracDigits;
    if (exponent || digits > 15) {
      const v = Number(s.slice(start, p));
      if (!Number.isFinite(v)) throw BAIL;
      return v;
    }
    let m = 0;
    for (let q = neg ? start + 1 : start; q < p; q++) {
      const d = s.charCodeAt(q);
      if (d !== 0x2e) m = m * 10 + (d - 0x30);
    }
    const v = fracDigits === 0 ? m : m / POW10[fracDigits]!;
    return neg ? -v : v;
  }

  /** A string without escapes or control characters; sets strStart/strEnd. */
  private string(): void {
    const s = this.s;
    let p = this.pos;
    if (s.charCodeAt(p) !== Q) throw BAIL;
    this.strStart = ++p;
    for (;;) {
      if (p >= s.length) throw BAIL;
      const c = s.charCodeAt(p);
      if (c === Q) break;
      if (c === BACKSLASH || c < 0x20) throw BAIL;
      p++;
    }
    this.strEnd = p;
    this.pos = p + 1;
  }

  private expect(c: number): void {
    if (this.s.charCodeAt(this.pos) !== c) throw BAIL;
    this.pos++;
  }

  private peek(): number {
    return this.s.charCodeAt(this.pos);
  }

  /** JSON whitespace: space, tab, line feed, carriage return. */
  private ws(): void {
    const s = this.s;
    let p = this.pos;
    for (;;) {
      const c = s.charCodeAt(p);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++;
      else break;
    }
    this.pos = p;
  }
}

const NO_TAGS: TagPairs = Object.freeze([]);

