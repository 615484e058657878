// The published librato-node client, unmodified, pointed at a Gaugeway started here.
import t from 'tap';
import librato from 'librato-node';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { poll } from '../helpers/poll.js';

function flush(): Promise<void> {
  return new Promise((resolve, reject) => librato.flush((err?: Error) => (err ? reject(err) : resolve())));
}


async function bySource(s: TestServer, name: string, since: number) {
  const r = await s.get(`/v1/metrics/${name}?start_time=${since}&resolution=1`);
  return r.status === 200 ? r.body.measurements as Record<string, { value: number; count: number; sum?: number; min?: number; max?: number; sum_squares?: number }[]> : undefined;
}

t.test('librato-node pushes gauges, aggregated gauges and counters; every value reads back', async (t) => {
  const s = await startTestServer(t);
  const since = Math.floor(Date.now() / 1000) - 5;
  librato.configure({
    email: s.admin.user,
    token: s.admin.password,
    period: 60_000,
    requestOptions: { uri: `https://127.0.0.1:${s.port}/v1/metrics`, ca: s.server.tls.ca, maxAttempts: 1 },
  });
  librato.on('error', (err: Error) => t.fail(`librato-node reported ${err.message}`));

  librato.measure('jobs.latency', 10, { source: 'worker-1' });
  librato.measure('jobs.latency', 20, { source: 'worker-1' });
  librato.measure('jobs.latency', 7, { source: 'worker-2' });
  librato.increment('jobs.done');
  librato.increment('jobs.done', 2);
  await flush();
  // The counter cache keeps counting: the next flush sends the running total. Wait for
  // the next second so the two submissions are two points.
  const second = Math.floor(Date.now() / 1000) + 1;
  while (Math.floor(Date.now() / 1000) < second) await new Promise((r) => setTimeout(r, 50));
  librato.increment('jobs.done', 4);
  await flush();

  const latency = await poll(() => bySource(s, 'jobs.latency', since));
  t.same(latency['worker-1'], [{ measure_time: latency['worker-1']![0]!.measure_time, value: 15, count: 2, sum: 30, min: 10, max: 20, sum_squares: 500 }]);
  t.same(latency['worker-2']!.map((r) => [r.value, r.count]), [[7, 1]]);

  const done = await poll(async () => {
    const m = await bySource(s, 'jobs.done', since);
    return m?.unassigned?.length === 2 ? m : undefined;
  });
  t.same(done.unassigned!.map((r) => r.value), [3, 7], 'counters read back as submitted');
  t.equal((await s.get('/v1/metrics/jobs.done')).body.type, 'counter');
  t.match((await s.get('/v1/metrics/jobs.latency')).body.attributes, { created_by_ua: /^librato-node\// });
});
