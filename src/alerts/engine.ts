// The alert engine: evaluates every active alert on a schedule (node-cron,
// `alerts.check_schedule`) and, sooner, the alerts watching a metric that just received
// points (the ingest pipeline tells it which metrics, nothing more: ingest never waits on
// an evaluation). An alert fires when ALL its conditions have a violating stream; it
// clears when one no longer has (a normal clear), on POST /clear (manual), or after ten
// days without data (auto). Notifications go into the durable outbox in the same batch
// as the state that decided them (state.ts); its worker delivers them. Rules: docs/alerts.md.
import { scheduleJob } from '../cron.js';
import { trackingFrom, type AlertRecord, type Alerts, type ConditionRecord } from '../domain/alerts.js';
import type { CommitQueue } from '../store/commit.js';
import type { SeriesStore } from '../tsdb/engine.js';
import { canonicalMetricName } from '../domain/names.js';
import type { Logger } from '../log.js';
import type { Violation } from '../notifiers/plugin.js';
import type { Verdict } from './evaluate.js';
import { AUTO_CLEAR_SECONDS, MAX_READ_SPAN, PATIENT, RoundReads, conditionVerdicts } from './streams.js';
import { previewAlert, type Preview } from './preview.js';
import { AlertStates, freshState, type AlertState } from './state.js';
import { alertNotification, type MetricTypes } from './notification.js';
import type { Outbox, OutboxEntry } from '../notifiers/outbox.js';
import type { Notification } from '../notifiers/plugin.js';
import type { WriteOp } from '../store/commit.js';

/** Evaluations after new data wait this long, so a second of posts costs one evaluation. */
const DATA_DELAY_MS = 1000;

type Clock = () => number;

export class AlertEngine {
  private readonly byId = new Map<string, { account: number; alert: AlertRecord }>();
  /** alert keys by account: one account's status never walks every account's alerts */
  private readonly byAccount = new Map<number, Set<string>>();
  /** metric key `<account>!<metric>` -> alert keys watching it */
  private readonly watching = new Map<string, Set<string>>();
  private readonly dirty = new Set<string>();
  /** the newest data time of each alert, exact (its stored state may lag an hour) */
  private readonly lastData = new Map<string, number>();
  private dataTimer: NodeJS.Timeout | null = null;
  private task: { stop(): void | Promise<void> } | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private tickWaiting = false;

  constructor(
    private readonly alerts: Alerts,
    private readonly states: AlertStates,
    private readonly series: SeriesStore,
    private readonly commit: CommitQueue,
    private readonly outbox: Outbox,
    private readonly accountEmail: (accountId: number) => string,
    /** a metric's type (a version 1 trigger names it), undefined for one not in the catalogue */
    private readonly metricType: (accountId: number, metric: string) => Promise<'gauge' | 'counter' | 'composite' | undefined>,
    private readonly log: Logger,
    private readonly clock: Clock = () => Math.floor(Date.now() / 1000),
  ) {
    alerts.listeners.push((account, id, alert) => this.changed(account, id, alert));
  }

  /** Loads every alert; evaluation starts with `schedule`. */
  async start(): Promise<void> {
    for (const { account, alert } of await this.alerts.all()) {
      this.index(account, alert);
      await this.states.load(account, alert.id); // the status endpoints answer from memory
    }
  }

  schedule(expression: string): void {
    void this.task?.stop();
    this.task = scheduleJob(expression, 'alert checks', this.log, () => { void this.tick()?.catch((err) => this.log.error({ err }, 'alert evaluation failed')); });
  }

