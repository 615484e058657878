// A shutdown has a deadline (systemd stops waiting; `gaugeway serve` exits by force):
// past it, the engine stops writing its head and leaves the points to the WAL, which
// the next start replays. Nothing acknowledged is lost either way.
import t from 'tap';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { startTestServer } from '../helpers/server.js';
import { hourBase, post, query } from '../helpers/measurements.js';
import { Store } from '../../src/store/db.js';

async function keyCounts(dataDir: string): Promise<{ parts: number; wal: number }> {
  const store = await Store.open(join(dataDir, 'db'), { sync: false });
  try {
    return { parts: (await store.binary('pts').keys().all()).length, wal: (await store.binary('wal').keys().all()).length };
  } finally {
    await store.close();
  }
}

t.test('a shutdown past its deadline writes no chunk parts, keeps the WAL, and the next start serves every point', async (t) => {
  const s = await startTestServer(t, 'storage:\n  checkpoint:\n    interval_seconds: 3600', { keepData: true });
  const base = hourBase() - 3600;
  const measurements = Array.from({ length: 50 }, (_, i) => ({ name: 'm', value: i, time: base + i * 60, tags: { host: `h${i % 5}` } }));
  t.equal((await post(s, { measurements })).status, 200);
  const dataDir = s.dataDir;
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  await s.server.close(Date.now() - 1);
  const left = await keyCounts(dataDir);
  t.equal(left.parts, 0, 'no part written after the deadline');
  t.ok(left.wal > 0, `the WAL kept the points (${left.wal} records)`);

  const again = await startTestServer(t, '', { dataDir, keepData: true });
  const reply = await query(again, 'm', `resolution=1&start_time=${base}&end_time=${base + 3600}`);
  t.equal(reply.status, 200);
  const series = (reply.body as { series: { tags: { host: string }; measurements: { time: number; value: number }[] }[] }).series;
  t.equal(series.length, 5);
  for (const one of series) {
    const h = Number(one.tags.host.slice(1));
    t.same(one.measurements.map((m) => m.value), Array.from({ length: 10 }, (_, k) => h + 5 * k), `host ${one.tags.host}: every point once`);
  }
  await again.server.close(); // no deadline: the head is written and the WAL emptied
  const after = await keyCounts(dataDir);
  t.ok(after.parts > 0, `a shutdown in time writes the parts (${after.parts})`);
  t.equal(after.wal, 0, 'and empties the WAL');
});
