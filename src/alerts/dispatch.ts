// How the outbox delivers an alert's notification to one service: through the service's
// plugin, once per attempt, each outcome recorded in the service's deliveries.
import type { Services } from '../domain/services.js';
import type { PluginRegistry } from '../notifiers/registry.js';
import { deliverOnce, type PluginConfig } from '../notifiers/deliver.js';
import type { AttemptOutcome, OutboxEntry, OutboxHooks } from '../notifiers/outbox.js';
import type { UrlPolicy } from '../notifiers/url-policy.js';
import type { Logger } from '../log.js';

export interface DispatchSettings {
  timeoutMs: number;
  externalUrl: string | null;
  pluginConfig: PluginConfig;
  policy: UrlPolicy;
}

export function deliveryHooks(
  services: Services, plugins: PluginRegistry, settings: () => DispatchSettings, log: Logger,
  count: OutboxHooks['count'],
): OutboxHooks {
  return {
    async deliver(e: OutboxEntry, signal: AbortSignal): Promise<AttemptOutcome> {
      const service = await services.get(e.account, e.service).catch(() => null);
      if (!service) return { status: 'failed', error: 'the service was deleted', duration_ms: 0, permanent: true };
      const { timeoutMs, externalUrl, pluginConfig, policy } = settings();
      const n = e.notification;
      const outcome = await deliverOnce(plugins, service, n, {
        timeoutMs, externalUrl, log, pluginConfig, policy, signal, idempotencyKey: `gaugeway-${e.account}-${e.id}`,
      });
      if (outcome.status === 'failed') log.warn({ alert: n.alert.id, service: e.service, attempt: e.attempts + 1, error: outcome.error }, 'alert notification failed');
      return outcome;
    },
    async record(e: OutboxEntry, outcome: AttemptOutcome): Promise<void> {
      // (a deleted service's attempt finds no record to add to: recordDelivery skips it)
      await services.recordDelivery(e.account, e.service, { time: Date.now(), kind: e.notification.kind, ...outcome });
    },
    count,
  };
}
