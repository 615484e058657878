// limits.wide_reads through the API: a query over more than one read batch (512 series)
// waits its turn while the slots are taken, and is refused with 503 after the queue
// timeout; narrower queries never wait.
import t from 'tap';
import https from 'node:https';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hourBase, post, query } from '../helpers/measurements.js';
import { poll } from '../helpers/poll.js';

const SERIES = 600;

async function wideMetric(s: TestServer, base: number) {
  const measurements = Array.from({ length: SERIES }, (_, i) => ({ name: 'wide', value: 1, tags: { host: `h${i}`, region: `r${i % 2}` } }));
  const r = await post(s, { time: base, measurements });
  if (r.status !== 200) throw new Error(r.text);
}

/** Takes every slot of the gate until the returned function is called. */
function holdSlots(s: TestServer, n: number): () => void {
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  for (let i = 0; i < n; i++) void s.server.rt.engine.wideReads.run(() => held);
  return release;
}

/** `name` may carry its labels: gaugeway_x{reason="y"} */
const metricValue = async (s: TestServer, name: string) => {
  const text = (await s.get('/metrics', { auth: null })).text;
  const escaped = name.replace(/[{}"]/g, (c) => `\\${c}`);
  return Number(new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text)?.[1]);
};

t.test('a wide query waits for a slot, then answers in full', async (t) => {
  const s = await startTestServer(t, 'limits:\n  wide_reads:\n    concurrency: 2\n    queue_timeout_ms: 600000');
  const base = hourBase();
  await wideMetric(s, base);
  const release = holdSlots(s, 2);
  const params = `resolution=60&start_time=${base}&end_time=${base + 60}&group_by=region&group_by_function=sum`;
  const pending = query(s, 'wide', params);
  await poll(async () => ((await metricValue(s, 'gaugeway_wide_reads_waiting')) === 1 ? true : undefined));
  // a narrow query is not queued behind the wide ones
  const narrow = await query(s, 'wide', `resolution=60&start_time=${base}&end_time=${base + 60}&tags[host]=h7`);
  t.equal(narrow.status, 200);
  t.equal(narrow.body.series.length, 1);
  release();
  const wide = await pending;
  t.equal(wide.status, 200, wide.text.slice(0, 200));
  t.same(wide.body.series.map((x: { tags: Record<string, string>; measurements: { value: number }[] }) => [x.tags.region, x.measurements[0]!.value]),
    [['r0', SERIES / 2], ['r1', SERIES / 2]], 'every series counted once');
  t.equal(await metricValue(s, 'gaugeway_wide_reads_waiting'), 0);
});

t.test('a wide query that waits past queue_timeout_ms gets 503 in the errors envelope, counted in /metrics', async (t) => {
  const s = await startTestServer(t, 'limits:\n  wide_reads:\n    concurrency: 1\n    queue_timeout_ms: 50');
  const base = hourBase();
  await wideMetric(s, base);
  const params = `resolution=60&start_time=${base}&end_time=${base + 60}&group_by=region&group_by_function=sum`;
  const release = holdSlots(s, 1);
  const refused = await query(s, 'wide', params);
  t.equal(refused.status, 503);
  t.match(refused.body, { errors: { system: [/limits\.wide_reads/] } });
  t.equal(refused.headers['retry-after'], '1');
  t.equal(await metricValue(s, 'gaugeway_wide_reads_refused_total'), 1);
  release();
  await poll(async () => ((await query(s, 'wide', params)).status === 200 ? true : undefined));
  t.equal(await metricValue(s, 'gaugeway_wide_reads_refused_total'), 1, 'counted once');
});

t.test('a wide query whose client goes away while it waits leaves the queue, and its read never runs', async (t) => {
  const s = await startTestServer(t, 'limits:\n  wide_reads:\n    concurrency: 1\n    queue_timeout_ms: 600000');
  const base = hourBase();
  await wideMetric(s, base);
  const release = holdSlots(s, 1);
  const params = `resolution=60&start_time=${base}&end_time=${base + 60}&group_by=region&group_by_function=sum`;
  const gone = https.request({
    host: '127.0.0.1', port: s.port, path: `/v1/measurements/wide?${params}`, ca: s.server.tls.ca, servername: 'localhost',
    headers: { authorization: 'Basic ' + Buffer.from(`${s.admin.user}:${s.admin.password}`).toString('base64') },
  });
  gone.on('error', () => undefined); // the socket is ours to destroy
  gone.end();
  await poll(async () => ((await metricValue(s, 'gaugeway_wide_reads_waiting')) === 1 ? true : undefined));
  gone.destroy();
  await poll(async () => ((await metricValue(s, 'gaugeway_wide_reads_waiting')) === 0 ? true : undefined));
  await poll(async () => ((await metricValue(s, 'gaugeway_http_rejected_requests_total{reason="aborted"}')) === 1 ? true : undefined));
  t.equal(await metricValue(s, 'gaugeway_wide_reads_refused_total'), 0, 'not a refusal');
  t.equal(s.server.rt.engine.wideReads.waiting, 0);
  release();
  const after = await query(s, 'wide', params);
  t.equal(after.status, 200, 'the slot is free for the next query');
});
