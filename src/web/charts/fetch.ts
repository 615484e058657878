// What a chart needs from the API: each stream's series (every page of them) and the
// annotation events in its interval.
import { ApiFailure, type Api } from '../api.js';
import { linesOf, nextLink, streamName, streamQuery, type Line, type SpaceFilter } from './queries.js';
import { RESOLUTIONS, type Interval } from './ranges.js';
import type { AnnotationEvent, Chart, CompositeResponse, SeriesResponse } from '../types.js';

/** A breakout over thousands of series is unreadable long before this many pages. */
const MAX_PAGES = 20;

/** What a chart draws: the lines of the streams that could be read, why others could not, and which were cut short. */
export interface ChartData { lines: Line[]; problems: string[] }

const resolutionUnavailable = (err: unknown): boolean =>
  err instanceof ApiFailure && err.status === 400 && err.messages.some((m) => m.includes('resolution is unavailable'));

/**
 * The chart's lines at the interval's resolution or, where the stored tiers no longer
 * reach back that far (a view of the past beyond a tier's retention, which the UI cannot
 * know), at the next coarser one that does.
 */
export async function fetchLines(api: Api, chart: Chart, interval: Interval, filter: SpaceFilter): Promise<ChartData> {
  for (const resolution of RESOLUTIONS.filter((r) => r >= interval.resolution)) {
    try {
      return await fetchAt(api, chart, { ...interval, resolution }, filter);
    } catch (err) {
      if (!resolutionUnavailable(err) || resolution === RESOLUTIONS[RESOLUTIONS.length - 1]) throw err;
    }
  }
  throw new Error('no resolution');
}

/**
 * Every stream's lines. A stream the API refuses does not take the others down: the chart
 * draws what it can and says which stream failed; only when every stream fails is the
 * chart an error (and a resolution no stream can have is asked for coarser).
 */
async function fetchAt(api: Api, chart: Chart, interval: Interval, filter: SpaceFilter): Promise<ChartData> {
  const perStream = await Promise.allSettled(chart.streams.map(async (stream, i) => {
    const q = streamQuery(stream, interval, filter);
    let answer: SeriesResponse | CompositeResponse;
    try {
      answer = await api.get<SeriesResponse | CompositeResponse>(q.path, q.params);
    } catch (err) {
      // a chart may name a metric nothing has been sent to yet (the API takes it): no data, not an error
      if (stream.metric && err instanceof ApiFailure && err.status === 404) return { lines: [], cut: null };
      throw err;
    }
    // the resolution the stream was asked at (a combined line asks for minutes at least)
    const resolution = Number(q.params.resolution ?? interval.resolution);
    const lines = linesOf(stream, i, answer, resolution);
    let next = nextLink(answer);
    for (let page = 1; next && page < MAX_PAGES; page++) {
      answer = await api.next<SeriesResponse>(next);
      lines.push(...linesOf(stream, i, answer, resolution));
      next = nextLink(answer);
    }
    // a part must not pass for the whole: say the stream was cut
    return { lines, cut: next ? `${streamName(stream, i)}: only the first ${lines.length} series are drawn` : null };
  }));
  const failures = perStream.flatMap((r, i) => (r.status === 'rejected' ? [{ name: streamName(chart.streams[i]!, i), reason: r.reason as unknown }] : []));
  const unavailable = failures.find((f) => resolutionUnavailable(f.reason));
  if (unavailable) throw unavailable.reason;
  if (failures.length && failures.length === perStream.length) throw failures[0]!.reason;
  const drawn = perStream.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  return {
    lines: drawn.flatMap((d) => d.lines),
    problems: [
      ...failures.map((f) => `${f.name}: ${f.reason instanceof Error ? f.reason.message : String(f.reason)}`),
      ...drawn.flatMap((d) => (d.cut ? [d.cut] : [])),
    ],
  };
}

export interface Marker { stream: string; event: AnnotationEvent }

interface AnnotationAnswer { name: string; display_name?: string | null; events: Record<string, AnnotationEvent[]>[] }

/** The events of every stream that can be read: one deleted or refused stream hides only its own. */
export async function fetchMarkers(api: Api, streams: readonly string[], interval: Interval): Promise<Marker[]> {
  const answers = await Promise.allSettled(streams.map((name) =>
    api.get<AnnotationAnswer>(`v1/annotations/${encodeURIComponent(name)}`, { start_time: interval.start, end_time: interval.end })));
  const markers: Marker[] = [];
  answers.forEach((a, i) => {
    if (a.status === 'rejected') { console.warn(`annotations of ${streams[i]} not shown:`, a.reason); return; }
    for (const bySource of a.value.events) for (const events of Object.values(bySource)) for (const event of events) markers.push({ stream: a.value.display_name || a.value.name, event });
  });
  return markers.sort((x, y) => x.event.start_time - y.event.start_time);
}
