// Operations endpoints, outside /v1 and without auth: liveness, readiness and the
// Prometheus self-metrics. They answer on plain HTTP too (load balancers, Prometheus).
import Router from '@koa/router';
import type { RequestState } from '../state.js';
import type { CommitQueue } from '../../store/commit.js';
import type { SelfMetrics } from '../../selfmetrics.js';

/** What the routes use; `ready` is read per request (it drops at shutdown). */
export interface OpsDeps {
  readonly ready: boolean;
  commit: CommitQueue;
  metrics: SelfMetrics;
}

export function opsRoutes(deps: OpsDeps): Router<RequestState> {
  const r = new Router<RequestState>();
  const health = (ctx: { body: unknown }) => { ctx.body = { status: 'ok' }; };
  r.get('/health', health);
  r.get('/-/healthy', health);
  const ready = (ctx: { status: number; body: unknown }) => {
    // every reason writes are refused (a failed write, free disk below the floor), as a write would be told
    const refusal = deps.ready ? deps.commit.refusal() : null;
    const writable = deps.ready && refusal === null;
    ctx.status = writable ? 200 : 503;
    ctx.body = writable ? { status: 'ready' } : { errors: { system: deps.ready ? refusal!.body.system ?? ['storage is refusing writes'] : ['shutting down'] } };
  };
  r.get('/ready', ready);
  r.get('/-/ready', ready);
  r.get('/metrics', async (ctx) => {
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  });
  return r;
}
