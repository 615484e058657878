// Odd and hostile input is always a 4xx with the errors envelope: never a 5xx or a hang.
import t from 'tap';
import { startTestServer } from '../helpers/server.js';
import { hourBase, post } from '../helpers/measurements.js';

t.test('bad submissions', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  const bodies: unknown[] = [
    null, 1, 'x', [], { measurements: null }, { measurements: 'x' }, { measurements: [null] }, { measurements: [[]] },
    { measurements: [{ name: 123, value: 1 }] }, { measurements: [{ name: 'a', value: true }] }, { measurements: [{ name: 'a', value: null }] },
    { measurements: [{ name: 'a', value: 1, tags: null }] }, { measurements: [{ name: 'a', value: 1, tags: [] }] }, { measurements: [{ name: 'a', value: 1, tags: 'host=a' }] },
    { measurements: [{ name: 'a', value: 1, tags: { host: { nested: 1 } } }] }, { measurements: [{ name: 'a', value: 1, tags: { host: '' } }] },
    { measurements: [{ name: 'a', value: 1, tags: { ['x'.repeat(65)]: 'v' } }] }, { measurements: [{ name: 'a', value: 1, tags: { h: 'v'.repeat(256) } }] },
    { measurements: [{ name: 'a', value: 1, time: -1 }] }, { measurements: [{ name: 'a', value: 1, time: 1e20 }] }, { measurements: [{ name: 'a', value: 1, time: '1' }] },
    { measurements: [{ name: 'a', count: 1.5, sum: 1 }] }, { measurements: [{ name: 'a', count: 2, sum: 1, min: 3, max: 1 }] }, { measurements: [{ name: 'a', count: 2, sum: 1, stddev: -1 }] },
    { measurements: [{ name: 'a', count: 1e19, sum: 1 }] },
    { measurements: [{ name: 'a', value: 1, period: '60' }] }, { measurements: [{ name: 'a', value: 1, period: 0 }] }, { measurements: [{ name: 'a', value: 1, attributes: [] }] },
    { measurements: [{ name: 'a', value: 1, attributes: { aggregate: 'yes' } }] }, { measurements: [{ name: '', value: 1 }] }, { measurements: [{ name: 'x'.repeat(256), value: 1 }] },
    { tags: 'x', measurements: [{ name: 'a', value: 1 }] }, { time: 'now', measurements: [{ name: 'a', value: 1 }] }, { period: -5, measurements: [{ name: 'a', value: 1 }] },
    { measurements: [{ name: 'a', value: 1, tags: { Host: 'a', host: 'b' } }] },
  ];
  for (const body of bodies) {
    const r = await post(s, body);
    t.equal(r.status, 400, JSON.stringify(body).slice(0, 120));
    t.ok(r.body?.errors, 'errors envelope');
  }
  const raw = ['{"measurements":[{"name":"a","value":1e400}]}', '{"measurements":[{"name":"a","value":1,"__proto__":{"x":1}}]}', '{"measurements":[{"name":"a","value":1,"tags":{"constructor":"x"}}]}'];
  for (const body of raw) {
    const r = await s.request('POST', '/v1/measurements', { raw: { body, type: 'application/json' } });
    t.equal(r.status, 400, body);
  }
  t.equal((await s.get(`/v1/metrics/a`)).status, 404, 'nothing was created by any of them');
  t.equal((await post(s, { time: base, measurements: [{ name: 'a', value: 1 }] })).status, 200, 'and the server still works');
});

t.test('bad queries', async (t) => {
  const s = await startTestServer(t);
  const base = hourBase();
  await post(s, { time: base, measurements: [{ name: 'q', value: 1, tags: { host: 'a' } }] });
  const w = `resolution=60&start_time=${base}`;
  const queries = [
    'resolution=1e3&duration=60', 'resolution=-60&duration=60', `resolution=60&start_time=-5`, `resolution=60&start_time=${base}&end_time=x`,
    `${w}&tags[host][x]=y`, `${w}&tags=[1,2]`, `${w}&tags={"host":{"a":1}}`, `${w}&tags[host]=${'a'.repeat(300)}`, `${w}&tags_search=${encodeURIComponent('host=')}`,
    `${w}&tags_search=${encodeURIComponent('and or')}`, `${w}&tags_search=${encodeURIComponent('('.repeat(40) + 'host=a' + ')'.repeat(40))}`, `${w}&group_by=,,&group_by_function=sum`,
    `${w}&group_by=*&group_by_function=sum&summary_function=all`, `${w}&summary_function=`, `${w}&resolution=60`, `${w}&cursor=${'x'.repeat(5000)}`,
    `${w}&compose=${encodeURIComponent('s("q", "*"')}`, `resolution=60&compose=${encodeURIComponent('s("q", "*")')}`,
  ];
  for (const qs of queries) {
    const r = await s.get(`/v1/measurements/q?${qs}`);
    t.ok(r.status >= 400 && r.status < 500, `${qs.slice(0, 100)} -> ${r.status}`);
    t.ok(r.body?.errors, 'errors envelope');
  }
  t.equal((await s.get(`/v1/measurements/bad%20name?${w}`)).status, 400);
  const range = await s.get('/v1/measurements/q?resolution=-60&duration=60');
  t.same(range.body.errors.params.resolution, ['must be a whole number from 0 to 999999999999'], 'a number out of range is not called "not a number"');
  const legacy = await s.get('/v1/metrics/q?start_time=99999999999999&resolution=60');
  t.same(legacy.body.errors.params.start_time, ['must be a number from 0 to 999999999999 (a fraction is floored)']);
});
