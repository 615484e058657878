// Tagged bodies scanned on parse threads must come back as the same rows as a scan on the
// calling thread, tag maps numbered alike on both sides, and a dead thread must cost
// nothing but the time: its bodies are scanned in place.
import t, { type Test } from 'tap';
import { ScanThreads } from '../../src/ingest/scan-threads.js';
import { TAG_SETS_FLOOR, TagSetIds, TagSetMirror, tagSetBound } from '../../src/ingest/tag-sets.js';
import { scanTaggedBody, type ScannedBatch } from '../../src/ingest/tagged-fast.js';
import { samplesOf } from '../../src/tsdb/sample.js';
import { captureLog } from '../helpers/capture-log.js';

const NOW = 1_700_000_000;
const LIMITS = { tagsPerMeasurement: 50, oldest: NOW - 86400 * 400, newest: NOW + 3600, now: NOW };

const rows = (b: ScannedBatch | null) => b && { samples: samplesOf(b.values).map((s) => ({ ...s, tags: s.tags.map((p) => [...p]) })), metrics: [...b.metricInputs] };
const bytes = (text: string) => Buffer.from(text, 'utf8');
const inline = (text: string) => rows(scanTaggedBody(bytes(text), LIMITS, 12, new TagSetIds()));

function threads(t: Test, opts: Partial<ConstructorParameters<typeof ScanThreads>[0]> = {}) {
  const log = captureLog('warn');
  const pool = new ScanThreads({ threads: 1, minBytes: 0, log: log.logger, ...opts });
  t.teardown(() => pool.close());
  return { pool, log };
}

t.test('tag numbers: a full list starts a new generation, and a mirror follows the news', async (t) => {
  const ids = new TagSetIds(2);
  t.equal(ids.add('{"a":"1"}', [['a', '1']]), 0);
  t.equal(ids.add('{"a":"2"}', [['a', '2']]), 1);
  const first = ids.sets;
  t.equal(ids.add('{"a":"3"}', [['a', '3']]), -1, 'full: the batch being numbered is given up');
  t.equal(ids.generation, 1);
  t.equal(ids.get('{"a":"1"}'), undefined, 'the new generation starts empty');
  t.same(first, [[['a', '1']], [['a', '2']]], 'the old list is left as it was for batches that use it');

  const m = new TagSetMirror();
  t.ok(m.apply({ generation: 0, first: 0, added: [[['a', '1']]] }));
  const before = m.sets;
  t.notOk(m.apply({ generation: 0, first: 3, added: [] }), 'news that skip numbers are refused');
  t.ok(m.apply({ generation: 1, first: 0, added: [[['b', '1']]] }));
  t.same(m.sets, [[['b', '1']]]);
  t.same(before, [[['a', '1']]], 'a new generation gets a new list');
  t.ok(Object.isFrozen(m.sets[0]) && Object.isFrozen(m.sets[0]![0]), 'frozen, so a new series keeps them without a copy');
});

t.test('a parse thread gives the rows of a scan in place, or declines the same bodies', async (t) => {
  const { pool } = threads(t);
  const bodies = [
    `{"time":${NOW},"tags":{"host":"a"},"measurements":[{"name":"Cpu","value":1.5},{"name":"cpu","tags":{"host":"b","Zone":"Z1"},"value":2,"time":${NOW - 60}},{"name":"mem","value":-3}]}`,
    // declined after numbering a new map: the news still reach the mirror
    '{"measurements":[{"name":"x","value":1,"tags":{"host":"c"}},{"name":"x","count":2,"sum":3}]}',
    '{"measurements":[{"name":"x","value":1,"tags":{"host":"c"}},{"name":"y","value":2,"tags":{"host":"d"}}]}',
    '\ufeff{"measurements":[{"name":"x","value":4}]}',
    '{"measurements":[{"name":"x","value":1}]} trailing',
  ];
  for (const text of bodies) {
    const got = await pool.scan(bytes(text), LIMITS, 12);
    t.same(rows(got), inline(text), text.slice(0, 50));
  }
  const two = threads(t, { threads: 2 });
  const both = await Promise.all([...bodies, ...bodies].map((text) => two.pool.scan(bytes(text), LIMITS, 12)));
  t.same(both.map(rows), [...bodies, ...bodies].map(inline), 'two threads, bodies in flight together');
  t.equal(await pool.scan(bytes('{"measurements":[{"name":"x","value":1}]}'), LIMITS, 3), null, 'the depth limit is the caller\'s');
});

