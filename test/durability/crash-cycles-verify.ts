// Reading everything back after a restart and holding it against the model: every point
// at resolution 1 (the raw tier) through both read APIs, then the 60, 900 and 3600 s tiers
// against the points the raw read proved stored. Pending slots and DELETEs cut off by the
// kill are settled here from what was read: from then on they are known.
import type { ServiceProcess } from './crash-cycles-service.js';
import { METRICS, type Model, type Slot } from './crash-cycles-model.js';

interface Got { count: number; sum: number; min: number; max: number; last?: number }

/** What a read found, by series key and time. */
type Found = Map<string, Map<number, Got>>;

function put(found: Found, key: string, time: number, got: Got, problems: string[]): void {
  let m = found.get(key);
  if (!m) found.set(key, (m = new Map()));
  if (m.has(time)) problems.push(`${key} @${time}: answered twice`);
  m.set(time, got);
}

async function readTagged(svc: ServiceProcess, auth: string, metric: string, from: number, to: number, resolution: number, found: Found, problems: string[]): Promise<boolean> {
  let path: string | null = `/v1/measurements/${metric}?resolution=${resolution}&start_time=${from}&end_time=${to}&summary_function=all`;
  while (path) {
    const r = await svc.request(auth, 'GET', path);
    if (r.status === 404) return false;
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
    const body = JSON.parse(r.text) as { series: { tags: Record<string, string>; measurements: (Got & { time: number })[] }[]; links: { rel: string; href: string }[] };
    for (const s of body.series) {
      const label = Object.keys(s.tags).sort().map((k) => `${k}=${s.tags[k]}`).join(',');
      for (const m of s.measurements) put(found, `${metric}|${label}`, m.time, { count: m.count, sum: m.sum, min: m.min, max: m.max, last: m.last }, problems);
    }
    path = body.links.find((l) => l.rel === 'next')?.href ?? null;
  }
  return true;
}

