// absent with a grouped tag filter: the matching streams are one group (docs/alerts.md,
// "Streams"), absent only when none of them has reported for the duration (review 21: each
// stream was judged alone, so one quiet host of a group that kept reporting fired it).
import t from 'tap';
import { setup } from '../helpers/alert-setup.js';

t.test('absent, grouped: the group is absent only when every stream of it is quiet', async (t) => {
  const x = await setup(t);
  const id = await x.alert({ name: 'grp', conditions: [{ type: 'absent', metric_name: 'beat', duration: 60, tags: [{ name: 'host', values: ['*'], grouped: true }] }] });
  const cid = (await x.s.get(`/v1/alerts/${id}`)).body.conditions[0].id;
  await x.post('beat', [[x.t0 + 10, 1]], { host: 'a' });
  await x.post('beat', [[x.t0 + 10, 1], [x.t0 + 100, 1]], { host: 'b' });
  await x.evaluate(x.t0 + 120);
  t.same(x.payloads(), [], 'a has been quiet for 110 s, but b reported 20 s ago: the group is not absent');
  await x.evaluate(x.t0 + 170);
  t.same(x.payloads().map((p) => p.violations), [{ 'host=*': [{ metric: 'beat', value: 70, recorded_at: x.t0 + 100, condition_violated: cid }] }],
    'both quiet for 60 s: one violation, of the group, dated by its newest point');
  await x.post('beat', [[x.t0 + 180, 1]], { host: 'a' });
  await x.evaluate(x.t0 + 185);
  t.equal(x.payloads()[1]?.clear, 'normal', 'one stream of the group reports again: cleared');
});

t.test('absent, not grouped: each stream on its own, as before', async (t) => {
  const x = await setup(t);
  await x.alert({ name: 'each', conditions: [{ type: 'absent', metric_name: 'beat', duration: 60, tags: [{ name: 'host', values: ['*'], grouped: false }] }] });
  await x.post('beat', [[x.t0 + 10, 1]], { host: 'a' });
  await x.post('beat', [[x.t0 + 10, 1], [x.t0 + 100, 1]], { host: 'b' });
  await x.evaluate(x.t0 + 120);
  t.same(x.payloads().map((p) => Object.keys(p.violations)), [['host=a']]);
});
