// /v1/services: notification services (CRUD, a test notification, the last deliveries).
import Router from '@koa/router';
import { accountId, type Ctx, type RequestState } from '../state.js';
import { body, isForm } from '../request.js';
import { bodyValidator } from '../../schema/validate.js';
import { paginate, parsePage } from '../pagination.js';
import { pathId } from '../path.js';
import type { ServiceInput, ServiceRecord, Services } from '../../domain/services.js';
import type { PluginRegistry } from '../../notifiers/registry.js';
import type { UrlPolicy } from '../../notifiers/url-policy.js';
import { deliverOnce, testNotification } from '../../notifiers/deliver.js';
import type { AccountDirectory } from '../../auth/accounts.js';
import type { Logger } from '../../log.js';
import type { Config } from '../../config/types.js';

const validate = bodyValidator<ServiceInput>({
  type: 'object',
  additionalProperties: false,
  properties: {
    title: { type: 'string', maxLength: 255 },
    type: { type: 'string', maxLength: 32 },
    settings: { type: 'object', maxProperties: 50 },
    id: {}, // an echo of a GET body; the path names the service
  },
});

// POST /:id/test: which version of alert the test notification plays (version 1: Librato's legacy payload)
const validateTest = bodyValidator<{ version?: 1 | 2 }>({
  type: 'object',
  additionalProperties: false,
  properties: { version: { enum: [1, 2] } },
}, {
  type: 'object',
  additionalProperties: false,
  properties: { version: { type: 'integer', enum: [1, 2] } },
});

export interface ServicesDeps {
  services: Services;
  plugins: PluginRegistry;
  /** where notifications may be sent */
  urlPolicy: UrlPolicy;
  accounts: AccountDirectory;
  log: Logger;
  readonly config: Config;
}

export function servicesRoutes(deps: ServicesDeps): Router<RequestState> {
  const r = new Router<RequestState>({ prefix: '/v1/services' });
  const id = (ctx: Ctx) => pathId(ctx.params.id, 'Service');
  const view = (s: ServiceRecord) => ({ id: s.id, title: s.title, type: s.type, settings: deps.services.masked(s) });

  r.get('/', async (ctx) => {
    const page = parsePage(ctx.query, ['title', 'updated_at']);
    const all = await deps.services.list(accountId(ctx));
    const { query, items } = paginate(all, all.length, page, (s) => (page.orderby === 'title' ? s.title.toLowerCase() : s.updated_at));
    ctx.body = { query, services: items.map(view) };
  });

  r.post('/', async (ctx) => {
    const s = await deps.services.create(accountId(ctx), validate(body(ctx), isForm(ctx)));
    ctx.status = 201;
    ctx.set('Location', `/v1/services/${s.id}`);
    ctx.body = view(s);
  });

  r.get('/:id', async (ctx) => {
    ctx.body = view(await deps.services.get(accountId(ctx), id(ctx)));
  });

  r.put('/:id', async (ctx) => {
    await deps.services.update(accountId(ctx), id(ctx), validate(body(ctx), isForm(ctx)));
    ctx.status = 204;
  });

  r.delete('/:id', async (ctx) => {
    await deps.services.delete(accountId(ctx), id(ctx));
    ctx.status = 204;
  });

  // sends a test notification now and answers with what happened
  r.post('/:id/test', async (ctx) => {
    const account = accountId(ctx);
    const s = await deps.services.get(account, id(ctx));
    const { version = 2 } = validateTest(body(ctx), isForm(ctx));
    const nowMs = Date.now();
    const email = deps.accounts.accountById(account)?.email ?? String(account);
    const outcome = await deliverOnce(deps.plugins, s, testNotification(email, s.id, Math.floor(nowMs / 1000), version), {
      timeoutMs: deps.config.notifications.timeout_ms, idempotencyKey: `test-${s.id}-${nowMs}`,
      externalUrl: deps.config.http.external_url, log: deps.log, pluginConfig: { mail: deps.config.notifications.mail }, policy: deps.urlPolicy,
    });
    await deps.services.recordDelivery(account, s.id, { time: nowMs, kind: 'test', ...outcome });
    ctx.body = outcome;
  });

  r.get('/:id/deliveries', async (ctx) => {
    ctx.body = { deliveries: await deps.services.lastDeliveries(accountId(ctx), id(ctx)) };
  });

  return r;
}
