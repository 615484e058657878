import Router from '@koa/router';
import { accountId, type RequestState } from '../state.js';
import { notFound } from '../../errors.js';
import type { JobRunner } from '../../domain/jobs.js';

export interface JobsDeps {
  jobs: JobRunner;
}

export function jobsRoutes(deps: JobsDeps): Router<RequestState> {
  const r = new Router<RequestState>({ prefix: '/v1/jobs' });
  r.get('/:id', async (ctx) => {
    const id = /^\d{1,12}$/.test(ctx.params.id!) ? Number(ctx.params.id) : NaN;
    const job = Number.isNaN(id) ? undefined : await deps.jobs.get(accountId(ctx), id);
    if (!job) throw notFound('Job');
    ctx.body = job;
  });
  return r;
}