t.test('many bodies at once, across a new generation of tag numbers', async (t) => {
  const { pool } = threads(t);
  const body = (from: number, n: number) => `{"time":${NOW},"measurements":[${Array.from({ length: n }, (_, i) => `{"name":"m","tags":{"h":"h${from + i}"},"value":${from + i}}`).join(',')}]}`;
  const per = 20_000;
  const texts = Array.from({ length: Math.ceil((TAG_SETS_FLOOR * 1.3) / per) }, (_, k) => body(k * per, per));
  const got = await Promise.all(texts.map((text) => pool.scan(bytes(text), LIMITS, 12)));
  let declined = 0;
  for (const [k, b] of got.entries()) {
    if (b === null) { declined++; continue; }
    // read after every batch has been answered: an earlier generation's batch keeps its list
    const s = samplesOf(b.values);
    const bad = s.findIndex((x, i) => x.tags[0]![1] !== `h${k * per + i}` || x.sum !== k * per + i);
    t.equal(bad, -1, `batch ${k}: every row has its own tags and value`);
  }
  t.ok(declined <= 2, `at most one batch a thread is given up when its numbering starts again (${declined})`);
  for (const text of texts.slice(0, 2)) t.same(rows(await pool.scan(bytes(text), LIMITS, 12)), inline(text), 'and later bodies scan as in place');
});

t.test('the numbering holds as many tag maps as the limits say, on a thread and in place', async (t) => {
  t.equal(tagSetBound(0), TAG_SETS_FLOOR, 'a small service: the floor');
  t.equal(tagSetBound(400_000), 800_000, 'a large one: room for every series and as many new ones');
  const body = (from: number) => `{"time":${NOW},"measurements":[${Array.from({ length: 8 }, (_, i) => `{"name":"m","tags":{"h":"h${from + i}"},"value":1}`).join(',')}]}`;
  const small = { ...LIMITS, tagSets: 10 };
  // in place: the second body's maps do not fit in 10, so it starts a new generation
  const ids = new TagSetIds();
  t.ok(scanTaggedBody(bytes(body(0)), small, 12, ids));
  t.equal(scanTaggedBody(bytes(body(8)), small, 12, ids), null, 'given up when the numbering starts again');
  t.equal(ids.generation, 1);
  const roomy = new TagSetIds();
  for (let k = 0; k < 3; k++) t.ok(scanTaggedBody(bytes(body(8 * k)), { ...LIMITS, tagSets: 100 }, 12, roomy));
  t.equal(roomy.generation, 0, 'room for all: one generation');
  // on a thread: the bound travels with the limits
  const { pool } = threads(t);
  t.ok(await pool.scan(bytes(body(0)), small, 12));
  t.equal(await pool.scan(bytes(body(8)), small, 12), null, 'the thread started a new generation at 10 maps');
  t.same(rows(await pool.scan(bytes(body(16)), small, 12)), inline(body(16)), 'and scans on in it');
});

t.test('small bodies stay on the calling thread; none configured: all of them', async (t) => {
  const { pool } = threads(t, { threads: 0 });
  const text = '{"measurements":[{"name":"x","value":1,"tags":{"a":"b"}}]}';
  t.same(rows(await pool.scan(bytes(text), LIMITS, 12)), inline(text));
  const small = threads(t, { minBytes: 1 << 20, file: new URL('../fixtures/workers/exits.mjs', import.meta.url) });
  t.same(rows(await small.pool.scan(bytes(text), LIMITS, 12)), inline(text), 'below minBytes the (broken) thread is never asked');
  t.equal(small.log.text(), '');
});

t.test('a thread that dies: its bodies are scanned in place, and after three failed starts none is tried', async (t) => {
  const { pool, log } = threads(t, { file: new URL('../fixtures/workers/exits.mjs', import.meta.url) });
  const text = '{"measurements":[{"name":"x","value":1,"tags":{"a":"b"}},{"name":"y","value":2}]}';
  for (let i = 0; i < 4; i++) t.same(rows(await pool.scan(bytes(text), LIMITS, 12)), inline(text), `scan ${i + 1}`);
  const lines = log.lines();
  t.ok(lines.some((l) => String(l.msg).includes('keep exiting')), 'said once it gives up on threads');
  t.equal(lines.filter((l) => String(l.msg).includes('keep exiting')).length, 1);
});
