// /v1/alerts: alert definitions (spec "Alerts", notes §5), their services, status and clear.
import Router from '@koa/router';
import { accountId, type Ctx, type RequestState } from '../state.js';
import { body, isForm, queryOne } from '../request.js';
import { bodyValidator } from '../../schema/validate.js';
import { paginate, parsePage } from '../pagination.js';
import { pathId } from '../path.js';
import { paramErrors } from '../../errors.js';
import type { AlertInput, AlertRecord, Alerts, ConditionInput } from '../../domain/alerts.js';
import type { Services } from '../../domain/services.js';
import type { AlertEngine } from '../../alerts/engine.js';
import { checkCondition, type ConditionRecord } from '../../domain/alerts.js';
import { tagPatternProblem } from '../../match/tag-pattern.js';
import type { Config } from '../../config/types.js';

/** the longest rearm_seconds taken: a year */
const MAX_REARM_SECONDS = 365 * 86400;

const alertFields = {
  name: { type: 'string', maxLength: 255 },
  description: { type: ['string', 'null'], maxLength: 1024 },
  version: { type: 'integer' },
  conditions: { type: 'array', maxItems: 50, items: { type: 'object', maxProperties: 20 } },
  services: { type: 'array', maxItems: 50 },
  attributes: { type: 'object', maxProperties: 50 },
  active: { type: 'boolean' },
  // multiples of 60 are checked by domain/alerts.ts; a year is already "never again" in
  // practice, and 6e300 (an integer to JSON Schema) would be stored and answered as 6e+300
  rearm_seconds: { type: ['integer', 'null'], maximum: MAX_REARM_SECONDS },
  rearm_per_signal: { type: 'boolean' },
  md: { type: 'boolean' },
  // echoes of a GET body PUT back; the path names the alert
  id: {}, created_at: {}, updated_at: {},
} as const;

/**
 * A form's condition fields arrive as strings: typed here so they are coerced
 * (`conditions[0][threshold]=5` is the number 5). JSON bodies are left to checkCondition,
 * whose messages name the rule.
 */
const formConditions = {
  type: 'array', maxItems: 50,
  items: {
    type: 'object', maxProperties: 20,
    properties: {
      id: { type: 'integer' }, threshold: { type: 'number' }, duration: { type: 'integer' }, detect_reset: { type: 'boolean' },
      tags: { type: 'array', maxItems: 50, items: { type: 'object', properties: { grouped: { type: 'boolean' } } } },
    },
  },
} as const;

const validate = bodyValidator<AlertInput>(
  { type: 'object', additionalProperties: false, properties: alertFields },
  { type: 'object', additionalProperties: false, properties: { ...alertFields, conditions: formConditions } },
);
const validateService = bodyValidator<{ service?: unknown }>({
  type: 'object', additionalProperties: false, required: ['service'], properties: { service: { type: ['integer', 'string'] } },
});

const previewFields = {
  ...alertFields,
  start_time: { type: 'integer', minimum: 0 },
  end_time: { type: 'integer', minimum: 0 },
  step: { type: 'integer', minimum: 10, maximum: 3600 },
} as const;
// the rest of an alert definition may come along (a form being tuned): it is not used
const validatePreview = bodyValidator<{ conditions: ConditionInput[]; start_time: number; end_time?: number; step?: number }>(
  { type: 'object', required: ['conditions', 'start_time'], properties: previewFields, additionalProperties: false },
  { type: 'object', required: ['conditions', 'start_time'], properties: { ...previewFields, conditions: formConditions }, additionalProperties: false },
);
/** evaluations a preview may take */
const PREVIEW_STEPS = 2880;

/**
 * Librato's condition `source`, a pattern with `*` (source-era clients send it, and
 * python-librato sends "*" on every condition), as the tag filter it means here: POST
 * /v1/metrics keeps a measurement's source in the tag `source`. "*" (every source), null
 * and "" filter nothing. Responses say `source: null`, as the spec has them, and show the
 * filter among the tags. Anything but a string is left for checkCondition to refuse.
 */
function sourcesAsTags<T extends { conditions?: ConditionInput[] }>(input: T): T {
  if (!input.conditions) return input;
  const errors: Record<string, string[]> = Object.create(null);
  const conditions = input.conditions.map((c, i) => {
    if (typeof c.source !== 'string') return c;
    const { source, ...rest } = c;
    const pattern = source.toLowerCase();
    if (pattern === '*' || pattern === '') return rest;
    const tags = Array.isArray(c.tags) ? c.tags : c.tags === undefined || c.tags === null ? [] : null;
    if (tags === null) return c; // checkCondition refuses tags that are not a list
    if (tags.some((t) => typeof t === 'object' && t !== null && String((t as { name?: unknown }).name).toLowerCase() === 'source')) {
      errors[`conditions[${i}]`] = ['source and a tag filter on source cannot both be given: keep one'];
      return c;
    }
    const problem = tagPatternProblem('source', pattern);
    if (problem) {
      errors[`conditions[${i}]`] = [`source: ${problem}`];
      return c;
    }
    return { ...rest, tags: [...tags, { name: 'source', values: [pattern], grouped: false }] };
  });
  if (Object.keys(errors).length) throw paramErrors(errors);
  return { ...input, conditions };
}

