// One delivery attempt through a service's plugin, timed, its outcome returned rather
// than thrown: a dead or slow receiver is a result to record, not an error of ours.
import type { Logger } from '../log.js';
import type { PluginRegistry } from './registry.js';
import type { Notification } from './plugin.js';
import type { UrlPolicy } from './url-policy.js';
import { postBounded, type PostRequest } from './post.js';

export interface DeliveryOutcome {
  status: 'sent' | 'failed';
  /** why it failed; for a sent one, what went partly wrong (recipients refused), or null */
  error: string | null;
  duration_ms: number;
  /** a failure no retry can mend (HTTP 4xx but 408 and 429, a redirect, an SMTP 5xx refusal): not retried */
  permanent?: boolean;
}

/** Config sections by plugin type (`notifications.<type>` of the config file). */
export type PluginConfig = Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>>;

/** A setting holding a URL (every plugin's URLs go through the outbound policy). */
export const LOOKS_LIKE_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Problems of the URLs among a service's settings, by field, without resolving names (create and update). */
export function settingsUrlProblems(policy: UrlPolicy, settings: Record<string, unknown>): Record<string, string[]> | null {
  let out: Record<string, string[]> | null = null;
  for (const [key, value] of Object.entries(settings)) {
    if (typeof value !== 'string' || !LOOKS_LIKE_URL.test(value)) continue;
    const problem = policy.check(value);
    if (problem) (out ??= Object.create(null) as Record<string, string[]>)[`settings.${key}`] = [problem];
  }
  return out;
}

export interface DeliveryTarget {
  type: string;
  settings: Record<string, unknown>;
}

export async function deliverOnce(
  registry: PluginRegistry, target: DeliveryTarget, n: Notification,
  opts: {
    timeoutMs: number; idempotencyKey: string; externalUrl: string | null; log: Logger; pluginConfig: PluginConfig; policy: UrlPolicy;
    /** aborts the attempt before its deadline (the outbox stopping) */
    signal?: AbortSignal;
  },
): Promise<DeliveryOutcome> {
  const started = performance.now();
  // one deadline for the whole attempt, the answer's body included; a stop ends it sooner
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
  const loaded = registry.get(target.type);
  if (!loaded) return { status: 'failed', error: `no notification plugin delivers type "${target.type}"`, duration_ms: 0 };
  try {
    const { pluginConfig, policy, ...ctx } = opts;
    // every URL among the settings, on the addresses it resolves to now
    for (const [key, value] of Object.entries(target.settings)) {
      if (typeof value !== 'string' || !LOOKS_LIKE_URL.test(value)) continue;
      const problem = await policy.checkResolved(value);
      if (problem) return { status: 'failed', error: `settings.${key} ${problem}`, duration_ms: Math.round(performance.now() - started) };
    }
    const checkUrl = (url: string) => policy.checkResolved(url);
    const post = async (url: string | URL, request: PostRequest) => {
      // a URL the plugin built itself gets the policy too (settings URLs pass it again: cheap)
      const problem = await policy.checkResolved(String(url));
      if (problem) throw new Error(`the URL ${problem}`);
      return postBounded(url, request, signal);
    };
    const note = await loaded.plugin.send(n, target.settings, { ...ctx, signal, config: pluginConfig[target.type] ?? {}, checkUrl, post });
    return { status: 'sent', error: typeof note === 'string' && note ? note : null, duration_ms: Math.round(performance.now() - started) };
  } catch (err) {
    const why = deadline.aborted ? `no answer within ${opts.timeoutMs} ms`
      : opts.signal?.aborted ? 'cut short: the service is stopping' : describe(err);
    const failed: DeliveryOutcome = { status: 'failed', error: why, duration_ms: Math.round(performance.now() - started) };
    // the plugin's word: `permanent: true` on what it throws
    if (err instanceof Error && Reflect.get(err, 'permanent') === true) failed.permanent = true;
    return failed;
  }
}

/**
 * What POST /v1/services/:id/test sends: a trigger marked as a user's test, of a version 2
 * alert, or of a version 1 one (Librato's legacy payload) for receivers of source-era alerts.
 */
export function testNotification(account: string, serviceId: number, nowSeconds: number, version: 1 | 2 = 2): Notification {
  const stream = version === 1 ? 'source=test' : 'host=test';
  return {
    kind: 'trigger',
    alert: { id: 0, name: 'gaugeway.test', description: 'A test notification sent from Gaugeway; no action is required.', runbook_url: null, version },
    account,
    time: nowSeconds,
    incident_key: `gaugeway-test-${serviceId}-${nowSeconds}`,
    conditions: [{ id: 0, type: 'above', threshold: 0, summary_function: 'average' }],
    violations: { [stream]: [{ metric: 'gaugeway.test', value: 1, recorded_at: nowSeconds, condition_violated: 0 }] },
    triggered_by_user_test: true,
    ...(version === 1 ? { legacy: { metric: { name: 'gaugeway.test', type: 'gauge' }, measurements: [{ value: 1, source: 'test' }] } } : {}),
  };
}

/** An error and its causes in one line: fetch says "fetch failed" and puts the reason (ECONNREFUSED) in `cause`. */
function describe(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error && parts.length < 4; e = e.cause) {
    const code: unknown = Reflect.get(e, 'code');
    parts.push(typeof code === 'string' && !e.message.includes(code) ? `${e.message} (${code})` : e.message);
  }
  return parts.join(': ') || String(err);
}
