// Sends an alert's notification to each of its services, apart from the evaluation that
// decided it: every service on its own, so a slow or dead one delays no other; each
// outcome is recorded in the service's deliveries. One attempt per notification (a
// durable outbox with retries is the next step: docs/alerts.md).
import type { AlertRecord } from '../domain/alerts.js';
import type { Services } from '../domain/services.js';
import type { PluginRegistry } from '../notifiers/registry.js';
import type { Notification } from '../notifiers/plugin.js';
import { deliverOnce } from '../notifiers/deliver.js';
import type { Logger } from '../log.js';

export interface DispatchSettings {
  timeoutMs: number;
  externalUrl: string | null;
}

export class Dispatcher {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly services: Services,
    private readonly plugins: PluginRegistry,
    private readonly settings: () => DispatchSettings,
    private readonly log: Logger,
  ) {}

  send(accountId: number, alert: AlertRecord, n: Notification): void {
    for (const serviceId of alert.services) {
      const p = this.deliver(accountId, serviceId, n).finally(() => this.inFlight.delete(p));
      this.inFlight.add(p);
    }
  }

  private async deliver(accountId: number, serviceId: number, n: Notification): Promise<void> {
    try {
      const service = await this.services.get(accountId, serviceId);
      const nowMs = Date.now();
      const { timeoutMs, externalUrl } = this.settings();
      const outcome = await deliverOnce(this.plugins, service, n, {
        timeoutMs, externalUrl, log: this.log, idempotencyKey: `${n.incident_key}-${n.kind}-${n.time}-${serviceId}`,
      });
      if (outcome.status === 'failed') this.log.warn({ alert: n.alert.id, service: serviceId, error: outcome.error }, 'alert notification failed');
      await this.services.recordDelivery(accountId, serviceId, { time: nowMs, kind: n.kind, ...outcome });
    } catch (err) {
      this.log.error({ err, alert: n.alert.id, service: serviceId }, 'alert notification not delivered');
    }
  }

  /** Resolves once every notification handed in so far has been attempted. */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }
}
