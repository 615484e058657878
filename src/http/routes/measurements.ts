// /v1/measurements: tagged submission and series queries. Parsing and shaping only; the
// rules live in ingest/ and query/.
import Router from '@koa/router';
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
import type { MetricCatalog } from '../../domain/metrics.js';
import type { SeriesStore } from '../../tsdb/engine.js';
import type { SelfMetrics } from '../../selfmetrics.js';
import type { Config } from '../../config/types.js';

/** What the routes use; `config` is read per request, so a reload applies at once. */
export interface MeasurementsDeps {
  catalog: MetricCatalog;
  engine: SeriesStore;
  metrics: SelfMetrics;
  readonly config: Config;
}

export function measurementsRoutes(deps: MeasurementsDeps): Router<RequestState> {
  const r = new Router<RequestState>({ prefix: '/v1/measurements' });

  r.post('/', async (ctx) => {
    if (ctx.is('application/json') !== 'application/json') {
      throw new ApiError(415, { request: ['Content-Type must be application/json'] });
    }
    const limits: TaggedLimits = {
      ...acceptedTimes(deps.config.storage.retention),
      tagsPerMeasurement: deps.config.limits.tags_per_measurement,
    };
    const depth = deps.config.limits.max_body_depth;
    const text = ctx.state.rawJson;
    ctx.state.rawJson = undefined; // not kept alive across the commit wait below
    // the common shape straight from the text; anything else parsed and checked as before
    const { samples, metricInputs } = (text !== undefined ? parseTaggedFast(text, limits, depth) : null)
      ?? parseTagged(text !== undefined ? parseJsonBody(text, depth) ?? {} : body(ctx), limits);
    const total = samples.length;
    const { accepted } = await ingest(deps, accountId(ctx), samples, metricInputs, userAgent(ctx));
    deps.metrics.ingestedSamples.inc({ api: 'tagged' }, accepted);
    ctx.status = 200;
    ctx.body = { measurements: { summary: { total, accepted, failed: 0, filtered: 0 } } };
  });

  r.get('/:name', async (ctx) => {
    const now = Math.floor(Date.now() / 1000);
    const q = parseSeriesQuery(ctx.params.name!, ctx.querystring, now, deps.config.storage.retention);
    ctx.body = await runSeriesQuery(deps, accountId(ctx), q, `${ctx.path}`);
  });

  return r;
}
