// Version 1 (source-era) alerts notify webhooks with Librato's legacy payload (notes §4.3,
// librato-services webhook.rb): `{alert, metric: {name, type}, measurement, measurements
// (at most 20, each {value, source}), trigger_time}`, not the version 2 trigger with
// `"version": 1` in its alert (review 22). Their clear is the version 2 clear, as
// Librato's was.
import t from 'tap';
import { setup, type Setup } from '../helpers/alert-setup.js';

async function postSourced(x: Setup, kind: 'gauges' | 'counters', name: string, at: number, bySource: Record<string, number>): Promise<void> {
  const r = await x.s.request('POST', '/v1/metrics', { json: { [kind]: Object.entries(bySource).map(([source, value]) => ({ name, value, source, measure_time: at })) } });
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
}

t.test('a version 1 trigger is the legacy payload, its measurements by source, the highest first; its clear is the usual clear', async (t) => {
  const x = await setup(t);
  const id = await x.alert({ name: 'db.load', version: 1, conditions: [{ type: 'above', metric_name: 'load', threshold: 4, source: 'db*' }], attributes: { runbook_url: 'https://example.com/rb' } });
  await postSourced(x, 'gauges', 'load', x.t0 + 10, { db1: 9, db2: 12, db3: 1, web1: 50 });
  await x.evaluate(x.t0 + 20);
  const [trigger] = x.payloads();
  t.same(Object.keys(trigger!), ['alert', 'metric', 'measurement', 'measurements', 'trigger_time'], 'the legacy keys, in webhook.rb\'s order');
  t.same(trigger, {
    alert: { id, name: 'db.load', description: null, runbook_url: 'https://example.com/rb', version: 1 },
    metric: { name: 'load', type: 'gauge' },
    measurement: { value: 12, source: 'db2' },
    measurements: [{ value: 12, source: 'db2' }, { value: 9, source: 'db1' }],
    trigger_time: x.t0 + 20,
  });
  t.equal((await x.s.get(`/v1/alerts/${id}/status`)).body.status, 'triggered');
  await postSourced(x, 'gauges', 'load', x.t0 + 30, { db1: 1, db2: 1 });
  await x.evaluate(x.t0 + 40);
  const clear = x.payloads()[1]!;
  t.same(Object.keys(clear), ['alert', 'account', 'trigger_time', 'clear', 'incident_key'], 'a clear has the same keys for both versions');
  t.match(clear, { alert: { id, version: 1 }, account: x.s.admin.user, trigger_time: x.t0 + 40, clear: 'normal', incident_key: `${id}-${x.t0 + 20}` });
});

t.test('metric.type is the metric\'s own; a stream without source is "unassigned", a tagged one is named by its tags', async (t) => {
  const x = await setup(t);
  await x.alert({ name: 'requests', version: 1, conditions: [{ type: 'below', metric_name: 'requests', threshold: 100 }] });
  await x.alert({ name: 'temp', version: 1, conditions: [{ type: 'above', metric_name: 'temp', threshold: 30 }] });
  await postSourced(x, 'counters', 'requests', x.t0 + 10, { api1: 40, api2: 7 });
  const none = await x.s.request('POST', '/v1/metrics', { json: { gauges: [{ name: 'temp', value: 35, measure_time: x.t0 + 10 }] } });
  t.equal(none.status, 200);
  await x.post('temp', [[x.t0 + 10, 40]], { host: 'web1', region: 'eu' });
  await x.evaluate(x.t0 + 20);
  const byName = Object.fromEntries(x.payloads().map((p) => [p.alert.name, p]));
  t.same(byName.requests.metric, { name: 'requests', type: 'counter' }, 'a counter says so');
  t.same(byName.requests.measurements, [{ value: 7, source: 'api2' }, { value: 40, source: 'api1' }], 'below a threshold: the lowest first');
  t.same(byName.temp.metric, { name: 'temp', type: 'gauge' });
  t.same(byName.temp.measurements, [{ value: 40, source: 'host=web1,region=eu' }, { value: 35, source: 'unassigned' }]);
});

