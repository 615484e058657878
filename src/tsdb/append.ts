// The write path: each sample finds (or creates) its series, its point goes into the
// head, and the request becomes one WAL record; new series records and the WAL record
// are handed to the commit queue together, so the promise resolves only once all of it
// is in LevelDB, and replay always finds the series a record names.
import { putOp, type WriteOp } from '../store/commit.js';
import type { Sample, Summary, TagPairs, ValueColumns } from './sample.js';
import type { EngineState } from './state.js';
import { keyOf, type SeriesRecord, type SeriesRef } from './series-index.js';
import { encodeWal, encodeWalValues } from './wal.js';
import { seriesKey, walKey, windowOf } from './keys.js';

export class Appender {
  /** ingest hands in one array per tag set (its key string is built once: keyOf), and the series it last resolved to (checked against account and metric) */
  private readonly lastRef = new WeakMap<Sample['tags'], SeriesRef>();
  /**
   * ...and for batches in columns, the same by tag-set number: one list per numbering
   * (ValueColumns.tagSets: the scanner's, or a scrape target's), so a row costs an index
   * instead of a lookup by tags. The engine's own: a numbering may be shared by every
   * engine of a process (the scanner's).
   */
  private readonly refsByNumber = new WeakMap<readonly TagPairs[], (SeriesRef | undefined)[]>();

  constructor(private readonly st: EngineState) {}

  /** Durable once resolved: series records, WAL record and head update in one group commit. */
  append(account: number, samples: readonly Sample[]): Promise<void> {
    const st = this.st;
    const ops: WriteOp[] = [];
    const ids: number[] = new Array(samples.length);
    // the record's number first: a head window remembers the oldest record it depends on
    const seq = ++st.seq;
    const now = Date.now();
    for (let i = 0; i < samples.length; i++) {
      const s = samples[i]!;
      let ref = this.lastRef.get(s.tags);
      if (ref === undefined || ref.account !== account || ref.metric !== s.metric || ref.gone) this.lastRef.set(s.tags, (ref = this.lookup(account, s.metric, s.tags, ops)));
      ids[i] = ref.id;
      appendPoint(st, account, ref.id, s.time, s, seq, now);
    }
    return this.commit(seq, encodeWal(account, ids, samples), ops);
  }

  /** The same for single values in columns (the tagged scanner's batches). */
  appendValues(account: number, cols: ValueColumns): Promise<void> {
    const st = this.st;
    const ops: WriteOp[] = [];
    const n = cols.length;
    const ids: number[] = new Array(n);
    const seq = ++st.seq;
    const now = Date.now();
    const { metrics, metric, tagSets, tag, time, value } = cols;
    const refs = this.refsOf(tagSets);
    const point = plainPoint;
    for (let i = 0; i < n; i++) {
      const name = metrics[metric[i]!]!;
      const number = tag[i]!;
      let ref = refs[number];
      if (ref === undefined || ref.account !== account || ref.metric !== name || ref.gone) refs[number] = ref = this.lookup(account, name, tagSets[number]!, ops);
      ids[i] = ref.id;
      const v = value[i]!;
      point.sum = point.min = point.max = point.last = v;
      point.sumsq = v * v;
      appendPoint(st, account, ref.id, time[i]!, point, seq, now);
    }
    return this.commit(seq, encodeWalValues(account, ids, time, value, n), ops);
  }

  /** The WAL record after the series records, handed to the commit queue together. */
  private commit(seq: number, record: Buffer, ops: WriteOp[]): Promise<void> {
    const st = this.st;
    st.walSeqs.push(seq);
    st.walBytes += record.length;
    st.walWritten += record.length;
    ops.push(putOp(st.keyspaces.wal, walKey(seq), record));
    // Enqueue this record before any checkpoint that deletes it: the commit queue writes
    // in order, and a delete queued ahead of its put would leave the record to replay twice.
    return st.commit.write(ops);
  }

