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
  const metrics = await s.get('/metrics', { auth: null, plain: true });
  t.equal(metrics.status, 200);
  t.match(metrics.text, /gaugeway_http_request_duration_seconds_bucket\{[^}]*route="\/v1\/metrics"[^}]*status="200"/);
  t.match(metrics.text, /gaugeway_http_rejected_requests_total\{reason="unauthenticated"\} 1/);
  t.match(metrics.text, /gaugeway_process_cpu_seconds_total/);
});

t.test('plain HTTP on the API port gets the spec 403', async (t) => {
  const s = await startTestServer(t);
  const r = await s.get('/v1/metrics', { plain: true });
  t.equal(r.status, 403);
  t.same(r.body, { errors: { request: ['Please use secured connection through https!'] } });
});