t.test('at most 20 measurements, the most severe; several metrics: the first violated condition\'s metric', async (t) => {
  const x = await setup(t);
  await x.alert({ name: 'many', version: 1, conditions: [{ type: 'above', metric_name: 'load', threshold: 0 }] });
  await x.alert({ name: 'two.metrics', version: 1, conditions: [
    { type: 'above', metric_name: 'mem', threshold: 1000 },
    { type: 'above', metric_name: 'LOAD', threshold: 20 },
    { type: 'below', metric_name: 'load', threshold: 5 },
    { type: 'above', metric_name: 'disk', threshold: 0 },
  ] });
  await postSourced(x, 'gauges', 'load', x.t0 + 10, Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`h${String(i).padStart(2, '0')}`, i + 1])));
  await postSourced(x, 'gauges', 'disk', x.t0 + 10, { d1: 3 });
  await postSourced(x, 'gauges', 'mem', x.t0 + 10, { m1: 10 });
  await x.evaluate(x.t0 + 20);
  const many = x.payloads().find((p) => p.alert.name === 'many')!;
  t.equal(many.measurements.length, 20);
  t.same(many.measurement, { value: 25, source: 'h24' });
  t.same(many.measurements.at(-1), { value: 6, source: 'h05' }, 'the 20 highest of 25');
  t.notOk(x.payloads().some((p) => p.alert.name === 'two.metrics'), 'mem is not above 1000: no trigger');
  await postSourced(x, 'gauges', 'mem', x.t0 + 30, { m1: 2000 });
  await postSourced(x, 'gauges', 'load', x.t0 + 30, { h00: 3, h01: 30, h02: 25 });
  await x.evaluate(x.t0 + 40);
  const two = x.payloads().find((p) => p.alert.name === 'two.metrics')!;
  t.same(two.metric, { name: 'mem', type: 'gauge' }, 'the first condition violated: mem');
  t.same(two.measurements, [{ value: 2000, source: 'm1' }]);
});

t.test('an absent condition violated first: its metric, its silent source', async (t) => {
  const x = await setup(t);
  await x.alert({ name: 'load.band', version: 1, conditions: [
    { type: 'absent', metric_name: 'beat', duration: 60 },
    { type: 'above', metric_name: 'Load', threshold: 20 },
    { type: 'below', metric_name: 'load', threshold: 50 },
  ] });
  await postSourced(x, 'gauges', 'beat', x.t0 + 5, { b1: 1 });
  await postSourced(x, 'gauges', 'load', x.t0 + 100, { h1: 30, h2: 25, h3: 60 });
  await x.evaluate(x.t0 + 110);
  const [p] = x.payloads();
  t.same(p!.metric, { name: 'beat', type: 'gauge' }, 'the first condition (absent) is violated: its metric');
  t.same(p!.measurements.map((m: { source: string }) => m.source), ['b1']);
});

t.test('several conditions on one metric: each source once, the first condition\'s value', async (t) => {
  const x = await setup(t);
  await x.alert({ name: 'load.band', version: 1, conditions: [
    { type: 'above', metric_name: 'Load', threshold: 20 },
    { type: 'below', metric_name: 'load', threshold: 50 },
  ] });
  await postSourced(x, 'gauges', 'load', x.t0 + 10, { h1: 30, h2: 25, h3: 60, h4: 10 });
  await x.evaluate(x.t0 + 20);
  const [p] = x.payloads();
  t.same(p!.metric, { name: 'Load', type: 'gauge' }, 'named as its condition writes it');
  t.same(p!.measurements, [{ value: 60, source: 'h3' }, { value: 30, source: 'h1' }, { value: 25, source: 'h2' }, { value: 10, source: 'h4' }]);
});

t.test('version 2 alerts keep the version 2 trigger', async (t) => {
  const x = await setup(t);
  await x.alert({ name: 'v2', conditions: [{ type: 'above', metric_name: 'load', threshold: 4 }] });
  await postSourced(x, 'gauges', 'load', x.t0 + 10, { db1: 9 });
  await x.evaluate(x.t0 + 20);
  t.same(Object.keys(x.payloads()[0]!), ['alert', 'account', 'trigger_time', 'incident_key', 'conditions', 'violations', 'triggered_by_user_test']);
});

t.test('POST /v1/services/:id/test with version 1 sends the legacy payload; version 2 (the default) the usual one', async (t) => {
  const x = await setup(t);
  const v1 = await x.s.request('POST', `/v1/services/${x.sid}/test`, { json: { version: 1 } });
  t.match(v1.body, { status: 'sent' });
  const legacy = x.payloads()[0]!;
  t.same(Object.keys(legacy), ['alert', 'metric', 'measurement', 'measurements', 'trigger_time']);
  t.match(legacy, { alert: { id: 0, name: 'gaugeway.test', version: 1 }, metric: { name: 'gaugeway.test', type: 'gauge' }, measurement: { value: 1, source: 'test' }, measurements: [{ value: 1, source: 'test' }] });
  const form = await x.s.request('POST', `/v1/services/${x.sid}/test`, { form: 'version=1' });
  t.match(form.body, { status: 'sent' });
  t.same(Object.keys(x.payloads()[1]!), ['alert', 'metric', 'measurement', 'measurements', 'trigger_time'], 'a form says it too');
  t.match((await x.s.request('POST', `/v1/services/${x.sid}/test`)).body, { status: 'sent' });
  t.match(x.payloads()[2], { alert: { version: 2 }, triggered_by_user_test: true, violations: { 'host=test': [{}] } }, 'no body: a version 2 test');
  const bad = await x.s.request('POST', `/v1/services/${x.sid}/test`, { json: { version: 3 } });
  t.equal(bad.status, 400);
  t.match(bad.body, { errors: { params: { version: [/./] } } });
  t.equal(x.payloads().length, 3, 'a refused test sends nothing');
});