export interface AlertsDeps {
  alerts: Alerts;
  alertEngine: AlertEngine;
  services: Services;
  readonly config: Config;
}

export function alertsRoutes(deps: AlertsDeps): Router<RequestState> {
  const r = new Router<RequestState>({ prefix: '/v1/alerts' });
  const id = (ctx: Ctx) => pathId(ctx.params.id, 'Alert');
  const view = async (account: number, a: AlertRecord) => {
    const services = [];
    for (const sid of a.services) {
      const s = await deps.services.get(account, sid).catch(() => null);
      if (s) services.push({ id: s.id, type: s.type, settings: deps.services.masked(s), title: s.title });
    }
    const { tracking_from: _engineOnly, ...shown } = a;
    return { ...shown, services };
  };

  r.get('/', async (ctx) => {
    const account = accountId(ctx);
    const page = parsePage(ctx.query, ['updated_at']);
    const name = queryOne(ctx, 'name')?.toLowerCase() ?? null;
    const version = queryOne(ctx, 'version');
    if (version !== undefined && version !== '1' && version !== '2') throw paramErrors({ version: ['must be 1 or 2'] });
    const all = await deps.alerts.list(account);
    const matching = all.filter((a) => (name === null || a.name.toLowerCase().includes(name)) && (version === undefined || String(a.version) === version));
    // total: every alert the account owns (the spec's meaning); found: those matching
    const { query, items } = paginate(matching, all.length, page, (a) => a.updated_at);
    const alerts = [];
    for (const a of items) alerts.push(await view(account, a));
    ctx.body = { query, alerts };
  });

  r.post('/', async (ctx) => {
    const account = accountId(ctx);
    const a = await deps.alerts.create(account, sourcesAsTags(validate(body(ctx), isForm(ctx))));
    ctx.status = 201;
    ctx.set('Location', `/v1/alerts/${a.id}`);
    ctx.body = await view(account, a);
  });

  // evaluates a definition over stored data; stores nothing (every role may use it)
  r.post('/preview', async (ctx) => {
    const input = sourcesAsTags(validatePreview(body(ctx), isForm(ctx)));
    const end = input.end_time ?? Math.floor(Date.now() / 1000);
    const step = input.step ?? 60;
    const errors: Record<string, string[]> = Object.create(null);
    if (end <= input.start_time) errors.end_time = ['must be after start_time'];
    else if ((end - input.start_time) / step > PREVIEW_STEPS) errors.step = [`the range would take more than ${PREVIEW_STEPS} steps: use a larger step or a shorter range`];
    if (input.conditions.length === 0) errors.conditions = ['at least one condition is required'];
    const conditions: ConditionRecord[] = [];
    input.conditions.forEach((raw, i) => {
      const problems: string[] = [];
      const c = checkCondition(raw, problems);
      if (c) conditions.push({ ...c, id: i + 1 });
      else errors[`conditions[${i}]`] = problems;
    });
    if (Object.keys(errors).length) throw paramErrors(errors);
    ctx.body = { preview: await deps.alertEngine.preview(accountId(ctx), conditions, input.start_time, end, step) };
  });

  // before /:id, which would take "status" for an id (and answer 404)
  r.get('/status', (ctx) => {
    ctx.body = deps.alertEngine.statusAll(accountId(ctx), deps.config.alerts.recently_cleared_seconds);
  });

  r.get('/:id', async (ctx) => {
    const account = accountId(ctx);
    ctx.body = await view(account, await deps.alerts.get(account, id(ctx)));
  });

  r.put('/:id', async (ctx) => {
    await deps.alerts.update(accountId(ctx), id(ctx), sourcesAsTags(validate(body(ctx), isForm(ctx))));
    ctx.status = 204;
  });

  r.delete('/:id', async (ctx) => {
    await deps.alerts.delete(accountId(ctx), id(ctx));
    ctx.status = 204;
  });

  r.get('/:id/status', async (ctx) => {
    const account = accountId(ctx);
    const a = await deps.alerts.get(account, id(ctx));
    ctx.body = { alert: { id: a.id }, status: deps.alertEngine.status(account, a.id) };
  });

  r.post('/:id/clear', async (ctx) => {
    const account = accountId(ctx);
    const a = await deps.alerts.get(account, id(ctx));
    await deps.alertEngine.clear(account, a.id);
    ctx.status = 204;
  });

  r.post('/:id/services', async (ctx) => {
    const alertId = id(ctx);
    const account = accountId(ctx);
    const sid = await deps.alerts.addService(account, alertId, validateService(body(ctx), isForm(ctx)).service);
    ctx.status = 201;
    ctx.set('Location', `/v1/alerts/${alertId}/services/${sid}`);
    // the alert as it is now, with its service objects (a JSON answer, not Koa's "Created")
    ctx.body = await view(account, await deps.alerts.get(account, alertId));
  });

  r.delete('/:id/services/:service', async (ctx) => {
    await deps.alerts.removeService(accountId(ctx), id(ctx), pathId(ctx.params.service, 'Service'));
    ctx.status = 204;
  });

  return r;
}
