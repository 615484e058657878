// GET /v1/cardinality: where an account's series come from, so an operator finds the
// metric behind a cardinality explosion (and what limits.new_series_per_hour refuses).
import Router from '@koa/router';
import { accountId, type RequestState } from '../state.js';
import type { SeriesStore } from '../../tsdb/engine.js';
import type { CardinalityGuard } from '../../ingest/cardinality.js';
import type { MetricCatalog } from '../../domain/metrics.js';
import type { Config } from '../../config/types.js';
import { cardinalityReport } from '../../ingest/cardinality-report.js';

export interface CardinalityDeps {
  engine: SeriesStore;
  cardinality: CardinalityGuard;
  catalog: MetricCatalog;
  readonly config: Config;
}

export function cardinalityRoutes(deps: CardinalityDeps): Router<RequestState> {
  const r = new Router<RequestState>({ prefix: '/v1/cardinality' });
  r.get('/', async (ctx) => {
    ctx.body = await cardinalityReport(deps, accountId(ctx), deps.config.limits.new_series_per_hour);
  });
  return r;
}
