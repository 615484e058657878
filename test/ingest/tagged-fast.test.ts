// The fast path of POST /v1/measurements must give exactly what the ordinary path gives,
// or decline: every body below is run through both.
import t from 'tap';
import { parseTaggedFast, type ScannedBatch } from '../../src/ingest/tagged-fast.js';
import { parseTagged, type TaggedBatch } from '../../src/ingest/tagged.js';
import { parseJsonBody } from '../../src/http/raw-json.js';
import { samplesOf } from '../../src/tsdb/sample.js';

const NOW = 1_700_000_000;
const LIMITS = { tagsPerMeasurement: 50, oldest: NOW - 86400 * 400, newest: NOW + 3600, now: NOW };

const plain = (b: TaggedBatch) => ({ samples: b.samples.map((s) => ({ ...s, slot: undefined, tags: s.tags.map((p) => [...p]) })), metrics: [...b.metricInputs] });
const fastPlain = (b: ScannedBatch) => plain({ samples: samplesOf(b.values), metricInputs: b.metricInputs });

function ordinary(text: string): unknown {
  try {
    return plain(parseTagged(parseJsonBody(text, 12) ?? {}, LIMITS));
  } catch (e) {
    return 'refused';
  }
}

t.test('taken: the same samples as the ordinary path', async (t) => {
  const bodies = [
    `{"time":${NOW},"measurements":[{"name":"Cpu.Load","tags":{"Host":"Web 1","region":"eu"},"value":1.25},{"name":"cpu.load","tags":{"region":"eu","host":"web 1"},"value":-0}]}`,
    `{"tags":{"host":"a"},"measurements":[{"name":"m","value":3,"tags":{}},{"name":"m","value":4,"tags":{"host":"b"},"time":${NOW - 60}}]}`,
    `{"measurements":[{"name":"m","value":12345678901234567890},{"name":"m","value":0.1234567890123456789},{"name":"m","value":99999999999999.9}]}`,
    `{"measurements":[{"name":"m","value":1.5e3},{"name":"n","value":1e-200},{"name":"m","value":0.000001},{"name":"m","value":-42.07}]}`,
    ` \n{ "measurements" : [ { "name" : "a" , "value" : 3.25 , "tags" : { "h" : "x" } } ] } \n`,
  ];
  for (const text of bodies) {
    const fast = parseTaggedFast(text, LIMITS, 12);
    t.ok(fast, `taken: ${text.slice(0, 60)}`);
    t.same(fastPlain(fast!), ordinary(text));
    t.same(fastPlain(parseTaggedFast(text, LIMITS, 12)!), ordinary(text), 'again, from the caches');
  }
  for (let i = 0; i < 2000; i++) {
    const v = [Math.random() * 100, Math.round(Math.random() * 1e6) / 100, Math.floor(Math.random() * 1e9), -Math.random() * 1e-5, Math.random() * 1e15][i % 5]!;
    const text = `{"measurements":[{"name":"a","value":${v}}]}`;
    t.ok(Object.is(parseTaggedFast(text, LIMITS, 12)?.values.value[0], v), text);
  }
});

t.test('declined: anything else is left to the ordinary path', async (t) => {
  const bodies = [
    '{"measurements":[{"name":"a","value":1,"value":2}]}',
    '{"measurements":[{"name":"a","value":01}]}',
    '{"measurements":[{"name":"a","value":1e400}]}',
    '{"measurements":[{"name":"a","value":1e127}]}',
    '{"measurements":[{"name":"a","value":1,"tags":{"__proto__":"x"}}]}',
    '{"measurements":[{"name":"a","value":1,"tags":{"constructor":"x"}}]}',
    '{"measurements":[{"name":"a","value":1,"tags":{"h":1}}]}',
    '{"measurements":[{"name":"a","value":1,"tags":{"h":"a\\u0062"}}]}',
    '{"measurements":[{"name":"a","value":1,"tags":{"h":""}}]}',
    '{"measurements":[{"name":"a b","value":1}]}',
    '{"measurements":[{"name":"a","count":2,"sum":3}]}',
    '{"measurements":[{"name":"a","value":1,"stddev_m2":0}]}',
    '{"measurements":[{"name":"a","value":1}],"time":1}',
    `{"measurements":[{"name":"a","value":1}],"time":${NOW}}`,
    '{"measurements":[{"name":"a","value":1,"time":1.5}]}',
    '{"measurements":[]}',
    '{"measurements":[{"name":"a","value":1}]} x',
    '{"measurements":[{"name":"a","value":1}]',
    '{"measurements":[{"name":"a"}]}',
    '{}',
  ];
  for (const text of bodies) t.equal(parseTaggedFast(text, LIMITS, 12), null, text);
  t.equal(parseTaggedFast('{"measurements":[{"name":"a","value":1}]}', LIMITS, 3), null, 'a depth limit below what it accepts');
});
