// derivative on a grouped condition: the group's change is the sum of each stream's
// change, as a query's group_by sums the series' derivatives (review 21: the group's
// minute point kept the last value of whichever host reported last in that minute, so two
// counters growing by 10 a minute read as +1005 and then -985 when the hosts swapped
// places within the minute).
import t from 'tap';
import { setup } from '../helpers/alert-setup.js';

t.test('grouped derivative: the sum of each stream\'s change, whichever host reports last in a minute', async (t) => {
  const x = await setup(t);
  const tags = [{ name: 'host', values: ['*'], grouped: true }];
  await x.alert({ name: 'fast', conditions: [{ type: 'above', metric_name: 'req', threshold: 100, summary_function: 'derivative', tags }] });
  await x.alert({ name: 'falling', conditions: [{ type: 'below', metric_name: 'req', threshold: 0, summary_function: 'derivative', tags }] });
  await x.alert({ name: 'growing', conditions: [{ type: 'above', metric_name: 'req', threshold: 15, summary_function: 'derivative', tags }] });
  const m = Math.ceil((x.t0 + 1) / 60) * 60;
  // each host grows by 10 a minute; web1 reports after web2 in the second minute, before it in the others
  await x.post('req', [[m + 10, 1000], [m + 90, 1010], [m + 130, 1020]], { host: 'web1' });
  await x.post('req', [[m + 20, 5], [m + 65, 15], [m + 140, 25]], { host: 'web2' });
  const query = await x.s.get(`/v1/measurements/req?resolution=60&start_time=${m}&end_time=${m + 180}&group_by=*&group_by_function=sum&summary_function=derivative`);
  t.same(query.body.series[0].measurements.map((p: { value: number }) => p.value), [20, 20], 'the query: the group grows by 20 a minute');
  await x.evaluate(m + 91);
  await x.evaluate(m + 141);
  t.same(x.payloads().map((p) => p.alert.name), ['growing'], 'neither a jump of 1005 nor a fall of 985');
  t.same(x.payloads()[0]!.violations, { 'host=*': [{ metric: 'req', value: 20, recorded_at: m + 90, condition_violated: x.payloads()[0]!.conditions[0].id }] });
});

t.test('grouped derivative with detect_reset: a stream\'s reset adds nothing, the others\' growth still counts', async (t) => {
  const x = await setup(t);
  const tags = [{ name: 'host', values: ['*'], grouped: true }];
  await x.alert({ name: 'reset', conditions: [{ type: 'above', metric_name: 'req', threshold: 5, summary_function: 'derivative', detect_reset: true, tags }] });
  await x.alert({ name: 'raw', conditions: [{ type: 'below', metric_name: 'req', threshold: -50, summary_function: 'derivative', tags }] });
  const m = Math.ceil((x.t0 + 1) / 60) * 60;
  await x.post('req', [[m + 10, 100], [m + 70, 0]], { host: 'web1' });
  await x.post('req', [[m + 20, 5], [m + 80, 15]], { host: 'web2' });
  await x.evaluate(m + 81);
  t.same(x.payloads().map((p) => [p.alert.name, p.violations['host=*'][0].value]).sort(), [['raw', -90], ['reset', 10]]);
});
