// Source-based alerts: Librato's condition `source` (a pattern with `*`, sent by
// source-era clients; python-librato sends "*" on every condition) is the tag filter on
// `source`, the tag where POST /v1/metrics keeps a measurement's source (review 21: every
// condition with a source was a 400 saying "not supported on version 2 alerts", for
// version 1 alerts too).
import t from 'tap';
import { setup } from '../helpers/alert-setup.js';

t.test('a condition\'s source pattern picks the sources posted with POST /v1/metrics; "*" is every stream', async (t) => {
  const x = await setup(t);
  const created = await x.s.request('POST', '/v1/alerts', { json: { name: 'db.load', version: 1, services: [x.sid], conditions: [{ type: 'above', metric_name: 'load', threshold: 4, source: 'DB*' }] } });
  t.equal(created.status, 201, created.text);
  t.same(created.body.conditions[0].source, null, 'source is null in responses (the spec)');
  t.same(created.body.conditions[0].tags, [{ name: 'source', values: ['db*'], grouped: false }], 'it is the filter on the tag source (values are lower case)');
  const every = await x.s.request('POST', '/v1/alerts', { json: { name: 'any.load', services: [x.sid], conditions: [{ type: 'above', metric_name: 'load', threshold: 4, source: '*' }] } });
  t.equal(every.status, 201, every.text);
  t.same(every.body.conditions[0].tags, [], '"*" filters nothing');
  const absent = await x.s.request('POST', '/v1/alerts', { json: { name: 'beat', services: [x.sid], conditions: [{ type: 'absent', metric_name: 'beat', source: '*', summary_function: null, duration: 60 }] } });
  t.equal(absent.status, 201, 'python-librato\'s absent condition (source "*", summary_function null)');
  const r = await x.s.request('POST', '/v1/metrics', { json: { gauges: [
    { name: 'load', value: 9, source: 'db1', measure_time: x.t0 + 10 },
    { name: 'load', value: 9, source: 'web1', measure_time: x.t0 + 10 },
  ] } });
  t.equal(r.status, 200);
  await x.evaluate(x.t0 + 20);
  // db.load is a version 1 alert: its webhook payload is the legacy one, by source (v1-webhook.test.ts)
  const streams = (p: Record<string, any>) => (p.alert.version === 1 ? p.measurements.map((m: { source: string }) => m.source) : Object.keys(p.violations)).sort(); // eslint-disable-line @typescript-eslint/no-explicit-any
  const byName = Object.fromEntries(x.payloads().map((p) => [p.alert.name, streams(p)]));
  t.same(byName, { 'db.load': ['db1'], 'any.load': ['source=db1', 'source=web1'] });
});

t.test('a source pattern with a tag filter on source too, or an invalid one, is a 400 naming the condition', async (t) => {
  const x = await setup(t);
  const post = (condition: Record<string, unknown>) => x.s.request('POST', '/v1/alerts', { json: { name: 'bad', services: [x.sid], conditions: [{ type: 'above', metric_name: 'load', threshold: 4, ...condition }] } });
  const both = await post({ source: 'db*', tags: [{ name: 'source', values: ['web*'] }] });
  t.equal(both.status, 400);
  t.same(both.body, { errors: { params: { 'conditions[0]': ['source and a tag filter on source cannot both be given: keep one'] } } });
  const invalid = await post({ source: 'db 1/"x"' });
  t.equal(invalid.status, 400);
  t.match(invalid.body, { errors: { params: { 'conditions[0]': [/source/] } } });
  const form = await x.s.request('POST', '/v1/alerts', { form: `name=f&services[0]=${x.sid}&conditions[0][type]=above&conditions[0][metric_name]=load&conditions[0][threshold]=4&conditions[0][source]=db*` });
  t.equal(form.status, 201, 'a form\'s source too');
  t.same(form.body.conditions[0].tags, [{ name: 'source', values: ['db*'], grouped: false }]);
  const preview = await x.s.request('POST', '/v1/alerts/preview', { json: { conditions: [{ type: 'above', metric_name: 'load', threshold: 4, source: 'db*' }], start_time: x.t0, end_time: x.t0 + 60 } });
  t.equal(preview.status, 200, 'and a preview\'s');
});
