// /v1/annotations: streams, their events and the events' links.
import Router from '@koa/router';
import { accountId, type Ctx, type RequestState } from '../state.js';
import { body, isForm, queryOne } from '../request.js';
import { bodyValidator } from '../../schema/validate.js';
import { pageByName } from '../list.js';
import { pathId } from '../path.js';
import { parseEventQuery, type EventInput, type Link, type StreamInput } from '../../domain/annotations.js';
import { canonicalMetricName } from '../../domain/names.js';
import { eventUpdateSchema, linkSchema, newEventSchema, streamUpdateSchema } from '../schemas/annotations.js';
import { isSourcesKey } from '../../query/sourced-params.js';
import { eventView, groupBySource } from '../views/annotations.js';
import type { Annotations } from '../../domain/annotations.js';

const validateNewEvent = bodyValidator<EventInput>(newEventSchema);
const validateEventUpdate = bodyValidator<EventInput>(eventUpdateSchema);
const validateStreamUpdate = bodyValidator<StreamInput>(streamUpdateSchema);
const validateLink = bodyValidator<Link>(linkSchema);

/** What the annotation routes use. */
export interface AnnotationsDeps {
  annotations: Annotations;
}

/** `sources=a`, `sources[]=a` and `sources[0]=a`, as a source-based read takes them. */
function sourcesOf(ctx: Ctx): string[] {
  return [...new URLSearchParams(ctx.querystring)].filter(([key]) => isSourcesKey(key)).map(([, value]) => value);
}

export function annotationsRoutes(deps: AnnotationsDeps): Router<RequestState> {
  const r = new Router<RequestState>({ prefix: '/v1/annotations' });
  const name = (ctx: Ctx) => ctx.params.name!;
  const eventId = (ctx: Ctx) => pathId(ctx.params.id, 'Annotation event');
  const eventPath = (ctx: Ctx, id: number) => `/v1/annotations/${encodeURIComponent(canonicalMetricName(name(ctx)))}/${id}`;

  r.get('/', async (ctx) => {
    const { query, items } = await pageByName(ctx, () => deps.annotations.listStreams(accountId(ctx)), (s) => s.name);
    ctx.body = { query, annotations: items.map((s) => ({ name: s.name, display_name: s.display_name })) };
  });

  r.get('/:name', async (ctx) => {
    const stream = await deps.annotations.stream(accountId(ctx), name(ctx));
    const q = parseEventQuery({
      start_time: queryOne(ctx, 'start_time'),
      end_time: queryOne(ctx, 'end_time'),
      count: queryOne(ctx, 'count'),
      sources: sourcesOf(ctx),
    });
    const events = await deps.annotations.query(accountId(ctx), stream, q);
    ctx.body = { name: stream.name, display_name: stream.display_name, events: groupBySource(events) };
  });

  r.post('/:name', async (ctx) => {
    const input = validateNewEvent(body(ctx), isForm(ctx));
    const { event } = await deps.annotations.addEvent(accountId(ctx), name(ctx), input);
    ctx.status = 201;
    ctx.set('Location', eventPath(ctx, event.id));
    ctx.body = eventView(event);
  });

  r.put('/:name', async (ctx) => {
    await deps.annotations.updateStream(accountId(ctx), name(ctx), validateStreamUpdate(body(ctx), isForm(ctx)));
    ctx.status = 204;
  });

  r.delete('/:name', async (ctx) => {
    await deps.annotations.deleteStream(accountId(ctx), name(ctx));
    ctx.status = 204;
  });

  r.get('/:name/:id', async (ctx) => {
    const { event } = await deps.annotations.event(accountId(ctx), name(ctx), eventId(ctx));
    ctx.body = eventView(event);
  });

  r.put('/:name/:id', async (ctx) => {
    const id = eventId(ctx);
    await deps.annotations.updateEvent(accountId(ctx), name(ctx), id, validateEventUpdate(body(ctx), isForm(ctx)));
    ctx.status = 204;
  });

  r.delete('/:name/:id', async (ctx) => {
    await deps.annotations.deleteEvent(accountId(ctx), name(ctx), eventId(ctx));
    ctx.status = 204;
  });

  r.post('/:name/:id/links', async (ctx) => {
    const id = eventId(ctx);
    const link = await deps.annotations.addLink(accountId(ctx), name(ctx), id, validateLink(body(ctx), isForm(ctx)));
    ctx.status = 201;
    ctx.set('Location', `${eventPath(ctx, id)}/links/${encodeURIComponent(link.rel)}`);
    ctx.body = link;
  });

  r.get('/:name/:id/links/:rel', async (ctx) => {
    ctx.body = await deps.annotations.link(accountId(ctx), name(ctx), eventId(ctx), ctx.params.rel!);
  });

  r.delete('/:name/:id/links/:rel', async (ctx) => {
    await deps.annotations.deleteLink(accountId(ctx), name(ctx), eventId(ctx), ctx.params.rel!);
    ctx.status = 204;
  });

  return r;
}