async function readSourced(svc: ServiceProcess, auth: string, metric: string, from: number, to: number, found: Found, problems: string[]): Promise<boolean> {
  let start = from;
  for (;;) {
    const path = `/v1/metrics/${metric}?resolution=1&start_time=${start}&end_time=${to}`;
    const r = await svc.request(auth, 'GET', path);
    if (r.status === 404) return false;
    if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.text}`);
    const body = JSON.parse(r.text) as { measurements: Record<string, { measure_time: number; value: number; count: number; sum?: number; min?: number; max?: number }[]>; query: { next_time?: number } };
    for (const [source, records] of Object.entries(body.measurements)) {
      for (const rec of records) {
        const got = rec.count > 1 ? { count: rec.count, sum: rec.sum!, min: rec.min!, max: rec.max! } : { count: rec.count, sum: rec.value, min: rec.value, max: rec.value };
        put(found, `${metric}|source=${source}`, rec.measure_time, got, problems);
      }
    }
    if (body.query.next_time === undefined) return true;
    if (body.query.next_time <= start) throw new Error(`GET ${path}: next_time ${body.query.next_time} does not move on`);
    start = body.query.next_time;
  }
}

function same(slot: Slot, got: Got, tagged: boolean): boolean {
  const e = slot.expected;
  if (got.count !== e.count || got.sum !== e.sum || got.min !== e.min || got.max !== e.max) return false;
  return !tagged || got.last === e.last;
}

export interface VerifyResult {
  problems: string[];
  stored: number;
  /** pending slots found stored / found absent; DELETEs cut off that landed / did not */
  settled: { stored: number; absent: number; deletesLanded: number; deletesLost: number };
}

/** Reads every metric back at resolution 1 and settles what the kill left open. */
export async function verify(svc: ServiceProcess, auth: string, model: Model): Promise<VerifyResult> {
  const problems: string[] = [];
  const found: Found = new Map();
  const exists = new Map<string, boolean>();
  for (const def of METRICS) {
    exists.set(def.name, def.api === 'tagged'
      ? await readTagged(svc, auth, def.name, model.from, model.to, 1, found, problems)
      : await readSourced(svc, auth, def.name, model.from, model.to, found, problems));
  }
  const settled = { stored: 0, absent: 0, deletesLanded: 0, deletesLost: 0 };
  // a DELETE the kill cut off landed if and only if the metric is gone (nothing wrote to it since)
  for (const m of model.metrics.values()) {
    if (m.deleting === null) continue;
    const landed = !exists.get(m.def.name);
    if (landed) settled.deletesLanded++;
    else settled.deletesLost++;
    for (const s of model.series.values()) {
      if (s.metric !== m.def || !landed) continue;
      for (const slot of s.slots.values()) if (slot.gen <= m.deleting && (slot.state === 'stored' || slot.state === 'pending')) slot.state = 'deleted';
    }
    m.deleting = null;
    m.locked = false;
  }
  let stored = 0;
  const known = new Set<string>();
  const settledBy = new Map<number, Set<string>>();
  const settle = (slot: Slot, state: 'stored' | 'absent') => {
    slot.state = state;
    let states = settledBy.get(slot.req);
    if (!states) settledBy.set(slot.req, (states = new Set()));
    states.add(state);
  };
  for (const [key, s] of model.series) {
    known.add(key);
    const got = found.get(key);
    const tagged = s.metric.api === 'tagged';
    for (const slot of s.slots.values()) {
      const g = got?.get(slot.time);
      const where = `${key} @${slot.time} (${slot.state})`;
      if (slot.state === 'stored') {
        if (!g) problems.push(`${where}: acknowledged, missing`);
        else if (!same(slot, g, tagged)) problems.push(`${where}: read ${JSON.stringify(g)}, wrote ${JSON.stringify(slot.expected)}`);
        stored++;
      } else if (slot.state === 'pending') {
        if (!g) {
          settle(slot, 'absent');
          settled.absent++;
        } else if (same(slot, g, tagged)) {
          settle(slot, 'stored');
          settled.stored++;
          stored++;
        } else {
          problems.push(`${where}: cut off by the kill, read back as ${JSON.stringify(g)}, wrote ${JSON.stringify(slot.expected)}`);
        }
      } else if (g) {
        problems.push(`${where}: read back ${JSON.stringify(g)}`);
      }
    }
    if (got) for (const time of got.keys()) if (!s.slots.has(time)) problems.push(`${key} @${time}: never written, read back ${JSON.stringify(got.get(time))}`);
  }
  for (const key of found.keys()) if (!known.has(key)) problems.push(`${key}: a series never written`);
  // a request cut off by the kill is stored whole or not at all
  for (const [req, states] of settledBy) if (states.size > 1) problems.push(`request ${req}, cut off by the kill: partly stored`);
  if (problems.length === 0) problems.push(...(await verifyTiers(svc, auth, model)));
  return { problems, stored, settled };
}

/** The 60, 900 and 3600 s tiers hold exactly the roll-up of the stored points (count, min, max exact; sum to rounding). */
async function verifyTiers(svc: ServiceProcess, auth: string, model: Model): Promise<string[]> {
  const problems: string[] = [];
  for (const resolution of [60, 900, 3600]) {
    const found: Found = new Map();
    const from = Math.floor(model.from / resolution) * resolution;
    for (const def of METRICS) await readTagged(svc, auth, def.name, from, model.to, resolution, found, problems);
    const want = new Map<string, Map<number, Got & { abs: number }>>();
    // (source-based series read through the tagged API have the tag `source`: the same key)
    for (const [key, s] of model.series) {
      for (const slot of s.slots.values()) {
        if (slot.state !== 'stored') continue;
        const b = bucketOf(want, key, slot.time - (slot.time % resolution));
        const e = slot.expected;
        b.count += e.count;
        b.sum += e.sum;
        b.abs += Math.abs(e.sum);
        b.min = Math.min(b.min, e.min);
        b.max = Math.max(b.max, e.max);
      }
    }
    for (const [key, buckets] of want) {
      for (const [time, w] of buckets) {
        const g = found.get(key)?.get(time);
        if (!g) problems.push(`${key} @${time} at ${resolution} s: missing`);
        else if (g.count !== w.count || g.min !== w.min || g.max !== w.max || Math.abs(g.sum - w.sum) > 1e-9 * w.abs) {
          problems.push(`${key} @${time} at ${resolution} s: read ${JSON.stringify(g)}, want ${JSON.stringify(w)}`);
        }
      }
    }
    for (const [key, buckets] of found) for (const time of buckets.keys()) if (!want.get(key)?.has(time)) problems.push(`${key} @${time} at ${resolution} s: nothing stored there`);
  }
  return problems;
}

function bucketOf(want: Map<string, Map<number, Got & { abs: number }>>, key: string, time: number): Got & { abs: number } {
  let m = want.get(key);
  if (!m) want.set(key, (m = new Map()));
  let b = m.get(time);
  if (!b) m.set(time, (b = { count: 0, sum: 0, min: Infinity, max: -Infinity, abs: 0 }));
  return b;
}
