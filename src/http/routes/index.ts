// Every /v1 router, one per resource. Adding a resource is one line here.
import type Router from '@koa/router';
import type { RequestState } from '../state.js';
import { metricsRoutes, type MetricsDeps } from './metrics.js';
import { jobsRoutes, type JobsDeps } from './jobs.js';
import { spacesRoutes, type SpacesDeps } from './spaces.js';
import { annotationsRoutes, type AnnotationsDeps } from './annotations.js';
import { measurementsRoutes, type MeasurementsDeps } from './measurements.js';
import { gaugesRoutes, type GaugesDeps } from './gauges.js';
import { sourcesRoutes, type SourcesDeps } from './sources.js';
import { cardinalityRoutes, type CardinalityDeps } from './cardinality.js';
import { servicesRoutes, type ServicesDeps } from './services.js';
import { alertsRoutes, type AlertsDeps } from './alerts.js';
import { scrapeRoutes, type ScrapeDeps } from './scrape.js';

/**
 * What the routers use, together (the runtime provides it). Each router takes only its
 * own part; they read it per request, so a config reload reaches them at once.
 */
export type ApiDeps = MetricsDeps & JobsDeps & MeasurementsDeps & GaugesDeps & SpacesDeps & AnnotationsDeps & SourcesDeps & CardinalityDeps & ServicesDeps & AlertsDeps & ScrapeDeps;

export function apiRouters(deps: ApiDeps): Router<RequestState>[] {
  return [metricsRoutes(deps), jobsRoutes(deps), measurementsRoutes(deps), gaugesRoutes(deps), spacesRoutes(deps), annotationsRoutes(deps), sourcesRoutes(deps), cardinalityRoutes(deps), servicesRoutes(deps), alertsRoutes(deps), scrapeRoutes(deps)];
}
