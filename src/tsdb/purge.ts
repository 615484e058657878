// Deleting a metric's measurements: its series leave the index at once (later appends
// create fresh series), and the operations returned delete their records, chunks and
// old-layout head snapshots in the same batch as the metric record itself. Parts a
// checkpoint or a merge was writing meanwhile are deleted when they land (checkpoint.ts,
// compaction.ts).
//
// Until the caller has committed that batch the metric is not deleted: a crash must find
// it whole. Its windows have left the head, though, so nothing there keeps their WAL
// records from the next checkpoint, and parts landing for its series look like orphans.
// The purge stays pending (EngineState.purges) until `release`: checkpoints keep the WAL
// from its first record on and leave those parts alone; the checkpoint after the release
// deletes both.
import { delOp, type WriteOp } from '../store/commit.js';
import type { EngineState, PendingPurge } from './state.js';
import type { SeriesRef } from './series-index.js';
import { PART_TIERS, headKey, seriesKey, seriesRange } from './keys.js';

/** A purge's operations, and what the engine holds back until they are committed. */
export interface PurgeBatch {
  readonly ops: WriteOp[];
  /**
   * Called once the batch is committed, or has failed (the store is then reopened and the
   * engine reloaded from it): checkpoints may drop what the purge held back.
   */
  release(): void;
}

/** Operations that remove every series, chunk and snapshot of these metrics. */
export async function purgeMetrics(st: EngineState, account: number, metrics: readonly string[]): Promise<PurgeBatch> {
  const { pts, heads, series } = st.keyspaces;
  const ops: WriteOp[] = [];
  const refs: SeriesRef[] = [];
  const pending: PendingPurge = { walFloor: Infinity, series: new Set(), orphans: [] };
  st.purges.add(pending);
  const release = () => {
    if (!st.purges.delete(pending)) return;
    st.orphanChunks.push(...pending.orphans);
  };
  try {
    // Synchronously first: later appends must create fresh series, not feed these.
    for (const m of metrics) refs.push(...st.index.removeMetric(account, m));
    for (const ref of refs) {
      pending.series.add(ref.id);
      ops.push(delOp(series, seriesKey(account, ref.id)));
      st.catalog.removeSeries(ref.id);
      for (const c of [...(st.head.get(ref.id) ?? [])]) {
        pending.walFloor = Math.min(pending.walFloor, c.firstSeq ?? Infinity);
        st.forget(c);
      }
    }
    for (const ref of refs) {
      for (const tier of PART_TIERS) {
        for await (const key of pts.keys(seriesRange(account, tier, ref.id))) ops.push(delOp(pts, key));
      }
      for await (const key of heads.keys({ gte: headKey(account, ref.id, 0), lt: headKey(account, ref.id, 0xffffffff) })) {
        ops.push(delOp(heads, key));
      }
    }
  } catch (err) {
    // A key scan failed (a read error of the store): the delete fails with it, and its
    // series stay out of memory until the next start finds their records again. The WAL
    // is not held for them meanwhile: holding it until a restart would grow it without
    // bound, and the points lost are of a metric its owner asked to delete.
    release();
    throw err;
  }
  return { ops, release };
}
