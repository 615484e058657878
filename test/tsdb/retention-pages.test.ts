// The retention pass lists chunk keys a page at a time (no iterator, so no LevelDB
// snapshot, stays open while it merges and deletes). Every key must still be seen once,
// in order, while the pass rewrites and deletes keys it has already listed.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/db.js';
import { keysInPages } from '../../src/tsdb/retention.js';

t.test('keys listed a page at a time: each once, in order, while listed ones are rewritten or deleted', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-pages-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = await Store.open(dir, { sync: false });
  t.teardown(() => store.close());
  const pts = store.binary('pts');
  const keys = Array.from({ length: 23 }, (_, i) => `k${String(i).padStart(3, '0')}`);
  await pts.batch(keys.map((key) => ({ type: 'put' as const, key, value: Buffer.from(key) })));
  for (const pageSize of [1, 4, 5, 23, 100]) {
    const seen: string[] = [];
    for await (const key of keysInPages(pts, pageSize)) {
      seen.push(key);
      // as a merge does: the newest key of a group rewritten, the older ones deleted
      await pts.put(key, Buffer.from('merged'));
      if (seen.length > 1 && seen.length % 3 === 0) await pts.del(seen[seen.length - 2]!);
    }
    t.same(seen, keys, `pages of ${pageSize}: every key once, in order`);
    await pts.batch(keys.map((key) => ({ type: 'put' as const, key, value: Buffer.from(key) })));
  }
  t.same(await (async () => { const all: string[] = []; for await (const k of keysInPages(store.binary('empty'))) all.push(k); return all; })(), [], 'an empty keyspace lists nothing');
});
