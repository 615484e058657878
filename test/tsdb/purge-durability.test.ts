// A metric's delete is one batch: the metric record and every key of its data. Until that
// batch commits, a crash must find the metric whole, so nothing the engine does meanwhile
// (a checkpoint deleting WAL records, a checkpoint deleting orphaned parts) may drop
// points that only the not-yet-deleted metric still holds.
import t from 'tap';
import { Store } from '../../src/store/db.js';
import { CommitQueue } from '../../src/store/commit.js';
import { Engine } from '../../src/tsdb/engine.js';
import { createLogger } from '../../src/log.js';
import { valueSample } from '../../src/tsdb/sample.js';
import { parseChunkKey } from '../../src/tsdb/keys.js';
import { tempDir } from '../helpers/tmp.js';

const log = createLogger('silent');
const tags = Object.freeze([Object.freeze(['host', 'a'] as const)]);

async function open(dir: string) {
  const store = await Store.open(dir, { sync: false });
  const commit = new CommitQueue(store.db, false);
  const engine = await Engine.open(store, commit, log, { checkpointMs: 3_600_000, checkpointWalBytes: 64 * 1024 * 1024, sealIdleMs: 3_600_000 });
  const crash = async () => { await commit.idle(); await store.close(); };
  return { store, commit, engine, crash };
}

async function sums(e: Engine, metric: string, from: number, to: number): Promise<number[]> {
  const ref = e.select(1, metric, { op: 'all' })[0];
  if (!ref) return [];
  return (await e.read(1, [ref.id], 0, from, to))[0]!.sum;
}

t.test('a checkpoint while a purge is uncommitted keeps the WAL records of the windows it took from the head', async (t) => {
  const dir = tempDir(t);
  // a recent window: not due, so its points live only in the head and the WAL
  const base = Math.floor(Date.now() / 1000 / 60) * 60 - 1200;
  const a = await open(dir);
  await a.engine.append(1, Array.from({ length: 10 }, (_, i) => valueSample('gone', tags, base + i * 60, i)));
  const purge = await a.engine.purge(1, ['gone']);
  await a.engine.checkpoint();
  await a.crash(); // before the purge's batch commits: the metric was never deleted
  const b = await open(dir);
  t.same(await sums(b.engine, 'gone', base, base + 600), Array.from({ length: 10 }, (_, i) => i), 'every point replayed');
  await b.engine.close();
  await b.crash();
  t.ok(purge.ops.length > 0);
});

t.test('parts a running checkpoint lands for a series being purged are not deleted before the purge commits', async (t) => {
  const dir = tempDir(t);
  // windows long ended: due, so the checkpoint takes them and drops their WAL records
  const base = Math.floor(Date.now() / 1000 / 3600) * 3600 - 3 * 86400;
  const a = await open(dir);
  await a.engine.append(1, Array.from({ length: 10 }, (_, i) => valueSample('gone', tags, base + i * 60, i)));
  const writing = a.engine.checkpoint(); // has taken the windows synchronously
  const purge = await a.engine.purge(1, ['gone']);
  await writing; // its parts land for a series no longer indexed
  await a.engine.checkpoint(); // would delete them as orphans
  await a.crash();
  const b = await open(dir);
  t.same(await sums(b.engine, 'gone', base, base + 600), Array.from({ length: 10 }, (_, i) => i), 'every point kept');
  await b.engine.close();
  await b.crash();
  t.ok(purge.ops.length > 0);
});

t.test('once the purge commits, the next checkpoint deletes what it held back: no part and no WAL record left', async (t) => {
  const dir = tempDir(t);
  const old = Math.floor(Date.now() / 1000 / 3600) * 3600 - 3 * 86400;
  const recent = Math.floor(Date.now() / 1000 / 60) * 60 - 1200;
  const a = await open(dir);
  await a.engine.append(1, Array.from({ length: 10 }, (_, i) => valueSample('gone', tags, old + i * 60, i)));
  await a.engine.append(1, Array.from({ length: 10 }, (_, i) => valueSample('gone', tags, recent + i * 60, i)));
  const goneId = a.engine.select(1, 'gone', { op: 'all' })[0]!.id;
  const writing = a.engine.checkpoint();
  const purge = await a.engine.purge(1, ['gone']);
  await writing;
  await a.commit.write(purge.ops);
  purge.release();
  await a.engine.checkpoint();
  const left = (await a.engine.chunks.keys().all()).filter((k) => parseChunkKey(k).series === goneId);
  t.same(left, [], 'the parts landed during the purge are deleted');
  await a.engine.close();
  await a.crash();
  const b = await open(dir);
  t.same(b.engine.select(1, 'gone', { op: 'all' }), [], 'the metric stays deleted');
  t.equal(b.engine.seriesTotal(), 0);
  await b.engine.close();
  await b.crash();
  const store = await Store.open(dir, { sync: false });
  t.teardown(() => store.close());
  const wal = await store.binary('wal').keys().all();
  t.same(wal, [], 'no WAL record held back after the purge');
});
