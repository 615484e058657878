import t from 'tap';
import { parseSourced } from '../../src/ingest/sourced.js';
import { ApiError } from '../../src/errors.js';

const NOW = 1_700_000_000;

function params(fn: () => unknown): Record<string, string[]> {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e.body.params as Record<string, string[]>;
    throw e;
  }
  throw new Error('expected a 400');
}

t.test('the three layouts give the same measurements', async (t) => {
  const byName = parseSourced({ gauges: { 'CPU.load': { value: 1.5, source: 'web1' } }, counters: { reqs: { value: 10 } } }, false, NOW);
  const byIndex = parseSourced({ gauges: { 0: { name: 'CPU.load', value: 1.5, source: 'web1' } }, counters: { 7: { name: 'reqs', value: 10 } } }, false, NOW);
  const asArray = parseSourced({ gauges: [{ name: 'CPU.load', value: 1.5, source: 'web1' }], counters: [{ name: 'reqs', value: 10 }] }, false, NOW);
  const strip = (ms: { path: string }[]) => ms.map(({ path: _p, ...m }) => m);
  t.same(strip(byName), strip(byIndex));
  t.same(strip(byName), strip(asArray));
  t.same(strip(byName), [
    { kind: 'gauge', name: 'cpu.load', spelling: 'CPU.load', source: 'web1', time: NOW, metric: {}, value: 1.5 },
    { kind: 'counter', name: 'reqs', spelling: 'reqs', source: null, time: NOW, metric: {}, value: 10 },
  ]);
});

t.test('form bodies (all strings) parse like JSON', async (t) => {
  // What qs makes of gauges[0][name]=a&gauges[0][value]=1.5&measure_time=1700000001.7&source=db
  const form = { gauges: [{ name: 'a', value: '1.5', count: undefined }], measure_time: '1700000001.7', source: 'db' };
  delete (form.gauges[0] as Record<string, unknown>).count;
  t.same(parseSourced(form, true, NOW).map((m) => [m.name, m.value, m.time, m.source]), [['a', 1.5, 1700000001, 'db']]);
  t.same(parseSourced({ gauges: { 'disk.free': '42' } }, true, NOW).map((m) => m.value), [42], 'a bare value under its name');
});

t.test('top-level source and measure_time are defaults; the element wins', async (t) => {
  const ms = parseSourced({ source: 'default-src', measure_time: 1000, gauges: [{ name: 'a', value: 1 }, { name: 'b', value: 2, source: 'own', measure_time: 2000 }] }, false, NOW);
  t.same(ms.map((m) => [m.source, m.time]), [['default-src', 1000], ['own', 2000]]);
});

t.test('multi-sample gauges', async (t) => {
  const [m] = parseSourced({ gauges: { lat: { count: 4, sum: 10, min: 1, max: 4, sum_squares: 30 } } }, false, NOW);
  t.match(m, { count: 4, sum: 10, min: 1, max: 4, sum_squares: 30 });
  t.notOk('value' in m!);
  t.same(params(() => parseSourced({ gauges: { lat: { count: 4 } } }, false, NOW)), { 'gauges[lat].sum': ['is required when count is set'] });
  t.same(params(() => parseSourced({ gauges: { lat: { count: 2, sum: 3, value: 1 } } }, false, NOW)), { 'gauges[lat].value': ['must not be set together with count'] });
  t.same(params(() => parseSourced({ gauges: { lat: { count: 0, sum: 3 } } }, false, NOW)), { 'gauges[lat].count': ['must be >= 1'] });
  t.same(params(() => parseSourced({ gauges: { lat: { value: 1, sum: 3 } } }, false, NOW)), { 'gauges[lat].sum': ['requires count'] });
  t.same(params(() => parseSourced({ counters: { c: { count: 2, sum: 3, value: 1 } } }, false, NOW)), {
    'counters[c].count': ['is only allowed for gauges'], 'counters[c].sum': ['is only allowed for gauges'],
  });
});

t.test('source rules', async (t) => {
  t.same(params(() => parseSourced({ gauges: [{ name: 'a', value: 1, source: 'all' }] }, false, NOW)), { 'gauges[0].source': ['all is reserved'] });
  t.same(params(() => parseSourced({ source: 'ALL', gauges: [{ name: 'a', value: 1 }] }, false, NOW)), { source: ['all is reserved'] });
  t.match(params(() => parseSourced({ gauges: [{ name: 'a', value: 1, source: 'has space' }] }, false, NOW)), { 'gauges[0].source': [/letters/] });
  t.match(params(() => parseSourced({ gauges: [{ name: 'a', value: 1, source: 'x'.repeat(256) }] }, false, NOW)), { 'gauges[0].source': [/1-255/] });
  t.equal(parseSourced({ gauges: [{ name: 'a', value: 1, source: 'x'.repeat(255) }] }, false, NOW)[0]!.source!.length, 255);
});

t.test('what agents send beyond the spec is ignored; structure errors name the element', async (t) => {
  const [m] = parseSourced({ gauges: [{ name: 'a', value: 1, stddev_m2: 0.5, whatever: 'x' }] }, false, NOW);
  t.equal(m!.value, 1);
  t.equal(parseSourced({ gauges: [], counters: [{ name: 'c', value: 1 }] }, false, NOW).length, 1, 'empty gauges beside counters is fine');
  t.same(params(() => parseSourced({ gauges: [] }, false, NOW)), { measurements: ['at least one gauge or counter is required'] });
  t.same(params(() => parseSourced({}, false, NOW)), { measurements: ['at least one gauge or counter is required'] });
  t.same(params(() => parseSourced({ gauges: [{ value: 1 }] }, false, NOW)), { 'gauges[0].name': ['is required'] });
  t.match(params(() => parseSourced({ gauges: [{ name: 'bad name', value: 1 }] }, false, NOW)), { 'gauges[0].name': [/letters/] });
  t.same(params(() => parseSourced({ gauges: [{ name: 'a', value: 'high' }] }, false, NOW)), { 'gauges[0].value': ['must be a number'] });
  t.same(params(() => parseSourced({ gauges: 'a=1' }, false, NOW)), { gauges: ['must be an object or an array'] });
  t.same(params(() => parseSourced({ gauges: [{ name: 'a' }, { name: 'b', value: 2 }, 5] }, false, NOW)), { 'gauges[0].value': ['is required (or count and sum)'], 'gauges[2].name': ['is required'] });
});

t.test('metric properties ride along for creation', async (t) => {
  const [m] = parseSourced({ gauges: [{ name: 'a', value: 1, period: 30, display_name: 'A', attributes: { display_units_short: 'ms' } }] }, false, NOW);
  t.same(m!.metric, { period: 30, display_name: 'A', attributes: { display_units_short: 'ms' } });
});
