// Raw windows whose 900 s and 3600 s rollups are written once, when the window is sealed,
// not at each checkpoint. A series' current window is checkpointed every few minutes, and
// four parts a checkpoint (raw, 60 s, 900 s, 3600 s), each merged on its own, cost the
// scrape workload about 13 % of its steady-state CPU against two: the coarse parts held a
// few buckets each. While a window is listed here the coarse tiers hold none of its
// points: a coarse read rolls up the window's 60 s parts instead (read.ts), and its seal
// writes the coarse parts and deletes the marker in one batch (compaction.ts).
//
// A window is listed by its first checkpoint, in the batch that writes its first parts
// (so a crash never leaves parts of a listed window in the coarse tiers, nor a window
// listed without its marker), and only when that checkpoint finds it open and the
// series' current one with points off whole minutes: a backfill's ended windows, and
// windows of whole-minute points (one part for raw and 60 s already), keep their coarse
// parts at every checkpoint, so day-long hourly reads of them decode no 60 s points.
import { hex8 } from './keys.js';

/** The marker's key in its keyspace: `<account>!<series><window>` (its value is unused). */
export function pendingKey(account: number, series: number, window: number): string {
  return `${account}!${hex8(series)}${hex8(window)}`;
}

export function parsePendingKey(key: string): { account: number; series: number; window: number } {
  const bang = key.indexOf('!');
  return { account: Number(key.slice(0, bang)), series: parseInt(key.slice(bang + 1, bang + 9), 16), window: parseInt(key.slice(bang + 9, bang + 17), 16) };
}

/**
 * The listed windows, by series (a series has one or two: the current and the last), and
 * those whose seal is queued or running. A late point of a window being sealed waits in
 * the head (and the WAL) until the seal has landed: written as a pending window's part
 * meanwhile, it would land after the seal wrote the coarse parts, and the coarse tiers
 * would never get it.
 */
export class PendingRollups {
  private readonly bySeries = new Map<number, number[]>();
  private readonly sealingBySeries = new Map<number, number[]>();

  get size(): number {
    let n = 0;
    for (const w of this.bySeries.values()) n += w.length;
    return n;
  }

  add(series: number, window: number): void {
    const windows = this.bySeries.get(series);
    if (!windows) this.bySeries.set(series, [window]);
    else if (!windows.includes(window)) windows.push(window);
  }

  has(series: number, window: number): boolean {
    return this.bySeries.get(series)?.includes(window) ?? false;
  }

  /** The series' listed windows, in no particular order; not to be kept. */
  windows(series: number): readonly number[] | undefined {
    return this.bySeries.get(series);
  }

  /** No longer listed (its seal wrote the coarse parts). */
  remove(series: number, window: number): void {
    drop(this.bySeries, series, window);
    drop(this.sealingBySeries, series, window);
  }

  removeSeries(series: number): void {
    this.bySeries.delete(series);
    this.sealingBySeries.delete(series);
  }

  /** Its seal is queued: checkpoints leave its new points in the head until it lands. */
  startSealing(series: number, window: number): void {
    const windows = this.sealingBySeries.get(series);
    if (!windows) this.sealingBySeries.set(series, [window]);
    else if (!windows.includes(window)) windows.push(window);
  }

  sealing(series: number, window: number): boolean {
    return this.sealingBySeries.get(series)?.includes(window) ?? false;
  }

  /** Its seal did not land (a failed merge, a stop): still listed, sealed again later. */
  stopSealing(series: number, window: number): void {
    drop(this.sealingBySeries, series, window);
  }

  /** Every listed window, as [series, window] pairs (a copy: callers seal as they go). */
  entries(): [number, number][] {
    const out: [number, number][] = [];
    for (const [series, windows] of this.bySeries) for (const w of windows) out.push([series, w]);
    return out;
  }
}

function drop(map: Map<number, number[]>, series: number, window: number): void {
  const windows = map.get(series);
  if (!windows) return;
  const at = windows.indexOf(window);
  if (at >= 0) windows.splice(at, 1);
  if (windows.length === 0) map.delete(series);
}