  /**
   * The schedule's round, or null when one is still waiting for its turn: that round
   * evaluates at its own start and covers this tick, so rounds that take longer than the
   * schedule's interval do not pile up behind each other (and delay every clear).
   */
  tick(): Promise<void> | null {
    if (this.tickWaiting) return null;
    this.tickWaiting = true;
    return this.serial(() => {
      this.tickWaiting = false;
      return this.evaluateKeys([...this.byId.keys()], this.clock());
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.task?.stop();
    if (this.dataTimer) clearTimeout(this.dataTimer);
    await this.running.catch(() => undefined);
  }

  /**
   * The ingest pipeline stored points of these metrics (lower-cased names) for an account,
   * the newest at `newest`. Points older than any condition reads (a backfill) change no
   * verdict now: the schedule looks at them in its own time.
   */
  appended(account: number, metrics: Iterable<string>, newest: number): void {
    if (this.watching.size === 0 || newest < this.clock() - MAX_READ_SPAN) return;
    for (const m of metrics) for (const key of this.watching.get(`${account}!${m}`) ?? []) this.dirty.add(key);
    if (this.dirty.size && !this.dataTimer && !this.stopped) {
      this.dataTimer = setTimeout(() => {
        this.dataTimer = null;
        const keys = [...this.dirty];
        this.dirty.clear();
        void this.serial(() => this.evaluateKeys(keys, this.clock())).catch((err) => this.log.error({ err }, 'alert evaluation failed'));
      }, DATA_DELAY_MS);
      this.dataTimer.unref();
    }
  }

  /** Evaluates every alert now (the schedule's job; tests call it with their own clock). */
  evaluateAll(now = this.clock()): Promise<void> {
    return this.serial(() => this.evaluateKeys([...this.byId.keys()], now));
  }

  /** POST /v1/alerts/:id/clear: back to ok at once, with a clear notification if it was firing. */
  clear(account: number, alertId: number, now = this.clock()): Promise<void> {
    return this.serial(async () => {
      const entry = this.byId.get(`${account}!${alertId}`);
      if (!entry) return;
      const s = { ...(await this.states.load(account, alertId)) };
      const wasFiring = s.status === 'triggered';
      Object.assign(s, { status: 'ok', violations: {}, manual_cleared_at: now, stream_notified_at: {} });
      if (wasFiring) Object.assign(s, { cleared_at: now, cleared_by: 'manual' });
      await this.save(account, entry.alert, s, wasFiring ? [alertNotification('clear', entry.alert, this.accountEmail(account), s, now)] : []);
    });
  }

  /** When these conditions would have triggered and cleared over stored data (preview.ts). */
  preview(account: number, conditions: ConditionRecord[], start: number, end: number, step: number): Promise<Preview> {
    return previewAlert(this.series, account, conditions, start, end, step);
  }

  /** `triggered` or `ok`. */
  status(account: number, alertId: number): 'triggered' | 'ok' {
    return this.states.peek(account, alertId)?.status ?? 'ok';
  }

  /** Firing alerts, and alerts cleared in the last `recentSeconds`. */
  statusAll(account: number, recentSeconds: number, now = this.clock()): { firing: { id: number; triggered_at: number }[]; cleared: { id: number; cleared_at: number }[] } {
    const firing: { id: number; triggered_at: number }[] = [];
    const cleared: { id: number; cleared_at: number }[] = [];
    for (const key of this.byAccount.get(account) ?? []) {
      const { account: a, alert } = this.byId.get(key)!;
      const s = this.states.peek(a, alert.id);
      if (s?.status === 'triggered') firing.push({ id: alert.id, triggered_at: s.triggered_at! });
      else if (s?.cleared_at && now - s.cleared_at <= recentSeconds) cleared.push({ id: alert.id, cleared_at: s.cleared_at });
    }
    return { firing, cleared };
  }

  /** What the engine keeps in memory: alerts, metrics watched, data times remembered. */
  sizes(): { alerts: number; watchedMetrics: number; dataTimes: number } {
    return { alerts: this.byId.size, watchedMetrics: this.watching.size, dataTimes: this.lastData.size };
  }

  /** Resolves once evaluations and the deliveries they made due are done (tests). */
  async idle(): Promise<void> {
    await this.running.catch(() => undefined);
    await this.outbox.idle();
  }

  /** The state and its notifications (as outbox entries) in one batch; then delivery. */
  private async save(account: number, alert: AlertRecord, s: AlertState, notifications: Notification[]): Promise<void> {
    await this.written([await this.prepareSave(account, alert, s, notifications)]);
  }

  /** The operations that store a state and its notifications' outbox entries. */
  private async prepareSave(account: number, alert: AlertRecord, s: AlertState, notifications: Notification[]): Promise<Save> {
    const ops: WriteOp[] = [this.states.put(account, alert.id, s)];
    const entries: OutboxEntry[] = [];
    for (const n of notifications) {
      const prepared = await this.outbox.prepare(account, alert.services, n);
      ops.push(...prepared.ops);
      entries.push(...prepared.entries);
    }
    return { account, alertId: alert.id, state: s, ops, entries };
  }

  /** One evaluation at a time: a clear and a tick never interleave on one state. */
  private serial(fn: () => Promise<void>): Promise<void> {
    const run = this.running.then(fn, fn);
    this.running = run.catch(() => undefined);
    return run;
  }

  private changed(account: number, id: number, alert: AlertRecord | null): void {
    const key = `${account}!${id}`;
    const old = this.byId.get(key);
    if (old) {
      for (const c of old.alert.conditions) {
        // an emptied set goes too: alerts created and deleted must not leave a metric key each behind
        const m = `${account}!${canonicalMetricName(c.metric_name)}`;
        const set = this.watching.get(m);
        if (set?.delete(key) && set.size === 0) this.watching.delete(m);
      }
    }
    this.byId.delete(key);
    const mine = this.byAccount.get(account);
    if (mine?.delete(key) && mine.size === 0) this.byAccount.delete(account);
    if (alert) this.index(account, alert);
    else {
      // after any round in flight, which could remember the alert's data time again
      void this.serial(async () => {
        this.lastData.delete(key);
        const s = this.states.peek(account, id);
        // a deleted alert that was firing sends its clear, as one switched off does
        const closing = old && s?.status === 'triggered' ? await this.outbox.prepare(account, old.alert.services, this.closing(account, old.alert, { ...s }, this.clock())) : null;
        await this.commit.write([this.states.del(account, id), ...(closing?.ops ?? [])]);
        if (closing) this.outbox.schedule(closing.entries);
      }).catch((err) => this.log.error({ err }, 'could not delete alert state'));
    }
  }

  /** The clear notification of a firing alert deleted or switched off (a user's doing: "manual"). */
  private closing(account: number, alert: AlertRecord, s: AlertState, now: number): Notification {
    Object.assign(s, { status: 'ok', cleared_at: now, cleared_by: 'manual', violations: {} });
    return alertNotification('clear', alert, this.accountEmail(account), s, now);
  }

  private index(account: number, alert: AlertRecord): void {
    const key = `${account}!${alert.id}`;
    this.byId.set(key, { account, alert });
    let mine = this.byAccount.get(account);
    if (!mine) this.byAccount.set(account, (mine = new Set()));
    mine.add(key);
    for (const c of alert.conditions) {
      const m = `${account}!${canonicalMetricName(c.metric_name)}`;
      let set = this.watching.get(m);
      if (!set) this.watching.set(m, (set = new Set()));
      set.add(key);
    }
  }

  private async evaluateKeys(keys: string[], now: number): Promise<void> {
    const reads = new RoundReads(this.series, now);
    for (const key of keys) {
      const entry = this.byId.get(key);
      if (!entry?.alert.active) continue;
      // one alert that cannot be planned (stored before its tags were checked) must not stop the round
      try {
        for (const c of entry.alert.conditions) reads.plan(entry.account, c);
      } catch (err) {
        this.log.error({ err, alert: entry.alert.id }, 'alert evaluation failed');
      }
    }
    await reads.fetch();
    // every state that changed, and the notifications decided, in one batch for the round
    const saves: Save[] = [];
    for (const key of keys) {
      if (this.stopped) return;
      const entry = this.byId.get(key);
      if (!entry) continue;
      try {
        const saved = await this.evaluate(entry.account, entry.alert, now, reads);
        if (saved) saves.push(saved);
      } catch (err) {
        this.log.error({ err, alert: entry.alert.id }, 'alert evaluation failed');
      }
    }
    await this.written(saves);
  }

  /** Writes saves in one batch; then memory takes their states and the outbox their entries. */
  private async written(saves: readonly Save[]): Promise<void> {
    await this.commit.write(saves.flatMap((x) => x.ops));
    for (const x of saves) {
      this.states.remember(x.account, x.alertId, x.state);
      this.outbox.schedule(x.entries);
    }
  }

  /** The new state and notifications of one alert, to store (null: nothing changed). */
  private async evaluate(account: number, alert: AlertRecord, now: number, reads: RoundReads): Promise<Save | null> {
    const before = await this.states.load(account, alert.id);
    const s: AlertState = structuredClone(before);
    let notifications: Notification[] = [];
    if (!alert.active || alert.conditions.length === 0) {
      // an inactive alert never fires; one switched off while firing is ok again, and its
      // services hear so (an incident opened by its trigger must not stay open for good)
      if (s.status === 'triggered') {
        notifications = [this.closing(account, alert, s, now)];
        Object.assign(s, freshState(), { cleared_at: now, cleared_by: 'manual' });
      }
    } else {
      const trackingSince = Math.max(trackingFrom(alert), s.manual_cleared_at ?? 0);
      let holds = true;
      for (const c of alert.conditions) {
        const found = s.violations[c.id] ?? {};
        const { verdicts, newest } = await conditionVerdicts(this.series, account, c, now, trackingSince, reads, PATIENT);
        if (newest !== null && (s.last_data_at === null || newest > s.last_data_at)) s.last_data_at = newest;
        for (const [stream, v] of verdicts) {
          if (v.kind === 'violating') found[stream] = violation(c, v);
          else if (v.kind === 'ok') delete found[stream];
        }
        // a stream the condition no longer watches (an edit narrowed its tags, its metric
        // was deleted) has no verdict: its old violation would keep the alert firing for good
        for (const stream of Object.keys(found)) if (!verdicts.has(stream)) delete found[stream];
        s.violations[c.id] = found;
        if (Object.keys(found).length === 0) holds = false;
      }
      for (const id of Object.keys(s.violations)) if (!alert.conditions.some((c) => String(c.id) === id)) delete s.violations[id];
      // the newest data time is stored only when it moved an hour: memory keeps it exact
      const key = `${account}!${alert.id}`;
      const remembered = this.lastData.get(key);
      if (remembered !== undefined && (s.last_data_at === null || remembered > s.last_data_at)) s.last_data_at = remembered;
      if (s.last_data_at !== null) this.lastData.set(key, s.last_data_at);
      notifications = this.transition(account, alert, s, holds, now);
      // a version 1 trigger names its metric's type (Librato's legacy payload): looked up
      // only then, so evaluations that send nothing never wait on the catalogue (a delete)
      if (alert.version === 1 && notifications.some((n) => n.kind === 'trigger')) {
        const metricTypes = await this.metricTypesOf(account, alert);
        notifications = notifications.map((n) => (n.kind === 'trigger' ? alertNotification('trigger', alert, n.account, s, now, metricTypes) : n));
      }
    }
    if (notifications.length === 0 && !changed(before, s)) return null;
    return this.prepareSave(account, alert, s, notifications);
  }

  /** Trigger, repeat after rearm, clear (normal or auto): the notifications the new state calls for. */
  private transition(account: number, alert: AlertRecord, s: AlertState, holds: boolean, now: number): Notification[] {
    const email = this.accountEmail(account);
    if (s.status === 'triggered' && s.last_data_at !== null && now - s.last_data_at >= AUTO_CLEAR_SECONDS) {
      Object.assign(s, { status: 'ok', cleared_at: now, cleared_by: 'auto', violations: {}, stream_notified_at: stillArmed(s, alert, now) });
      return [alertNotification('clear', alert, email, s, now)];
    }
    if (!holds) {
      if (s.status !== 'triggered') return [];
      Object.assign(s, { status: 'ok', cleared_at: now, cleared_by: 'normal', stream_notified_at: stillArmed(s, alert, now) });
      return [alertNotification('clear', alert, email, s, now)];
    }
    const streams = new Set(Object.values(s.violations).flatMap((byStream) => Object.keys(byStream)));
    // a loop, not Math.max(...): spread arguments overflow the stack past ~120,000 streams
    let newestData = -Infinity;
    for (const byStream of Object.values(s.violations)) for (const v of Object.values(byStream)) if (v.recorded_at > newestData) newestData = v.recorded_at;
    const rearmed = alert.rearm_per_signal
      ? [...streams].some((k) => now - (s.stream_notified_at[k] ?? -Infinity) >= alert.rearm_seconds)
      : now - (s.last_notified_at ?? -Infinity) >= alert.rearm_seconds;
    if (s.status === 'ok') {
      // After a trigger, none is sent until the rearm time has passed (the spec, Librato),
      // even when the alert cleared in between: a flapping metric notifies once a rearm
      // period, and the alert stays ok meanwhile. A manual clear restarts the timer.
      if (!rearmed && s.cleared_by !== 'manual') return [];
      Object.assign(s, { status: 'triggered', triggered_at: now, incident_key: `${alert.id}-${now}` });
    } else {
      // a repeat needs new violating data: a stream gone quiet is not re-notified
      if (newestData <= (s.notified_data_at ?? -Infinity)) return [];
      if (!rearmed) return [];
    }
    s.last_notified_at = now;
    s.notified_data_at = newestData;
    for (const k of streams) s.stream_notified_at[k] = now;
    return [alertNotification('trigger', alert, email, s, now)];
  }

  /** The types of the metrics an alert's conditions watch (a composite cannot be one: it is left out). */
  private async metricTypesOf(account: number, alert: AlertRecord): Promise<MetricTypes> {
    const types = new Map<string, 'gauge' | 'counter'>();
    for (const c of alert.conditions) {
      const type = await this.metricType(account, c.metric_name);
      if (type === 'gauge' || type === 'counter') types.set(canonicalMetricName(c.metric_name), type);
    }
    return types;
  }
}

/**
 * At a clear, the streams whose rearm time has not passed yet (they hold back a new
 * trigger); the others are forgotten, so that streams that come and go do not pile up.
 */
function stillArmed(s: AlertState, alert: AlertRecord, now: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, at] of Object.entries(s.stream_notified_at)) if (now - at < alert.rearm_seconds) out[k] = at;
  return out;
}

/** One alert's new state and the outbox entries of its notifications, with their operations. */
interface Save {
  account: number;
  alertId: number;
  state: AlertState;
  ops: WriteOp[];
  entries: OutboxEntry[];
}

/**
 * Whether a state must be stored: anything but the newest data time, which moves with
 * every point and matters only to the ten-day auto-clear (stored when it moved an hour).
 */
function changed(before: AlertState, after: AlertState): boolean {
  const moved = (after.last_data_at ?? 0) - (before.last_data_at ?? 0);
  if (moved >= 3600 || (before.last_data_at === null) !== (after.last_data_at === null)) return true;
  return JSON.stringify({ ...before, last_data_at: null }) !== JSON.stringify({ ...after, last_data_at: null });
}

function violation(c: ConditionRecord, v: Extract<Verdict, { kind: 'violating' }>): Violation {
  return {
    metric: c.metric_name, value: v.value, recorded_at: v.recorded_at, condition_violated: c.id,
    ...(v.count !== undefined ? { count: v.count, begin: v.begin, end: v.end } : {}),
  };
}
