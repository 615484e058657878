// Annotation streams and their events with links. Key layouts:
//   annotation_streams    <account>!<stream>
//   annotation_events     <account>!<stream>!<start_time>!<event id>   (a time window is one range read)
//   annotation_event_ids  <account>!<stream>!<event id> -> start_time  (finds an event by id)
// Stream names follow the metric name rules and, like metric names, ignore case.
import type { Store } from '../store/db.js';
import type { CommitQueue, WriteOp } from '../store/commit.js';
import { Collection, idKey } from '../store/collection.js';
import { Sequence } from '../store/sequence.js';
import { BatchedWrites } from '../store/batched-writes.js';
import { alreadyExists, notFound, paramErrors, fieldErrors } from '../errors.js';
import { compileGlob } from '../match/glob.js';
import { AccountLock } from './account-lock.js';
import { atLimit, overLimit, type AccountLimitsOf } from './account-limits.js';
import { displayTextProblem } from './text.js';
import { canonicalMetricName, METRIC_NAME, METRIC_NAME_MESSAGE } from './names.js';

/** Unix seconds up to the year 9999: twelve digits at most, as the event keys expect. */
export const MAX_TIME = 253402300799;
export const MAX_LINKS = 50;

export interface Link {
  rel: string;
  href: string;
  label?: string | null;
}

export interface EventInput {
  title?: string;
  source?: string | null;
  description?: string | null;
  links?: Link[];
  start_time?: number;
  end_time?: number | null;
}

export interface StreamInput {
  display_name?: string | null;
}

export interface AnnotationStream {
  name: string;
  display_name: string | null;
  created_at: number;
}

export interface AnnotationEvent {
  id: number;
  title: string;
  description: string | null;
  source: string | null;
  start_time: number;
  end_time: number | null;
  links: Link[];
  created_at: number;
  updated_at: number;
}

/** What GET /v1/annotations/:name selects; see docs/resources.md. */
export interface EventQuery {
  start_time: number;
  end_time: number;
  sources: string[];
  count: number;
}

export const MAX_EVENTS_PER_QUERY = 1000;
/**
 * What the events of one answer may hold, as JSON. An event may be ~120 kB (50 links of
 * 2 kB URLs), so 1000 of them would be a 120 MB answer costing the service ~700 MB to build;
 * real events are a few hundred bytes, so this refuses only what no chart could show.
 */
export const MAX_EVENTS_ANSWER_BYTES = 8 * 1024 * 1024;
/**
 * Events one read may pass over looking for those that match `sources`: a filter that
 * matches nothing would otherwise read every event of the window (all time by default),
 * and any viewer may ask.
 */
export const MAX_EVENTS_SCANNED = 100_000;
/** The group of events that have no source. */
export const UNASSIGNED = 'unassigned';

const eventsOf = (stream: string) => `${stream}!`;
const eventKey = (stream: string, start: number, id: number) => `${stream}!${idKey(start)}!${idKey(id)}`;
const indexKey = (stream: string, id: number) => `${stream}!${idKey(id)}`;

const now = () => Math.floor(Date.now() / 1000);

export class Annotations {
  private readonly streams: Collection<AnnotationStream>;
  private readonly events: Collection<AnnotationEvent>;
  private readonly starts: Collection<number>;
  private readonly eventIds: Sequence;
  private readonly lock = new AccountLock();

  constructor(store: Store, private readonly commit: CommitQueue, private readonly limits: AccountLimitsOf) {
    this.streams = new Collection<AnnotationStream>(store, 'annotation_streams');
    this.events = new Collection<AnnotationEvent>(store, 'annotation_events');
    this.starts = new Collection<number>(store, 'annotation_event_ids');
    this.eventIds = new Sequence(store, 'annotation_events');
  }

  listStreams(accountId: number): Promise<AnnotationStream[]> {
    return this.streams.list(accountId);
  }

  /** A stream by the name in a path; a name that could not exist is simply not found. */
  async stream(accountId: number, rawName: string): Promise<AnnotationStream> {
    const stream = METRIC_NAME.test(rawName) ? await this.streams.get(accountId, canonicalMetricName(rawName)) : undefined;
    if (!stream) throw notFound('Annotation stream');
    return stream;
  }

