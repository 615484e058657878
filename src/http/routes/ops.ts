// Operations endpoints, outside /v1 and without auth: liveness, readiness and the
// Prometheus self-metrics. They answer on plain HTTP too (load balancers, Prometheus).
import Router from '@koa/router';
import type { Runtime } from '../../runtime.js';
import type { RequestState } from '../state.js';

export function opsRoutes(rt: Runtime): Router<RequestState> {
  const r = new Router<RequestState>();
  const health = (ctx: { body: unknown }) => { ctx.body = { status: 'ok' }; };
  r.get('/health', health);
  r.get('/-/healthy', health);
  const ready = (ctx: { status: number; body: unknown }) => {
    const writable = rt.ready && !rt.commit.failed;
    ctx.status = writable ? 200 : 503;
    ctx.body = writable ? { status: 'ready' } : { errors: { system: [rt.ready ? 'storage is refusing writes' : 'shutting down'] } };
  };
  r.get('/ready', ready);
  r.get('/-/ready', ready);
  r.get('/metrics', async (ctx) => {
    ctx.type = rt.metrics.registry.contentType;
    ctx.body = await rt.metrics.registry.metrics();
  });
  return r;
}