  /** The distinct series these samples would create (none of them is created here). */
  unknown(account: number, samples: readonly Sample[]): { metric: string; tags: TagPairs }[] {
    const found = new UnknownSeries();
    for (const s of samples) {
      const ref = this.lastRef.get(s.tags);
      // the append path's cache: a repeated tag set of a known series costs one lookup
      if (ref !== undefined && ref.account === account && ref.metric === s.metric && !ref.gone) continue;
      this.checkUnknown(account, s.metric, s.tags, found);
    }
    return found.out;
  }

  /** The same for single values in columns. */
  unknownValues(account: number, cols: ValueColumns): { metric: string; tags: TagPairs }[] {
    const found = new UnknownSeries();
    const { metrics, metric, tagSets, tag } = cols;
    const refs = this.refsOf(tagSets);
    for (let i = 0; i < cols.length; i++) {
      const name = metrics[metric[i]!]!;
      const ref = refs[tag[i]!];
      if (ref !== undefined && ref.account === account && ref.metric === name && !ref.gone) continue;
      this.checkUnknown(account, name, tagSets[tag[i]!]!, found);
    }
    return found.out;
  }

  /** The refs of a numbering, as long as its list: written in place, never past the end. */
  private refsOf(tagSets: readonly TagPairs[]): (SeriesRef | undefined)[] {
    let refs = this.refsByNumber.get(tagSets);
    if (refs === undefined) this.refsByNumber.set(tagSets, (refs = []));
    // a write far past the end would turn the array into a dictionary
    while (refs.length < tagSets.length) refs.push(undefined);
    return refs;
  }

  private checkUnknown(account: number, metric: string, tags: TagPairs, found: UnknownSeries): void {
    const key = keyOf(tags);
    if (this.st.index.find(account, metric, key)) return;
    const id = `${metric}\x1f${key}`;
    if (found.seen.has(id)) return;
    found.seen.add(id);
    found.out.push({ metric, tags });
  }

  /** The series of a sample, created (with its record in `ops`) on first sight. */
  private lookup(account: number, metric: string, tags: TagPairs, ops: WriteOp[]): SeriesRef {
    const st = this.st;
    const key = keyOf(tags);
    let ref = st.index.find(account, metric, key);
    if (!ref) {
      ref = { id: ++st.nextSeries, account, metric, tags: kept(tags) };
      st.index.add(ref, key);
      const rec: SeriesRecord = { m: ref.metric, t: ref.tags.map(([k, v]) => [k, v]) };
      ops.push(putOp(st.keyspaces.series, seriesKey(account, ref.id), rec));
      ops.push(putOp(st.keyspaces.meta, 'series', st.nextSeries));
    }
    return ref;
  }
}

/** Series a batch would create, each once. */
class UnknownSeries {
  readonly out: { metric: string; tags: TagPairs }[] = [];
  readonly seen = new Set<string>();
}

/** The summary of the value being appended: the head copies it, so one object serves. */
const plainPoint: Summary = { count: 1, sum: 0, min: 0, max: 0, last: 0, sumsq: 0 };

/**
 * One point into its series' head window (late points for a window already sealed open it
 * again: they become new parts of it).
 */
export function appendPoint(st: EngineState, account: number, series: number, t: number, s: Summary, seq: number, nowMs: number): void {
  const w = windowOf(t);
  let c = st.current[series];
  if (c === undefined || c.window !== w) {
    // a series moving on to its next window takes as much room as the last one used: 16
    // points growing to 146 left four arrays a series behind in the old generation
    const left = c !== undefined && c.window < w ? c : undefined;
    c = st.head.chunk(account, series, w, left?.roomWanted);
    const newest = st.current[series];
    if (newest === undefined || newest.window <= w || !st.head.has(series, newest.window)) st.current[series] = c;
    // the window left behind waits for a checkpoint as the chunk it will write
    left?.freeze();
  }
  c.append(t, s, seq, nowMs);
}

/**
 * The tag pairs a new series keeps: ingest's own when frozen (the tagged API's, cached by
 * their text and shared by every sample of the series), else a copy. A second copy of
 * every series' pairs was three arrays, about 190 bytes, a series.
 */
function kept(tags: Sample['tags']): Sample['tags'] {
  if (Object.isFrozen(tags) && tags.every((p) => Object.isFrozen(p))) return tags;
  return tags.map(([k, v]) => [k, v] as const);
}
