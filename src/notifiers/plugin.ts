// The contract between Gaugeway and a notification plugin. A plugin is a folder with
// `index.js` (an ES module whose default export is a NotificationPlugin),
// `settings.schema.json` (the JSON Schema of its `settings`) and `README.md`. Plugins are
// plain modules with these types, not compiled with the project, so a third-party plugin
// needs no build step and no change to src/ (docs/plugins.md says why).
import type { Logger } from '../log.js';
import type { PostAnswer, PostRequest } from './post.js';

export type { PostAnswer, PostRequest };

export interface AlertRef {
  id: number;
  name: string;
  description: string | null;
  runbook_url: string | null;
  version: 1 | 2;
}

export interface Violation {
  metric: string;
  value: number;
  recorded_at: number;
  condition_violated: number;
  count?: number;
  begin?: number;
  end?: number;
}

/** One measurement of a version 1 trigger: a stream's value and the source it came from. */
export interface LegacyMeasurement {
  value: number;
  /** the stream's source (`unassigned` for none, the `tag=value,...` identity for other tags) */
  source: string;
}

/**
 * What Librato's payload for a version 1 (source-era) alert carried beyond the alert and
 * the trigger time: one metric and its measurements by source, the most severe first (at
 * most 20). docs/alerts.md says how Gaugeway fills it where Librato's sources are silent.
 */
export interface LegacyTrigger {
  metric: { name: string; type: 'gauge' | 'counter' };
  measurements: LegacyMeasurement[];
}

/** One notification, in the terms of Librato's webhook payload (trigger or clear). */
export interface Notification {
  kind: 'trigger' | 'clear';
  alert: AlertRef;
  /** the account's e-mail */
  account: string;
  /** trigger time, or for a clear the time of clearing (epoch seconds) */
  time: number;
  incident_key: string;
  conditions: { id: number; type: string; threshold?: number; duration?: number; summary_function?: string }[];
  /** by stream identity, `tag=value,...` with tags sorted */
  violations: Record<string, Violation[]>;
  triggered_by_user_test: boolean;
  /** why a clear happened */
  clear?: 'normal' | 'auto' | 'manual';
  /**
   * only on triggers of version 1 alerts: the legacy payload's metric and measurements
   * (the webhook sends them instead of conditions and violations, as Librato did)
   */
  legacy?: LegacyTrigger;
}

export interface DeliveryContext {
  /** give up after this long */
  timeoutMs: number;
  /**
   * aborted at the deadline (`timeoutMs`) or when the service stops: `post` heeds it; a
   * plugin that makes its own requests must end them when it aborts
   */
  signal: AbortSignal;
  /** the same for every attempt at one notification: receivers can drop repeats */
  idempotencyKey: string;
  /** the public base URL (http.external_url) for links, or null */
  externalUrl: string | null;
  /** the plugin's own section of the config file, `notifications.<type>` (e.g. the mail server), or {} */
  config: Readonly<Record<string, unknown>>;
  /**
   * why the outbound policy refuses a URL the plugin builds itself, or null (URLs among
   * the settings are checked before `send` is called)
   */
  checkUrl(url: string): Promise<string | null>;
  /**
   * POSTs to `url` as plugins should: through the outbound policy, no redirect followed,
   * given up at `timeoutMs`, at most 4 KiB of the answer read (the rest is cancelled).
   * Throws when the policy refuses the URL or no answer came.
   */
  post(url: string | URL, request: PostRequest): Promise<PostAnswer>;
  log: Logger;
}

export interface NotificationPlugin {
  /** the service `type` it delivers, e.g. `webhook` */
  type: string;
  /** names of settings that are secrets: never echoed back in full, never logged */
  secrets?: string[];
  /**
   * checks beyond the JSON Schema (run after it passes): messages by setting name, or null
   * (e.g. mail's "Not a valid email address: x")
   */
  check?(settings: Record<string, unknown>): Record<string, string[]> | null;
  /**
   * delivers one notification; throws (with a message worth showing) when it failed, an
   * error with `permanent: true` when no retry can mend it (HTTP 4xx but 408 and 429, a
   * redirect, an SMTP 5xx refusal): the outbox then drops it rather than retry. May
   * resolve to a note on what went partly wrong (mail: the recipients the server refused),
   * recorded as the delivery's error although the delivery counts as sent.
   */
  send(n: Notification, settings: Record<string, unknown>, ctx: DeliveryContext): Promise<void | string>;
}
