// /v1/measurements: tagged submission and series queries. Parsing and shaping only; the
// rules live in ingest/ and query/.
import Router from '@koa/router';
import { accountId, type Ctx, type RequestState } from '../state.js';
import { body, queryOptions, userAgent } from '../request.js';
import { ApiError, paramError } from '../../errors.js';
import { parseTagged, type TaggedLimits } from '../../ingest/tagged.js';
import { bodyText } from '../../ingest/tagged-fast.js';
import type { TaggedScanner } from '../../ingest/scan-threads.js';
import { tagSetBound } from '../../ingest/tag-sets.js';
import { parseJsonBody } from '../raw-json.js';
import { ingest, ingestValues, type IngestDeps } from '../../ingest/pipeline.js';
import { acceptedTimes } from '../../ingest/time-window.js';
import { parseSeriesQuery } from '../../query/params.js';
import { runSeriesQuery } from '../../query/series.js';
import { COMPOSE_WINDOW_PARAMS, composeParams, composeWindow, dynamicTagsOf, runCompose, singleParams } from '../../query/compose.js';
import { compositeView, persistedCompositeView } from '../views/composite.js';
import { seriesJson } from '../views/series-json.js';
import type { MetricCatalog } from '../../domain/metrics.js';
import type { SeriesStore } from '../../tsdb/engine.js';
import type { CardinalityGuard } from '../../ingest/cardinality.js';
import type { SelfMetrics } from '../../selfmetrics.js';
import type { Config } from '../../config/types.js';
import { externalUrl } from '../external-url.js';

/** What the routes use; `config` is read per request, so a reload applies at once. */
export interface MeasurementsDeps {
  catalog: MetricCatalog;
  engine: SeriesStore;
  /** the limit on new series an hour, checked on every write */
  cardinality: CardinalityGuard;
  /** told which metrics received points (the alert engine) */
  stored?: IngestDeps['stored'];
  metrics: SelfMetrics;
  /** scans bodies of the common shape into columns (on parse threads) */
  scanner: TaggedScanner;
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
      tagSets: tagSetBound(deps.engine.seriesTotal()),
    };
    const depth = deps.config.limits.max_body_depth;
    const raw = ctx.state.rawJson;
    ctx.state.rawJson = undefined; // not kept alive across the commit wait below
    // the common shape straight from the bytes, into columns; anything else parsed and checked as before
    const scanned = raw !== undefined ? await deps.scanner.scan(raw, limits, depth) : null;
    let total: number;
    let accepted: number;
    if (scanned !== null) {
      total = scanned.values.length;
      ({ accepted } = await ingestValues(deps, accountId(ctx), scanned.values, scanned.metricInputs, userAgent(ctx)));
    } else {
      const { samples, metricInputs } = parseTagged(raw !== undefined ? parseJsonBody(bodyText(raw), depth) ?? {} : body(ctx), limits);
      total = samples.length;
      ({ accepted } = await ingest(deps, accountId(ctx), samples, metricInputs, userAgent(ctx)));
    }
    deps.metrics.ingestedSamples.inc({ api: 'tagged' }, accepted);
    ctx.status = 200;
    ctx.body = { measurements: { summary: { total, accepted, failed: 0, filtered: 0 } } };
  });

  // composite queries (docs/composite.md): a bare array of series
  const composite = async (ctx: Ctx, account: number) => {
    const now = Math.floor(Date.now() / 1000);
    const retention = deps.config.storage.retention;
    const p = composeParams(ctx.querystring);
    const window = composeWindow(p, now, retention);
    // tags_search fills the expression's "%", as for a persisted composite (a space's filter reaches a chart's composite stream)
    return compositeView(await runCompose(deps, account, p.compose, window, now, retention, dynamicTagsOf(ctx.querystring), queryOptions(ctx, deps.config)));
  };

  r.get('/', async (ctx) => {
    if (!new URLSearchParams(ctx.querystring).has('compose')) {
      throw paramError('compose', 'is required: GET /v1/measurements answers composite queries; GET /v1/measurements/:name queries one metric');
    }
    ctx.body = await composite(ctx, accountId(ctx));
  });

  r.get('/:name', async (ctx) => {
    const account = accountId(ctx);
    if (new URLSearchParams(ctx.querystring).has('compose')) {
      ctx.body = await composite(ctx, account);
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    const retention = deps.config.storage.retention;
    const metric = await deps.catalog.get(account, ctx.params.name!);
    if (metric?.type === 'composite' && metric.composite !== null) {
      // a persisted composite: its definition is evaluated, answered like a metric's series
      const window = composeWindow(singleParams(ctx.querystring, COMPOSE_WINDOW_PARAMS), now, retention);
      const set = await runCompose(deps, account, metric.composite, window, now, retention, dynamicTagsOf(ctx.querystring), queryOptions(ctx, deps.config));
      ctx.body = persistedCompositeView(metric.name, window.resolution, set);
      return;
    }
    const q = parseSeriesQuery(ctx.params.name!, ctx.querystring, now, retention);
    // behind a proxy that publishes Gaugeway under a sub-path, a bare path as the `next`
    // href would lead a client out of it
    const external = deps.config.http.external_url;
    const result = await runSeriesQuery(deps, account, q, external ? externalUrl(external, ctx.path) : ctx.path, queryOptions(ctx, deps.config));
    ctx.type = 'application/json';
    ctx.body = seriesJson(result);
  });

  return r;
}
