// /v1/sources: the legacy sources API (Librato v1, used by the Ruby client).
import Router from '@koa/router';
import { accountId, type RequestState } from '../state.js';
import { body, isForm, queryOne } from '../request.js';
import { bodyValidator } from '../../schema/validate.js';
import { paginate, parsePage } from '../pagination.js';
import { notFound } from '../../errors.js';
import type { Sources } from '../../domain/sources.js';
import type { SeriesStore } from '../../tsdb/engine.js';
import { findSource, listSources, sourceMatches } from '../../query/sources.js';

const validatePut = bodyValidator<{ display_name?: string | null }>({
  type: 'object',
  additionalProperties: false,
  properties: {
    display_name: { type: ['string', 'null'], maxLength: 255 },
    name: { type: 'string' }, // an echo of a GET body; the path names the source
  },
});

export interface SourcesDeps {
  engine: SeriesStore;
  sources: Sources;
}

export function sourcesRoutes(deps: SourcesDeps): Router<RequestState> {
  const r = new Router<RequestState>({ prefix: '/v1/sources' });

  r.get('/', async (ctx) => {
    const page = parsePage(ctx.query, ['name']);
    const account = accountId(ctx);
    const all = await listSources(deps, account);
    const filter = queryOne(ctx, 'name') ?? '';
    const matching = filter ? all.filter((s) => sourceMatches(s, filter)) : all;
    const { query, items } = paginate(matching, all.length, page);
    ctx.body = { query, sources: items };
  });

  r.get('/:name', async (ctx) => {
    const source = await findSource(deps, accountId(ctx), ctx.params.name!);
    if (!source) throw notFound('Source');
    ctx.body = source;
  });

  r.put('/:name', async (ctx) => {
    const input = validatePut(body(ctx), isForm(ctx));
    await deps.sources.put(accountId(ctx), ctx.params.name!, input.display_name ?? null);
    ctx.status = 204;
  });

  return r;
}
