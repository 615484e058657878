// /v1/spaces and the charts nested under each space.
import Router from '@koa/router';
import { accountId, type Ctx, type RequestState } from '../state.js';
import { body, isForm } from '../request.js';
import { bodyValidator } from '../../schema/validate.js';
import { pageByName } from '../list.js';
import { pathId } from '../path.js';
import type { ChartInput, SpaceInput } from '../../domain/chart-input.js';
import type { ChartRecord } from '../../domain/spaces.js';
import { chartSchema, spaceSchema } from '../schemas/spaces.js';
import { chartView } from '../views/spaces.js';
import type { Spaces } from '../../domain/spaces.js';

const validateSpace = bodyValidator<SpaceInput>(spaceSchema);
const validateNewChart = bodyValidator<ChartInput>(chartSchema(true));
const validateChartUpdate = bodyValidator<ChartInput>(chartSchema(false));

export interface SpacesDeps {
  spaces: Spaces;
}

export function spacesRoutes(deps: SpacesDeps): Router<RequestState> {
  const r = new Router<RequestState>({ prefix: '/v1/spaces' });
  const spaceId = (ctx: Ctx) => pathId(ctx.params.id, 'Space');
  const chartId = (ctx: Ctx) => pathId(ctx.params.chart_id, 'Chart');
  const view = async (ctx: Ctx, chart: ChartRecord) => chartView(chart, await deps.spaces.streamInfo(accountId(ctx), chart));

  r.get('/', async (ctx) => {
    const { query, items } = await pageByName(ctx, () => deps.spaces.list(accountId(ctx)), (s) => s.name);
    ctx.body = { query, spaces: items.map((s) => ({ id: s.id, name: s.name, tags: s.tags ?? false })) };
  });

  r.post('/', async (ctx) => {
    const space = await deps.spaces.create(accountId(ctx), validateSpace(body(ctx), isForm(ctx)));
    ctx.status = 201;
    ctx.set('Location', `/v1/spaces/${space.id}`);
    ctx.body = { id: space.id, name: space.name, tags: space.tags ?? false };
  });

  r.get('/:id', async (ctx) => {
    const space = await deps.spaces.get(accountId(ctx), spaceId(ctx));
    const charts = await deps.spaces.chartIdsOf(accountId(ctx), space.id);
    ctx.body = { name: space.name, id: space.id, tags: space.tags ?? false, charts: charts.map((id) => ({ id })) };
  });

  r.put('/:id', async (ctx) => {
    const id = spaceId(ctx);
    await deps.spaces.rename(accountId(ctx), id, validateSpace(body(ctx), isForm(ctx)));
    ctx.status = 204;
  });

  r.delete('/:id', async (ctx) => {
    await deps.spaces.delete(accountId(ctx), spaceId(ctx));
    ctx.status = 204;
  });

  r.get('/:id/charts', async (ctx) => {
    const charts = await deps.spaces.listCharts(accountId(ctx), spaceId(ctx));
    ctx.body = await Promise.all(charts.map((c) => view(ctx, c)));
  });

  r.post('/:id/charts', async (ctx) => {
    const id = spaceId(ctx);
    const chart = await deps.spaces.createChart(accountId(ctx), id, validateNewChart(body(ctx), isForm(ctx)));
    ctx.status = 201;
    ctx.set('Location', `/v1/spaces/${id}/charts/${chart.id}`);
    ctx.body = await view(ctx, chart);
  });

  r.get('/:id/charts/:chart_id', async (ctx) => {
    const chart = await deps.spaces.getChart(accountId(ctx), spaceId(ctx), chartId(ctx));
    ctx.body = await view(ctx, chart);
  });

  // The spec documents PUT; its own example replaces streams with POST on the chart path.
  const update = async (ctx: Ctx) => {
    const ids = [spaceId(ctx), chartId(ctx)] as const;
    const chart = await deps.spaces.updateChart(accountId(ctx), ...ids, validateChartUpdate(body(ctx), isForm(ctx)));
    ctx.body = await view(ctx, chart);
  };
  r.put('/:id/charts/:chart_id', update);
  r.post('/:id/charts/:chart_id', update);

  r.delete('/:id/charts/:chart_id', async (ctx) => {
    await deps.spaces.deleteChart(accountId(ctx), spaceId(ctx), chartId(ctx));
    ctx.status = 204;
  });

  return r;
}
