// The API's views of annotation events: one event, and a query's events grouped by source.
import { UNASSIGNED, type AnnotationEvent } from '../../domain/annotations.js';

export function eventView(e: AnnotationEvent): Record<string, unknown> {
  return { id: e.id, title: e.title, description: e.description, source: e.source, start_time: e.start_time, end_time: e.end_time, links: e.links };
}

/** The spec's shape: one object of source name to that source's events, in start-time order. */
export function groupBySource(events: AnnotationEvent[]): Record<string, unknown>[] {
  if (events.length === 0) return [];
  // a Map, not an object literal: a source may be named `__proto__`
  const groups = new Map<string, unknown[]>();
  for (const e of events) {
    const key = e.source ?? UNASSIGNED;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key)!.push(eventView(e));
  }
  return [Object.fromEntries(groups)];
}
