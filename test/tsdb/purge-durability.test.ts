// A metric's delete is one batch: the metric record and every key of its data. Until that
// batch commits, a crash must find the metric whole, so nothing the engine does meanwhile
// (a checkpoint deleting WAL records, a checkpoint deleting orphaned parts) may drop
// points that only the not-yet-deleted metric still holds.
import t from 'tap';
import { Store } from '../../src/store/db.js';
import type { Engine } from '../../src/tsdb/engine.js';
import { valueSample } from '../../src/tsdb/sample.js';
import { parseChunkKey } from '../../src/tsdb/keys.js';
import { tempDir } from '../helpers/tmp.js';
import { openEngine as open } from '../helpers/engine.js';

const tags = Object.freeze([Object.freeze(['host', 'a'] as const)]);
const TEN = Array.from({ length: 10 }, (_, i) => i);
/** ten points a minute apart from `base`, valued 0-9 */
const tenPoints = (base: number) => TEN.map((i) => valueSample('gone', tags, base + i * 60, i));

async function sums(e: Engine, metric: string, from: number, to: number): Promise<number[]> {
  const ref = e.select(1, metric, { op: 'all' })[0];
  if (!ref) return [];
  return (await e.read(1, [ref.id], 0, from, to))[0]!.sum;
}

/** The points of `gone` from `base` that an engine opened again over `dir` reads. */
async function afterStart(dir: string, base: number): Promise<number[]> {
  const b = await open(dir);
  const found = await sums(b.engine, 'gone', base, base + 600);
  await b.engine.close();
  await b.crash();
  return found;
}

t.test('a checkpoint while a purge is uncommitted keeps the WAL records of the windows it took from the head', async (t) => {
  const dir = tempDir(t);
  // a recent window: not due, so its points live only in the head and the WAL
  const base = Math.floor(Date.now() / 1000 / 60) * 60 - 1200;
  const a = await open(dir);
  await a.engine.append(1, tenPoints(base));
  const purge = await a.engine.purge(1, ['gone']);
  await a.engine.checkpoint();
  await a.crash(); // before the purge's batch commits: the metric was never deleted
  t.same(await afterStart(dir, base), TEN, 'every point replayed');
  t.ok(purge.ops.length > 0);
});

t.test('parts a running checkpoint lands for a series being purged are not deleted before the purge commits', async (t) => {
  const dir = tempDir(t);
  // windows long ended: due, so the checkpoint takes them and drops their WAL records
  const base = Math.floor(Date.now() / 1000 / 3600) * 3600 - 3 * 86400;
  const a = await open(dir);
  await a.engine.append(1, tenPoints(base));
  const writing = a.engine.checkpoint(); // has taken the windows synchronously
  const purge = await a.engine.purge(1, ['gone']);
  await writing; // its parts land for a series no longer indexed
  await a.engine.checkpoint(); // would delete them as orphans
  await a.crash();
  t.same(await afterStart(dir, base), TEN, 'every point kept');
  t.ok(purge.ops.length > 0);
});

t.test('once the purge commits, the next checkpoint deletes what it held back: no part and no WAL record left', async (t) => {
  const dir = tempDir(t);
  const old = Math.floor(Date.now() / 1000 / 3600) * 3600 - 3 * 86400;
  const recent = Math.floor(Date.now() / 1000 / 60) * 60 - 1200;
  const a = await open(dir);
  await a.engine.append(1, tenPoints(old));
  await a.engine.append(1, tenPoints(recent));
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
