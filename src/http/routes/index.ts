// Every /v1 router, one per resource. Adding a resource is one line here.
import type Router from '@koa/router';
import type { Runtime } from '../../runtime.js';
import type { RequestState } from '../state.js';
import { metricsRoutes } from './metrics.js';
import { jobsRoutes } from './jobs.js';
import { spacesRoutes } from './spaces.js';
import { annotationsRoutes } from './annotations.js';
import { measurementsRoutes } from './measurements.js';
import { gaugesRoutes } from './gauges.js';

export function apiRouters(rt: Runtime): Router<RequestState>[] {
  return [metricsRoutes(rt), jobsRoutes(rt), measurementsRoutes(rt), gaugesRoutes(rt), spacesRoutes(rt), annotationsRoutes(rt)];
}
