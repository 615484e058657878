// /v1/metrics: the metric catalogue (create, read, list, batch update, delete).
import Router from '@koa/router';
import { accountId, type RequestState } from '../state.js';
import { body, isForm, queryOne, queryOptions, userAgent } from '../request.js';
import { bodyValidator } from '../../schema/validate.js';
import { paginate, parsePage } from '../pagination.js';
import { notFound } from '../../errors.js';
import { composeParams, composeWindow, runCompose } from '../../query/compose.js';
import { legacyCompositeView } from '../views/composite.js';
import { metricKey, type MetricCatalog, type MetricInput } from '../../domain/metrics.js';
import { attributesSchema, type MetricAttributes } from '../../domain/metric-attributes.js';
import { metricBatchDeleteSchema, metricBatchUpdateSchema, metricPutSchema } from '../schemas/metrics.js';
import { metricView } from '../views/metrics.js';
import { parseSourced, sourcedSamples } from '../../ingest/sourced.js';
import { ingest, type IngestDeps } from '../../ingest/pipeline.js';
import { acceptedTimes } from '../../ingest/time-window.js';
import { parseSourcedQuery, wantsMeasurements } from '../../query/sourced-params.js';
import { runSourcedQuery } from '../../query/sourced.js';
import type { JobRunner } from '../../domain/jobs.js';
import type { Sources } from '../../domain/sources.js';
import type { SeriesStore } from '../../tsdb/engine.js';
import type { CardinalityGuard } from '../../ingest/cardinality.js';
import type { SelfMetrics } from '../../selfmetrics.js';
import type { Config } from '../../config/types.js';

const validatePut = bodyValidator<MetricInput>(metricPutSchema);
const validateBatchUpdate = bodyValidator<MetricInput & MetricAttributes & { names: string[] | string; exclude?: string[] | string }>(metricBatchUpdateSchema);
const validateBatchDelete = bodyValidator<{ names: string[] | string; exclude?: string[] | string }>(metricBatchDeleteSchema);

/** What the routes use; `config` is read per request, so a reload applies at once. */
export interface MetricsDeps {
  catalog: MetricCatalog;
  engine: SeriesStore;
  /** the limit on new series an hour, checked on every write */
  cardinality: CardinalityGuard;
  /** told which metrics received points (the alert engine) */
  stored?: IngestDeps['stored'];
  jobs: JobRunner;
  /** display names of sources, for the legacy composite answer */
  sources: Sources;
  metrics: SelfMetrics;
  readonly config: Config;
}

