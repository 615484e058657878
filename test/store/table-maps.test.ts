// LevelDB maps every table its table cache keeps open, and the pages it reads stay in the
// process's RSS until the table leaves the cache: the store keeps both the cache and the
// tables small (src/store/db.ts), so those pages stay bounded however large the data grows.
// Real LevelDB in a temp dir; the maps are read from /proc/self/maps (Linux).
import t from 'tap';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Store } from '../../src/store/db.js';

const MB = 1024 * 1024;

t.test('table files stay small and at most 64 of them are mapped at once', async (t) => {
  if (!existsSync('/proc/self/maps')) return t.skip('no /proc/self/maps on this system');
  const dir = mkdtempSync(join(tmpdir(), 'gw-maps-'));
  const store = await Store.open(dir, { sync: false });
  t.teardown(async () => { await store.close().catch(() => undefined); rmSync(dir, { recursive: true, force: true }); });
  const ks = store.binary('data');
  await ks.open();
  // 96 MB of incompressible values, each batch across the whole key range (as a checkpoint
  // writes every series): flushes overlap, so compactions rewrite them into 1 MB tables
  for (let b = 0; b < 96; b++) {
    await ks.batch(Array.from({ length: 16 }, (_, i) => ({ type: 'put' as const, key: `${String(i).padStart(2, '0')}-${String(b).padStart(4, '0')}`, value: randomBytes(64 * 1024) })));
  }
  await store.db.compactRange('\x00', '\xff');
  const tables = readdirSync(dir).filter((f) => f.endsWith('.ldb'));
  t.ok(tables.length > 64, `more tables than the cache holds (${tables.length})`);
  const largest = Math.max(...tables.map((f) => statSync(join(dir, f)).size));
  t.ok(largest < 1.5 * MB, `compacted tables are about 1 MB, not LevelDB's default 2 MB (largest ${(largest / MB).toFixed(2)} MB)`);
  // read every value: every table goes through the table cache
  let read = 0;
  for await (const v of ks.values()) read += v.length;
  t.equal(read, 96 * MB);
  const mapped = new Set(readFileSync('/proc/self/maps', 'utf8').split('\n').filter((l) => l.includes(dir) && l.endsWith('.ldb')).map((l) => l.slice(l.lastIndexOf('/') + 1)));
  t.ok(mapped.size > 0, `tables are read through maps (${mapped.size})`);
  t.ok(mapped.size <= 64, `at most 64 tables mapped after reading them all (${mapped.size} of ${tables.length})`);
});