  /** Events of the window, oldest first: the `count` latest that match the sources. */
  async query(accountId: number, stream: AnnotationStream, q: EventQuery): Promise<AnnotationEvent[]> {
    const globs = q.sources.map(compileGlob);
    const from = `${eventsOf(stream.name)}${idKey(q.start_time)}`;
    const to = `${eventsOf(stream.name)}${idKey(q.end_time)}~`; // `~` sorts after the `!<id>` suffix
    const found: AnnotationEvent[] = [];
    let bytes = 0;
    let scanned = 0;
    for await (const event of this.events.range(accountId, from, to, true)) {
      if (++scanned > MAX_EVENTS_SCANNED) {
        throw paramErrors({ sources: [`matched ${found.length} of the latest ${MAX_EVENTS_SCANNED} events of this window; narrow the window (start_time, end_time)`] });
      }
      if (globs.length && !globs.some((g) => g.test(event.source ?? UNASSIGNED))) continue;
      bytes += JSON.stringify(event).length;
      if (bytes > MAX_EVENTS_ANSWER_BYTES) {
        throw paramErrors({ count: [`the latest ${found.length + 1} events of this window hold more than ${MAX_EVENTS_ANSWER_BYTES / 1024 / 1024} MiB; ask for fewer (count) or a shorter window (start_time, end_time)`] });
      }
      found.push(event);
      if (found.length >= q.count) break;
    }
    return found.reverse();
  }

  async event(accountId: number, rawName: string, id: number): Promise<{ stream: AnnotationStream; event: AnnotationEvent }> {
    const stream = await this.stream(accountId, rawName);
    const start = await this.starts.get(accountId, indexKey(stream.name, id));
    const event = start === undefined ? undefined : await this.events.get(accountId, eventKey(stream.name, start, id));
    if (!event) throw notFound('Annotation event');
    return { stream, event };
  }

  /** A stream without events (definitions import): created if missing; returns whether it was. */
  ensureStream(accountId: number, rawName: string, displayName: string | null): Promise<'created' | 'updated' | 'unchanged'> {
    if (!METRIC_NAME.test(rawName)) throw paramErrors({ name: [METRIC_NAME_MESSAGE] });
    const name = canonicalMetricName(rawName);
    const problem = displayName ? displayTextProblem(displayName) : null;
    if (problem) throw paramErrors({ display_name: [problem] });
    return this.lock.run(accountId, async () => {
      const stream = await this.streams.get(accountId, name);
      if (stream && stream.display_name === (displayName || null)) return 'unchanged';
      if (!stream) await this.checkStreamCount(accountId);
      await this.commit.write([this.streams.put(accountId, name, { name, display_name: displayName || null, created_at: stream?.created_at ?? now() })]);
      return stream ? 'updated' : 'created';
    });
  }

  /** Adds an event, creating the stream on first use. */
  addEvent(accountId: number, rawName: string, input: EventInput): Promise<{ stream: AnnotationStream; event: AnnotationEvent }> {
    if (!METRIC_NAME.test(rawName)) throw paramErrors({ name: [METRIC_NAME_MESSAGE] });
    const name = canonicalMetricName(rawName);
    return this.lock.run(accountId, async () => {
      const ops: WriteOp[] = [];
      let stream = await this.streams.get(accountId, name);
      if (!stream) {
        await this.checkStreamCount(accountId);
        stream = { name, display_name: null, created_at: now() };
        ops.push(this.streams.put(accountId, name, stream));
      }
      const { id, op } = await this.eventIds.next();
      const t = now();
      const event = checkedEvent({
        id, title: input.title!, description: input.description ?? null, source: input.source || null,
        start_time: input.start_time ?? t, end_time: input.end_time ?? null, links: input.links ?? [],
        created_at: t, updated_at: t,
      });
      ops.push(op, ...this.putEvent(accountId, name, event));
      await this.commit.write(ops);
      return { stream, event };
    });
  }

  updateStream(accountId: number, rawName: string, input: StreamInput): Promise<void> {
    return this.lock.run(accountId, async () => {
      const stream = await this.stream(accountId, rawName);
      if (input.display_name === undefined) return;
      const problem = input.display_name ? displayTextProblem(input.display_name) : null;
      if (problem) throw paramErrors({ display_name: [problem] });
      await this.commit.write([this.streams.put(accountId, stream.name, { ...stream, display_name: input.display_name || null })]);
    });
  }

  /** Sets the fields given; `links` replaces all links. */
  updateEvent(accountId: number, rawName: string, id: number, input: EventInput): Promise<void> {
    return this.lock.run(accountId, async () => {
      const { stream, event } = await this.event(accountId, rawName, id);
      const next = checkedEvent({
        ...event,
        ...(input.title !== undefined ? { title: input.title } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.source !== undefined ? { source: input.source || null } : {}),
        ...(input.start_time !== undefined ? { start_time: input.start_time } : {}),
        ...(input.end_time !== undefined ? { end_time: input.end_time } : {}),
        ...(input.links !== undefined ? { links: input.links } : {}),
        updated_at: now(),
      });
      await this.commit.write([this.events.del(accountId, eventKey(stream.name, event.start_time, id)), ...this.putEvent(accountId, stream.name, next)]);
    });
  }

