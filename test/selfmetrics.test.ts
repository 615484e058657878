// The engine's gauges on /metrics: one walk of the head serves a whole collection (stats()
// visits every head chunk, and six readings come from it), and the next collection reads afresh.
import t from 'tap';
import { SelfMetrics } from '../src/selfmetrics.js';

t.test('one engine stats() a collection, fresh figures the next', async (t) => {
  const metrics = new SelfMetrics(false);
  let calls = 0;
  metrics.watchEngine(() => {
    calls++;
    return { series: calls * 10, headPoints: 5, walBytes: 7, chunkParts: 3, reclaims: calls, reclaimPendingBytes: 0 };
  });
  const first = await metrics.registry.metrics();
  t.equal(calls, 1);
  t.match(first, /^gaugeway_series 10$/m);
  t.match(first, /^gaugeway_store_reclaims_total 1$/m);
  const second = await metrics.registry.metrics();
  t.equal(calls, 2);
  t.match(second, /^gaugeway_series 20$/m);
  t.match(second, /^gaugeway_store_reclaims_total 2$/m);
});
