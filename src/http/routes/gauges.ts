// GET /v1/gauges/:name: the deprecated alias of the source-based metric read, with the
// older, smaller response shape.
import Router from '@koa/router';
import { accountId, type RequestState } from '../state.js';
import { queryOptions } from '../request.js';
import { notFound } from '../../errors.js';
import { parseSourcedQuery } from '../../query/sourced-params.js';
import { runSourcedQuery } from '../../query/sourced.js';
import type { MetricCatalog } from '../../domain/metrics.js';
import type { SeriesStore } from '../../tsdb/engine.js';
import type { Config } from '../../config/types.js';

/** What the route uses; `config` is read per request, so a reload applies at once. */
export interface GaugesDeps {
  catalog: MetricCatalog;
  engine: SeriesStore;
  readonly config: Config;
}

export function gaugesRoutes(deps: GaugesDeps): Router<RequestState> {
  const r = new Router<RequestState>({ prefix: '/v1/gauges' });
  r.get('/:name', async (ctx) => {
    const metric = await deps.catalog.get(accountId(ctx), ctx.params.name!);
    if (!metric) throw notFound('Metric');
    ctx.set('Deprecation', 'true');
    ctx.set('Link', `</v1/metrics/${encodeURIComponent(metric.name)}>; rel="successor-version"`);
    const q = parseSourcedQuery(ctx.query, Math.floor(Date.now() / 1000), deps.config.storage.retention);
    const { resolution, measurements } = await runSourcedQuery(deps.engine, accountId(ctx), metric, q, queryOptions(ctx, deps.config));
    ctx.body = { name: metric.name, description: metric.description, resolution, measurements };
  });
  return r;
}
