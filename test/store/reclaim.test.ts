// Giving deleted space back (src/store/reclaim.ts): LevelDB keeps deleted keys' bytes in
// its table files until a compaction rewrites them, so the keyspaces that churn are
// compacted once what they deleted passes a threshold. Real LevelDB in a temp dir.
import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Store } from '../../src/store/db.js';
import { SpaceReclaimer } from '../../src/store/reclaim.js';
import { CommitQueue } from '../../src/store/commit.js';
import { Engine } from '../../src/tsdb/engine.js';
import { valueSample } from '../../src/tsdb/sample.js';
import { WINDOW, windowOf } from '../../src/tsdb/keys.js';
import { createLogger } from '../../src/log.js';
import { poll } from '../helpers/poll.js';

const log = createLogger('silent');
const MB = 1024 * 1024;

async function openStore(t: Test): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-reclaim-'));
  const store = await Store.open(dir, { sync: false });
  t.teardown(async () => { await store.close().catch(() => undefined); rmSync(dir, { recursive: true, force: true }); });
  return store;
}

/** Writes `mb` MB of incompressible values under `name`, then deletes them all: their bytes. */
async function churn(store: Store, name: string, mb: number, keep = 0): Promise<number> {
  const ks = store.binary(name);
  await ks.open();
  let bytes = 0;
  for (let b = 0; b < mb; b++) {
    // 16 values of 64 kB a batch: 1 MB
    await ks.batch(Array.from({ length: 16 }, (_, i) => ({ type: 'put' as const, key: `${String(b).padStart(6, '0')}-${i}`, value: randomBytes(64 * 1024) })));
  }
  for (let b = keep; b < mb; b++) {
    await ks.batch(Array.from({ length: 16 }, (_, i) => ({ type: 'del' as const, key: `${String(b).padStart(6, '0')}-${i}` })));
    bytes += 16 * 64 * 1024;
  }
  return bytes;
}

const sizeOf = (store: Store, name: string) => store.db.approximateSize(`!${name}!`, `!${name}"`);

t.test('deleted bytes past the threshold are compacted away', async (t) => {
  const store = await openStore(t);
  const deleted = await churn(store, 'wal', 24);
  t.ok(await sizeOf(store, 'wal') > 16 * MB, 'LevelDB keeps the deleted values on disk by itself');
  const reclaim = new SpaceReclaimer(store.db, log, { minBytes: 8 * MB, share: 0.25 });
  reclaim.deleted('wal', deleted);
  await reclaim.idle();
  t.equal(reclaim.reclaims, 1, 'one compaction');
  t.equal(reclaim.pending, 0, 'nothing left counted');
  t.ok(await sizeOf(store, 'wal') < 1 * MB, `the keyspace's files hold what is left (${await sizeOf(store, 'wal')} bytes)`);
});

t.test('below the minimum, or below the share of what is stored, nothing is compacted', async (t) => {
  const store = await openStore(t);
  const reclaim = new SpaceReclaimer(store.db, log, { minBytes: 4 * MB, share: 0.25 });
  // 2 MB deleted: under the minimum
  reclaim.deleted('wal', await churn(store, 'wal', 2));
  await reclaim.idle();
  t.equal(reclaim.reclaims, 0);
  t.equal(reclaim.pending, 2 * MB, 'still counted');
  // 4 MB deleted of 24: under a quarter of what the keyspace holds
  reclaim.deleted('pts', await churn(store, 'pts', 24, 20));
  await reclaim.idle();
  t.equal(reclaim.reclaims, 0);
  // 4 MB more deleted in the first keyspace: past the minimum now
  reclaim.deleted('wal', await churn(store, 'wal', 4));
  await reclaim.idle();
  t.equal(reclaim.reclaims, 1, 'the first keyspace, once past both');
  t.equal(reclaim.pending, 4 * MB, 'the other still counted');
});

t.test('a store that fails the compaction: a warning, the bytes stay counted, and no throw', async (t) => {
  const store = await openStore(t);
  const warnings: unknown[] = [];
  const watched = { ...log, warn: (o: unknown) => { warnings.push(o); }, info: () => undefined } as unknown as typeof log;
  const reclaim = new SpaceReclaimer(store.db, watched, { minBytes: 1, share: 0 });
  await store.close();
  reclaim.deleted('wal', 5 * MB);
  await reclaim.idle();
  t.equal(reclaim.reclaims, 0);
  t.equal(reclaim.pending, 5 * MB);
  t.equal(warnings.length, 1, 'warned once');
});

t.test('the engine reports what checkpoints and merges delete', async (t) => {
  const store = await openStore(t);
  const commit = new CommitQueue(store.db, false);
  const engine = await Engine.open(store, commit, log, { checkpointMs: 3_600_000, checkpointWalBytes: 1 << 30, sealIdleMs: 0, reclaim: { minBytes: 1, share: 0 } });
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  const tags = Object.freeze([Object.freeze(['host', 'a'] as const)]);
  for (let k = 0; k < 4; k++) {
    await engine.append(1, Array.from({ length: 50 }, (_, i) => valueSample('m', tags, base + (k * 50 + i) * 60, i)));
    await engine.checkpoint();
  }
  await engine.compacted();
  // the checkpoints deleted WAL records and the merges replaced parts: each was compacted
  await poll(async () => (engine.stats().reclaims >= 2 ? true : undefined));
  t.ok(engine.stats().reclaims >= 2, `keyspaces compacted (${engine.stats().reclaims})`);
  t.equal((await store.binary('wal').keys().all()).length, 0, 'no WAL record left');
  await engine.close();
  await commit.idle();
});