  addLink(accountId: number, rawName: string, id: number, link: Link): Promise<Link> {
    return this.lock.run(accountId, async () => {
      const { stream, event } = await this.event(accountId, rawName, id);
      if (event.links.some((l) => l.rel === link.rel)) throw alreadyExists('rel', 'is already used by a link of this event');
      if (event.links.length >= MAX_LINKS) throw paramErrors({ links: [`an event has at most ${MAX_LINKS} links`] });
      const stored = { rel: link.rel, label: link.label ?? null, href: link.href };
      await this.commit.write(this.putEvent(accountId, stream.name, { ...event, links: [...event.links, stored], updated_at: now() }));
      return stored;
    });
  }

  async link(accountId: number, rawName: string, id: number, rel: string): Promise<Link> {
    const { event } = await this.event(accountId, rawName, id);
    const link = event.links.find((l) => l.rel === rel);
    if (!link) throw notFound('Link');
    return link;
  }

  deleteLink(accountId: number, rawName: string, id: number, rel: string): Promise<void> {
    return this.lock.run(accountId, async () => {
      const { stream, event } = await this.event(accountId, rawName, id);
      if (!event.links.some((l) => l.rel === rel)) throw notFound('Link');
      const links = event.links.filter((l) => l.rel !== rel);
      await this.commit.write(this.putEvent(accountId, stream.name, { ...event, links, updated_at: now() }));
    });
  }

  deleteEvent(accountId: number, rawName: string, id: number): Promise<void> {
    return this.lock.run(accountId, async () => {
      const { stream, event } = await this.event(accountId, rawName, id);
      await this.commit.write([
        this.events.del(accountId, eventKey(stream.name, event.start_time, id)),
        this.starts.del(accountId, indexKey(stream.name, id)),
      ]);
    });
  }

  /** Deletes the stream and every event in it. */
  deleteStream(accountId: number, rawName: string): Promise<void> {
    return this.lock.run(accountId, async () => {
      const stream = await this.stream(accountId, rawName);
      // The events in batches, the stream last: a crash part-way leaves the stream with
      // fewer events, and deleting it again finishes the job.
      const batches = new BatchedWrites(this.commit);
      for (const records of [this.events, this.starts] as Collection<unknown>[]) {
        for await (const key of records.keys(accountId, eventsOf(stream.name))) await batches.add(records.del(accountId, key));
      }
      await batches.flush();
      await this.commit.write([this.streams.del(accountId, stream.name)]);
    });
  }

  private async checkStreamCount(accountId: number): Promise<void> {
    const limit = this.limits().annotation_streams;
    if (await atLimit(this.streams, accountId, limit)) throw overLimit('an account', limit, 'annotation streams', 'annotation_streams');
  }

  private putEvent(accountId: number, stream: string, event: AnnotationEvent): WriteOp[] {
    return [
      this.events.put(accountId, eventKey(stream, event.start_time, event.id), event),
      this.starts.put(accountId, indexKey(stream, event.id), event.start_time),
    ];
  }
}

/** Rules across fields of an event. */
function checkedEvent(event: AnnotationEvent): AnnotationEvent {
  const params = fieldErrors();
  const titleProblem = displayTextProblem(event.title);
  if (titleProblem) params.title = [titleProblem];
  if (event.end_time !== null && event.end_time < event.start_time) params.end_time = ['must not be before start_time'];
  const rels = event.links.map((l) => l.rel);
  if (new Set(rels).size !== rels.length) params.links = ['each link needs its own rel within the event'];
  if (Object.keys(params).length) throw paramErrors(params);
  return { ...event, links: event.links.map((l) => ({ rel: l.rel, label: l.label ?? null, href: l.href })) };
}

/**
 * Reads the query of GET /v1/annotations/:name. Neither `start_time` nor `count` is
 * required (the real API wants one of them); docs/resources.md says why.
 */
export function parseEventQuery(raw: { start_time?: string; end_time?: string; count?: string; sources: string[] }): EventQuery {
  const params = fieldErrors();
  const int = (field: string, v: string | undefined, min: number, max: number, fallback: number): number => {
    if (v === undefined || v === '') return fallback;
    if (!/^\d{1,12}$/.test(v) || Number(v) < min || Number(v) > max) {
      params[field] = [`must be an integer from ${min} to ${max}`];
      return fallback;
    }
    return Number(v);
  };
  const q: EventQuery = {
    start_time: int('start_time', raw.start_time, 0, MAX_TIME, 0),
    end_time: int('end_time', raw.end_time, 0, MAX_TIME, MAX_TIME),
    count: int('count', raw.count, 1, MAX_EVENTS_PER_QUERY, MAX_EVENTS_PER_QUERY),
    sources: raw.sources,
  };
  if (q.end_time < q.start_time && !params.start_time && !params.end_time) params.end_time = ['must not be before start_time'];
  if (raw.sources.some((s) => s.length === 0 || s.length > 255)) params.sources = ['must be 1 to 255 characters each'];
  if (Object.keys(params).length) throw paramErrors(params);
  return q;
}
