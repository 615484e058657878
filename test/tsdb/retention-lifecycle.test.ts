// Short retentions (storage.retention): a query past a tier's retention is the spec's
// "resolution unavailable" 400 for resolutions only that tier could serve, and the
// retention pass (what `gaugeway store compact` runs) changes no answer inside
// retention, nor does a restart after it.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { post, query } from '../helpers/measurements.js';
import { UNAVAILABLE_RESOLUTION } from '../../src/query/window.js';

t.test('the retention pass leaves every read inside retention as it was, across tiers and a restart', async (t) => {
  const yaml = 'storage:\n  retention:\n    raw: 12h\n    "60": 2d\n    "900": 4d\n    "3600": 10d\n  checkpoint:\n    interval_seconds: 3600';
  const s = await startTestServer(t, yaml, { keepData: true });
  const now = Math.floor(Date.now() / 1000);
  // nine days, every 20 minutes, two series; every other point off the whole minute (raw and 60 s parts, and m parts)
  const ms = Array.from({ length: 9 * 72 }, (_, i) => ({ name: 'm', value: i, time: now - 9 * 86400 + i * 1200 + (i % 2 ? 7 : 0), tags: { host: `h${i % 2}` } }));
  for (let i = 0; i < ms.length; i += 500) t.equal((await post(s, { measurements: ms.slice(i, i + 500) })).status, 200);
  await s.server.rt.engine.checkpoint();

  const cases: string[] = [];
  for (const res of [1, 60, 900, 3600, 86400]) {
    for (const back of [11 * 3600, 13 * 3600, 36 * 3600, 3 * 86400, 5 * 86400, 9 * 86400 + 100]) cases.push(`resolution=${res}&start_time=${now - back}&end_time=${now}`);
  }
  const answers = async (srv: typeof s) => Object.fromEntries(await Promise.all(cases.map(async (c) => {
    const r = await query(srv, 'm', c);
    return [c, { status: r.status, body: r.status === 200 ? r.body.series : r.body }] as const;
  })));
  const before = await answers(s);
  const unavailable = { errors: { request: [UNAVAILABLE_RESOLUTION] } };
  t.same(before[`resolution=1&start_time=${now - 13 * 3600}&end_time=${now}`], { status: 400, body: unavailable }, 'raw points past the raw retention: 400');
  t.same(before[`resolution=60&start_time=${now - 3 * 86400}&end_time=${now}`], { status: 400, body: unavailable }, '60 s past its retention: 400');
  t.equal(before[`resolution=60&start_time=${now - 13 * 3600}&end_time=${now}`]!.status, 200, '60 s past the raw retention: from its own tier');
  t.equal(before[`resolution=3600&start_time=${now - 9 * 86400 - 100}&end_time=${now}`]!.status, 200, 'hours within their retention');

  const r = await s.server.rt.retention.run();
  t.ok(r.expired > 0, `the pass expired chunks (${r.expired})`);
  t.same(await answers(s), before, 'every answer as before the pass');
  const dataDir = s.dataDir;
  await s.server.close();
  const again = await startTestServer(t, yaml, { dataDir });
  t.same(await answers(again), before, 'and after a restart');
});
