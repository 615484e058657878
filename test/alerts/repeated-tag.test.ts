// A condition naming one tag twice: both filters count, as a repeated tag name in a
// query's `tags` means OR (review 21: a Map built from the list kept only the last one,
// so the streams of the first were silently not watched).
import t from 'tap';
import { setup } from '../helpers/alert-setup.js';

t.test('a tag named twice in a condition watches the streams of both filters', async (t) => {
  const x = await setup(t);
  await x.alert({ name: 'two', conditions: [{ type: 'above', metric_name: 'cpu', threshold: 10, tags: [{ name: 'host', values: ['a'] }, { name: 'host', values: ['b'] }] }] });
  await x.post('cpu', [[x.t0 + 10, 50]], { host: 'a' });
  await x.post('cpu', [[x.t0 + 10, 1]], { host: 'b' });
  await x.post('cpu', [[x.t0 + 10, 50]], { host: 'c' });
  await x.evaluate(x.t0 + 20);
  t.same(x.payloads().map((p) => Object.keys(p.violations)), [['host=a']]);
});
