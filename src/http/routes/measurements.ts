// /v1/measurements: tagged submission and series queries. Parsing and shaping only; the
// rules live in ingest/ and query/.
import Router from '@koa/router';
import type { Runtime } from '../../runtime.js';
import { accountId, type RequestState } from '../state.js';
import { body, userAgent } from '../request.js';
import { ApiError } from '../../errors.js';
import { parseTagged, type TaggedLimits } from '../../ingest/tagged.js';
import { parseTaggedFast } from '../../ingest/tagged-fast.js';
import { parseJsonBody } from '../raw-json.js';
import { ingest } from '../../ingest/pipeline.js';
import { acceptedTimes } from '../../ingest/time-window.js';
import { parseSeriesQuery } from '../../query/params.js';
import { runSeriesQuery } from '../../query/series.js';

export function measurementsRoutes(rt: Runtime): Router<RequestState> {
  const r = new Router<RequestState>({ prefix: '/v1/measurements' });

  r.post('/', async (ctx) => {
    if (ctx.is('application/json') !== 'application/json') {
      throw new ApiError(415, { request: ['Content-Type must be application/json'] });
    }
    const limits: TaggedLimits = {
      ...acceptedTimes(rt.config.storage.retention),
      tagsPerMeasurement: rt.config.limits.tags_per_measurement,
    };
    const depth = rt.config.limits.max_body_depth;
    const text = ctx.state.rawJson;
    ctx.state.rawJson = undefined; // not kept alive across the commit wait below
    // the common shape straight from the text; anything else parsed and checked as before
    const { samples, metricInputs } = (text !== undefined ? parseTaggedFast(text, limits, depth) : null)
      ?? parseTagged(text !== undefined ? parseJsonBody(text, depth) ?? {} : body(ctx), limits);
    const total = samples.length;
    const { accepted } = await ingest(rt, accountId(ctx), samples, metricInputs, userAgent(ctx));
    rt.metrics.ingestedSamples.inc({ api: 'tagged' }, accepted);
    ctx.status = 200;
    ctx.body = { measurements: { summary: { total, accepted, failed: 0, filtered: 0 } } };
  });

  r.get('/:name', async (ctx) => {
    const now = Math.floor(Date.now() / 1000);
    const q = parseSeriesQuery(ctx.params.name!, ctx.querystring, now, rt.config.storage.retention);
    ctx.body = await runSeriesQuery(rt, accountId(ctx), q, `${ctx.path}`);
  });

  return r;
}
