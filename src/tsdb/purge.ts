// Deleting a metric's measurements: its series leave the index at once (later appends
// create fresh series), and the operations returned delete their records, chunks and
// old-layout head snapshots in the same batch as the metric record itself. Parts a
// checkpoint or a merge was writing meanwhile are deleted when they land (checkpoint.ts,
// compaction.ts).
import { delOp, type WriteOp } from '../store/commit.js';
import type { EngineState } from './state.js';
import type { SeriesRef } from './series-index.js';
import { PART_TIERS, headKey, seriesKey, seriesRange } from './keys.js';

/** Operations that remove every series, chunk and snapshot of these metrics. */
export async function purgeMetrics(st: EngineState, account: number, metrics: readonly string[]): Promise<WriteOp[]> {
  const { pts, heads, series } = st.keyspaces;
  const ops: WriteOp[] = [];
  const refs: SeriesRef[] = [];
  // Synchronously first: later appends must create fresh series, not feed these.
  for (const m of metrics) refs.push(...st.index.removeMetric(account, m));
  for (const ref of refs) {
    ops.push(delOp(series, seriesKey(account, ref.id)));
    st.catalog.removeSeries(ref.id);
    for (const c of [...(st.head.get(ref.id) ?? [])]) st.forget(c);
  }
  for (const ref of refs) {
    for (const tier of PART_TIERS) {
      for await (const key of pts.keys(seriesRange(account, tier, ref.id))) ops.push(delOp(pts, key));
    }
    for await (const key of heads.keys({ gte: headKey(account, ref.id, 0), lt: headKey(account, ref.id, 0xffffffff) })) {
      ops.push(delOp(heads, key));
    }
  }
  return ops;
}
