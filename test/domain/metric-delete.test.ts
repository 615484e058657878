// The catalogue's side of a purge: a hook's operations go in the batch that deletes the
// metric records, and its release comes after that batch, committed or failed, so the
// storage engine never lets go of what a crash before the commit would still need.
import t, { type Test } from 'tap';
import { Store } from '../../src/store/db.js';
import { CommitQueue, type WriteOp } from '../../src/store/commit.js';
import { ApiError } from '../../src/errors.js';
import { MetricCatalog } from '../../src/domain/metrics.js';
import { tempDir } from '../helpers/tmp.js';

/** Counts the batches it has committed. */
class CountingQueue extends CommitQueue {
  committed = 0;
  override async write(ops: WriteOp[]): Promise<void> {
    await super.write(ops);
    this.committed++;
  }
}

async function catalogue(t: Test) {
  const store = await Store.open(tempDir(t), { sync: false });
  t.teardown(() => store.close());
  const commit = new CountingQueue(store.db, false);
  const catalog = new MetricCatalog(store, commit);
  await catalog.put(1, 'm', { type: 'gauge' }, null);
  // what a fresh catalogue over the same store finds: the records as committed
  const stored = async () => (await new MetricCatalog(store, commit).get(1, 'm')) !== undefined;
  return { store, commit, catalog, stored };
}

t.test('a purge is released once the batch deleting the metric has committed', async (t) => {
  const { commit, catalog, stored } = await catalogue(t);
  const before = commit.committed;
  const seen: number[] = [];
  catalog.purgeHooks.push(async () => ({ ops: [], release: () => { seen.push(commit.committed - before); } }));
  t.equal(await catalog.deleteMany(1, ['m']), 1);
  t.same(seen, [1], 'released once, after the batch committed');
  t.notOk(await stored(), 'the metric record is gone from the store');
});

t.test('a purge is released when the batch fails too, and the metric stays', async (t) => {
  const { commit, catalog, stored } = await catalogue(t);
  let released = 0;
  catalog.purgeHooks.push(async () => ({ ops: [], release: () => { released++; } }));
  commit.admit = () => new ApiError(507, { system: ['full'] });
  await t.rejects(catalog.deleteMany(1, ['m']));
  t.equal(released, 1, 'released once');
  commit.admit = () => null;
  t.ok(await stored(), 'the metric record is still stored');
});
