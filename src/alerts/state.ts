// What the alert engine remembers of each alert, in LevelDB, so that a restart neither
// forgets a firing alert nor sends its notification again.
import type { Store } from '../store/db.js';
import type { WriteOp } from '../store/commit.js';
import { Collection, idKey } from '../store/collection.js';
import type { Violation } from '../notifiers/plugin.js';

export interface AlertState {
  status: 'ok' | 'triggered';
  triggered_at: number | null;
  cleared_at: number | null;
  /** how the last clear happened */
  cleared_by: 'normal' | 'auto' | 'manual' | null;
  incident_key: string | null;
  /** the last trigger notification (rearm_seconds counts from it) */
  last_notified_at: number | null;
  /** the newest violating point it reported: a repeat needs a newer one */
  notified_data_at: number | null;
  /** ...and per stream, for rearm_per_signal */
  stream_notified_at: Record<string, number>;
  /** a manual clear restarts tracking: only later samples can trigger again */
  manual_cleared_at: number | null;
  /** per condition id: the streams violating it, by stream key */
  violations: Record<string, Record<string, Violation>>;
  /** the newest point seen on any stream the alert watches (auto-clear after 10 days without) */
  last_data_at: number | null;
}

export function freshState(): AlertState {
  return {
    status: 'ok', triggered_at: null, cleared_at: null, cleared_by: null, incident_key: null, last_notified_at: null, notified_data_at: null,
    stream_notified_at: {}, manual_cleared_at: null, violations: {}, last_data_at: null,
  };
}

export class AlertStates {
  private readonly records: Collection<AlertState>;
  /** every state, in memory: the status endpoints read it, ticks update it */
  private readonly cache = new Map<string, AlertState>();

  constructor(store: Store) {
    this.records = new Collection<AlertState>(store, 'alert_state');
  }

  private static key(accountId: number, alertId: number): string {
    return `${accountId}!${alertId}`;
  }

  async load(accountId: number, alertId: number): Promise<AlertState> {
    const k = AlertStates.key(accountId, alertId);
    let s = this.cache.get(k);
    if (!s) {
      s = (await this.records.get(accountId, idKey(alertId))) ?? freshState();
      this.cache.set(k, s);
    }
    return s;
  }

  /** The state as last saved or loaded, without I/O (null: never evaluated). */
  peek(accountId: number, alertId: number): AlertState | null {
    return this.cache.get(AlertStates.key(accountId, alertId)) ?? null;
  }

  /**
   * The operation that stores a state. Memory takes it only once that is written
   * (`remember`): a state taken over before a refused write (disk floor) stood for a
   * notification that was never queued, and no later round decided it again.
   */
  put(accountId: number, alertId: number, s: AlertState): WriteOp {
    return this.records.put(accountId, idKey(alertId), s);
  }

  /** A state now written. */
  remember(accountId: number, alertId: number, s: AlertState): void {
    this.cache.set(AlertStates.key(accountId, alertId), s);
  }

  del(accountId: number, alertId: number): WriteOp {
    this.cache.delete(AlertStates.key(accountId, alertId));
    return this.records.del(accountId, idKey(alertId));
  }
}
