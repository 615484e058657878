// The engine below HTTP: a "crash" is closing LevelDB without the engine's final
// checkpoint, then opening a new engine over the same directory.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/db.js';
import { CommitQueue } from '../../src/store/commit.js';
import { Engine, type EngineOptions } from '../../src/store/engine.js';
import { createLogger } from '../../src/log.js';
import { valueSample } from '../../src/ingest/sample.js';

const log = createLogger('silent');

async function open(dir: string, opts: Partial<EngineOptions> = {}) {
  const store = await Store.open(dir, { sync: false });
  const commit = new CommitQueue(store.db, false);
  const engine = await Engine.open(store, commit, log, { checkpointMs: 3_600_000, checkpointWalBytes: 64 * 1024 * 1024, sealIdleMs: 3_600_000, ...opts });
  const crash = async () => { await commit.idle(); await store.close(); };
  return { store, engine, crash };
}

const tags = Object.freeze([Object.freeze(['host', 'a'] as const)]);

t.test('a checkpoint triggered by an append never drops that append\'s WAL record early', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const base = Math.floor(Date.now() / 1000 / 3600) * 3600 - 3 * 86400;
  // a tiny WAL threshold: every append triggers a checkpoint
  const a = await open(dir, { checkpointWalBytes: 65536 / 1024 });
  for (let i = 0; i < 50; i++) await a.engine.append(1, [valueSample('m', tags, base + i * 3600, i)]);
  await a.crash();
  const b = await open(dir);
  const ref = b.engine.select(1, 'm', { op: 'all' })[0]!;
  const p = await b.engine.read(1, ref.id, 0, base, base + 50 * 3600);
  t.same(p.t.length, 50);
  t.ok(p.count.every((c) => c === 1), 'every point counted once after replay');
  t.same(p.sum, Array.from({ length: 50 }, (_, i) => i));
  await b.engine.close();
  await b.crash();
});

t.test('reads merge stored parts, pending chunks and the head; rollups match raw', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const base = Math.floor(Date.now() / 1000 / 86400) * 86400 - 2 * 86400;
  const a = await open(dir);
  // two windows in order, then a late point into the first (a second part of it)
  for (let i = 0; i < 720; i++) await a.engine.append(1, [valueSample('m', tags, base + i * 60, 1)]);
  await a.engine.checkpoint();
  await a.engine.append(1, [valueSample('m', tags, base + 30, 5)]);
  const ref = a.engine.select(1, 'm', { op: 'all' })[0]!;
  const raw = await a.engine.read(1, ref.id, 0, base, base + 43200);
  t.equal(raw.t.length, 721);
  const hourly = await a.engine.read(1, ref.id, 3600, base, base + 43200);
  t.same(hourly.t.length, 12);
  t.same(hourly.count[0], 61);
  t.same(hourly.sum[0], 65);
  t.same(hourly.max[0], 5);
  await a.engine.close();
  await a.crash();
  const b = await open(dir);
  const again = await b.engine.read(1, ref.id, 3600, base, base + 43200);
  t.same(again, hourly, 'the same after a clean restart');
  await b.engine.close();
  await b.crash();
});