export function metricsRoutes(deps: MetricsDeps): Router<RequestState> {
  const r = new Router<RequestState>({ prefix: '/v1/metrics' });

  r.get('/', async (ctx) => {
    if (new URLSearchParams(ctx.querystring).has('compose')) {
      // the legacy composite query of the source-based clients (librato-api-notes §1.3)
      const now = Math.floor(Date.now() / 1000);
      const retention = deps.config.storage.retention;
      const p = composeParams(ctx.querystring);
      const window = composeWindow(p, now, retention);
      const set = await runCompose(deps, accountId(ctx), p.compose, window, now, retention, undefined, queryOptions(ctx, deps.config));
      // the sources of this answer, one keyed read each (not every source record of the account)
      const displayNames = new Map<string, string | null>();
      for (const series of set) {
        const source = series.tags.find(([name]) => name === 'source')?.[1];
        if (source === undefined || displayNames.has(source)) continue;
        displayNames.set(source, (await deps.sources.get(accountId(ctx), source))?.display_name ?? null);
      }
      ctx.body = legacyCompositeView(p.compose, window.resolution, set, displayNames);
      return;
    }
    const page = parsePage(ctx.query, ['name']);
    const all = await deps.catalog.list(accountId(ctx));
    const filter = (queryOne(ctx, 'name') ?? '').toLowerCase();
    const matching = filter ? all.filter((m) => m.name.toLowerCase().includes(filter)) : all;
    // by name as the API compares names: whatever their case (a name keeps the case it was created with)
    const { query, items } = paginate(matching, all.length, page, (m) => metricKey(m.name));
    ctx.body = { query, metrics: items.map(metricView) };
  });

  // Source-based submission (API 1.0): 200 with no body.
  r.post('/', async (ctx) => {
    const times = acceptedTimes(deps.config.storage.retention);
    const measurements = parseSourced(body(ctx), isForm(ctx), times.now);
    const { samples, metrics } = sourcedSamples(measurements, times);
    await ingest(deps, accountId(ctx), samples, metrics, userAgent(ctx));
    deps.metrics.ingestedSamples.inc({ api: 'source' }, samples.length);
    ctx.body = null;
    ctx.status = 200;
  });

  // The metric; with time-interval parameters also its measurements by source.
  r.get('/:name', async (ctx) => {
    const metric = await deps.catalog.get(accountId(ctx), ctx.params.name!);
    if (!metric) throw notFound('Metric');
    if (!wantsMeasurements(ctx.query)) {
      ctx.body = metricView(metric);
      return;
    }
    const q = parseSourcedQuery(ctx.query, Math.floor(Date.now() / 1000), deps.config.storage.retention);
    ctx.body = { ...metricView(metric), ...(await runSourcedQuery(deps.engine, accountId(ctx), metric, q, queryOptions(ctx, deps.config))) };
  });

  r.put('/:name', async (ctx) => {
    const input = validatePut(body(ctx), isForm(ctx));
    const { created, metric } = await deps.catalog.put(accountId(ctx), ctx.params.name!, input, userAgent(ctx));
    if (created) {
      ctx.status = 201;
      ctx.set('Location', `/v1/metrics/${encodeURIComponent(metric.name)}`);
      ctx.body = metricView(metric);
    } else {
      ctx.status = 204;
    }
  });

  r.put('/', async (ctx) => {
    const { names, exclude, ...rest } = validateBatchUpdate(body(ctx), isForm(ctx));
    const input = splitAttributes(rest);
    // names are resolved (and `exclude` applied) here, so a job gets the final list
    const selected = await deps.catalog.select(accountId(ctx), names, exclude);
    const all = [...selected.existing, ...selected.missing];
    if (all.length > deps.config.limits.batch_job_threshold) {
      const id = await deps.jobs.submit(accountId(ctx), 'metrics.update', { names: all, input, userAgent: userAgent(ctx) });
      accepted(ctx, id);
      return;
    }
    await deps.catalog.updateMany(accountId(ctx), all, input, userAgent(ctx));
    ctx.status = 204;
  });

  r.delete('/', async (ctx) => {
    const { names, exclude } = validateBatchDelete(body(ctx), isForm(ctx));
    const { existing } = await deps.catalog.select(accountId(ctx), names, exclude);
    if (existing.length > deps.config.limits.batch_job_threshold) {
      const id = await deps.jobs.submit(accountId(ctx), 'metrics.delete', { names: existing });
      accepted(ctx, id);
      return;
    }
    await deps.catalog.deleteMany(accountId(ctx), existing);
    ctx.status = 204;
  });

  r.delete('/:name', async (ctx) => {
    const metric = await deps.catalog.get(accountId(ctx), ctx.params.name!);
    if (!metric) throw notFound('Metric');
    await deps.catalog.deleteMany(accountId(ctx), [metric.name]);
    ctx.status = 204;
  });

  return r;
}

function accepted(ctx: { status: number; set(k: string, v: string): void; body: unknown }, id: number): void {
  ctx.status = 202;
  ctx.set('Location', `/v1/jobs/${id}`);
  ctx.body = { id, state: 'queued', progress: 0, href: `/v1/jobs/${id}` };
}

/** Batch updates may put attribute keys at the top level (`display_units_short=ops`). */
function splitAttributes(rest: Record<string, unknown>): MetricInput {
  const input: Record<string, unknown> = {};
  const attributes: Record<string, unknown> = { ...((rest.attributes as object) ?? {}) };
  for (const [k, v] of Object.entries(rest)) {
    if (k === 'attributes') continue;
    if (k in attributesSchema.properties) attributes[k] = v;
    else input[k] = v;
  }
  if (Object.keys(attributes).length) input.attributes = attributes;
  return input as MetricInput;
}
