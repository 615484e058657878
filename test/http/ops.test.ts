import t from 'tap';
import { startTestServer } from '../helpers/server.js';

t.test('health, readiness and self-metrics answer without auth, on HTTPS and plain HTTP', async (t) => {
  const s = await startTestServer(t);
  for (const plain of [false, true]) {
    const health = await s.get('/health', { auth: null, plain });
    t.equal(health.status, 200);
    t.same(health.body, { status: 'ok' });
    const ready = await s.get('/ready', { auth: null, plain });
    t.equal(ready.status, 200);
  }
  await s.get('/v1/metrics');
  await s.get('/v1/nope', { auth: null });
  await s.get('/v1/metrics/some.metric', { auth: { user: 'nobody@example.com', password: 'wrong' } });
  const metrics = await s.get('/metrics', { auth: null, plain: true });
  t.match(metrics.text, /gaugeway_http_request_duration_seconds_count\{method="GET",route="\/v1\/metrics\/:name",status="401"\} 1/,
    'a failed login is labelled with the route it was aimed at');
  t.match(metrics.text, /gaugeway_http_request_duration_seconds_count\{method="GET",route="unmatched",status="401"\} 1/, 'an unknown path stays unmatched');
  t.equal(metrics.status, 200);
  t.match(metrics.text, /gaugeway_http_request_duration_seconds_bucket\{[^}]*route="\/v1\/metrics"[^}]*status="200"/);
  t.match(metrics.text, /gaugeway_http_rejected_requests_total\{reason="unauthenticated"\} 2/);
  t.match(metrics.text, /gaugeway_process_cpu_seconds_total/);
  t.match(metrics.text, /^gaugeway_series 0$/m);
  t.match(metrics.text, /^gaugeway_store_reclaim_pending_bytes 0$/m, 'deleted space not yet given back');
  t.match(metrics.text, /^gaugeway_store_reclaims_total 0$/m, 'keyspace compactions run for it');
  t.match(metrics.text, /^gaugeway_wide_reads_refused_total 0$/m);
});

t.test('ingest self-metrics count stored samples and engine state', async (t) => {
  const s = await startTestServer(t);
  const now = Math.floor(Date.now() / 1000);
  t.equal((await s.request('POST', '/v1/metrics', { json: { gauges: [{ name: 'a', value: 1, source: 'x', measure_time: now }, { name: 'a', value: 2, source: 'y', measure_time: now }] } })).status, 200);
  const metrics = (await s.get('/metrics', { auth: null })).text;
  t.match(metrics, /^gaugeway_ingest_samples_total\{api="source"\} 2$/m);
  t.match(metrics, /^gaugeway_series 2$/m);
  t.match(metrics, /^gaugeway_head_points 2$/m);
});

t.test('plain HTTP on the API port gets the spec 403', async (t) => {
  const s = await startTestServer(t);
  const r = await s.get('/v1/metrics', { plain: true });
  t.equal(r.status, 403);
  t.same(r.body, { errors: { request: ['Please use secured connection through https!'] } });
});
