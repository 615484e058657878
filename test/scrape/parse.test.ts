import t from 'tap';
import { seededRandom } from '../helpers/random.js';
import { readFileSync } from 'node:fs';
import client from 'prom-client';
import {
  ExpositionError, ExpositionParser, SCRAPE_ACCEPT, SeriesMemo, canonicalFloat, formatForContentType, parseExposition, plainDecimal,
  type ExpositionFormat, type ScrapedSample,
} from '../../src/scrape/parse.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/scrape/${name}`, import.meta.url), 'utf8');
const find = (samples: ScrapedSample[], name: string, ...labels: string[]) =>
  samples.find((s) => s.name === name && labels.every((l, i) => (i % 2 ? true : s.labels[s.labels.indexOf(l) + 1] === labels[i + 1])));

/** The error `text` fails with, as [line, message]. */
function failure(text: string, format: ExpositionFormat): [number, string] {
  try {
    parseExposition(text, format);
  } catch (e) {
    if (!(e instanceof ExpositionError)) throw e;
    return [e.line, e.message];
  }
  throw new Error(`parsed without error: ${JSON.stringify(text)}`);
}

t.test('the Accept header is the one Prometheus 2 sends, and Content-Type picks the format', async (t) => {
  t.equal(SCRAPE_ACCEPT, 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1');
  t.equal(formatForContentType('application/openmetrics-text; version=1.0.0; charset=utf-8'), 'openmetrics');
  t.equal(formatForContentType('application/openmetrics-text;version=0.0.1'), 'openmetrics');
  t.equal(formatForContentType('text/plain; version=0.0.4; charset=utf-8'), 'text');
  t.equal(formatForContentType('Text/Plain'), 'text');
  t.equal(formatForContentType(undefined), 'text');
  t.equal(formatForContentType(''), 'text');
  t.throws(() => formatForContentType('text/html; charset=utf-8'), { name: 'ExpositionError', message: /unsupported Content-Type "text\/html; charset=utf-8"/ });
  t.throws(() => formatForContentType('application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited'), /unsupported Content-Type/);
});

t.test('real node_exporter 1.5.0 output', async (t) => {
  const samples: ScrapedSample[] = [];
  const parser = new ExpositionParser('text', (s) => samples.push(s));
  parser.push(fixture('node-exporter-1.5.0.prom'));
  parser.end();
  t.equal(samples.length, 507);
  t.same(find(samples, 'go_gc_duration_seconds', 'quantile', '0.0'), { name: 'go_gc_duration_seconds', type: 'summary', kind: 'gauge', labels: ['quantile', '0.0'], series: 'go_gc_duration_seconds{quantile="0"}', value: 0, finite: true, timestampMs: null }, 'quantile="0" in canonical form; the series text as written');
  t.match(find(samples, 'go_gc_duration_seconds_count'), { type: 'summary', kind: 'counter' });
  t.match(find(samples, 'go_memstats_alloc_bytes_total'), { type: 'counter', kind: 'counter', value: 837720 });
  t.match(find(samples, 'go_memstats_buck_hash_sys_bytes'), { type: 'gauge', kind: 'gauge', value: 1445697 });
  const uname = find(samples, 'node_uname_info')!;
  t.same(uname.labels, ['domainname', '(none)', 'machine', 'x86_64', 'nodename', 'vm', 'release', '6.18.44-fc-v669', 'sysname', 'Linux', 'version', '#1 SMP PREEMPT_DYNAMIC @0']);
  t.same(find(samples, 'node_os_info')!.labels.slice(0, 4), ['build_id', '', 'id', 'debian'], 'empty values are kept by the parser');
  const untyped = samples.filter((s) => s.type === 'untyped');
  t.ok(untyped.length > 0 && untyped.every((s) => s.kind === 'gauge'), 'untyped samples are gauges');
  t.equal(parser.families.get('node_uname_info')?.help, 'Labeled system information as provided by the uname system call.');
  t.equal(parser.families.get('node_uname_info')?.type, 'gauge');
  t.equal(parser.lines, fixture('node-exporter-1.5.0.prom').split('\n').length - 1);
});

t.test('prom-client gives the same samples in both formats, captured and live', async (t) => {
  const text = parseExposition(fixture('prom-client-15.prom'), 'text');
  const om = parseExposition(fixture('prom-client-15.om.txt'), 'openmetrics');
  t.equal(text.length, 26);
  t.same(om, text);
  t.same(find(text, 'http_requests_total', 'method', 'GET'), {
    name: 'http_requests_total', type: 'counter', kind: 'counter', labels: ['method', 'GET', 'code', '200', 'path', '/api/v1/items?x="1"'], series: 'http_requests_total{method="GET",code="200",path="/api/v1/items?x=\\"1\\""}', value: 42, finite: true, timestampMs: null,
  });
  t.same(find(text, 'http_request_duration_seconds_bucket', 'le', '+Inf')?.labels, ['le', '+Inf', 'route', '/items']);
  t.same(find(text, 'http_request_duration_seconds_bucket', 'le', '1.0')?.labels, ['le', '1.0', 'route', '/items'], 'le="1" in canonical form');
  t.match(find(text, 'http_request_duration_seconds_sum'), { type: 'histogram', kind: 'counter', value: 12.021 });
  t.match(find(text, 'job_duration_seconds', 'quantile', '0.99'), { type: 'summary', kind: 'gauge', value: 9.95 });

  const registry = new client.Registry();
  new client.Counter({ name: 'live_total', help: 'c', labelNames: ['m'], registers: [registry] }).inc({ m: 'GET' }, 2);
  new client.Gauge({ name: 'live_gauge', help: 'g', registers: [registry] }).set(-1.5);
  new client.Histogram({ name: 'live_seconds', help: 'h', buckets: [0.1, 1], registers: [registry] }).observe(0.5);
  new client.Summary({ name: 'live_summary', help: 's', percentiles: [0.5], registers: [registry] }).observe(3);
  const liveText = parseExposition(await registry.metrics(), formatForContentType(registry.contentType));
  registry.setContentType(client.openMetricsContentType);
  const liveOm = parseExposition(await registry.metrics(), formatForContentType(registry.contentType));
  t.same(liveOm, liveText);
  t.same(liveText.map((s) => [s.name, s.kind, s.labels.join(','), s.value]), [
    ['live_total', 'counter', 'm,GET', 2],
    ['live_gauge', 'gauge', '', -1.5],
    ['live_seconds_bucket', 'counter', 'le,0.1', 0],
    ['live_seconds_bucket', 'counter', 'le,1.0', 1],
    ['live_seconds_bucket', 'counter', 'le,+Inf', 1],
    ['live_seconds_sum', 'counter', '', 0.5],
    ['live_seconds_count', 'counter', '', 1],
    ['live_summary', 'gauge', 'quantile,0.5', 3],
    ['live_summary_sum', 'counter', '', 3],
    ['live_summary_count', 'counter', '', 1],
  ]);
});

t.test('OpenMetrics: every type, _created, exemplars, units, timestamps, NaN and Inf', async (t) => {
  const samples: ScrapedSample[] = [];
  const parser = new ExpositionParser('openmetrics', (s) => samples.push(s));
  parser.push(fixture('python-client-style.om.txt'));
  parser.end();
  const brief = (s: ScrapedSample | undefined) => s && [s.type, s.kind, s.value];
  t.same(brief(find(samples, 'build_info')), ['info', 'gauge', 1]);
  t.same(find(samples, 'requests_total', 'handler', '/api'), {
    name: 'requests_total', type: 'counter', kind: 'counter', labels: ['handler', '/api', 'method', 'GET'], series: 'requests_total{handler="/api",method="GET"}', value: 1027, finite: true, timestampMs: null,
  }, 'the exemplar is ignored');
  t.same(brief(find(samples, 'requests_created', 'handler', '/api')), ['counter', 'gauge', 1.6999e9], '_created is a gauge');
  t.same(brief(find(samples, 'request_latency_seconds_bucket', 'le', '1.0')), ['histogram', 'counter', 10]);
  t.same(brief(find(samples, 'request_latency_seconds_created')), ['histogram', 'gauge', 1.6999e9]);
  t.same(brief(find(samples, 'queue_wait_seconds_bucket', 'le', '+Inf')), ['gaugehistogram', 'gauge', 5]);
  t.same(brief(find(samples, 'queue_wait_seconds_gsum')), ['gaugehistogram', 'gauge', 3.5]);
  const nan = find(samples, 'rpc_duration_seconds', 'quantile', '0.99')!;
  t.ok(Number.isNaN(nan.value) && nan.finite === false, 'NaN is returned, flagged');
  t.same(brief(find(samples, 'rpc_duration_seconds_count')), ['summary', 'counter', 3]);
  t.same(brief(find(samples, 'feature', 'feature', 'b')), ['stateset', 'gauge', 0]);
  t.same(find(samples, 'temperature_celsius', 'room', 'Lab "A"\n2')?.timestampMs, 1700000000500, 'seconds with a fraction become milliseconds');
  const cold = find(samples, 'temperature_celsius', 'room', 'hall')!;
  t.same([cold.value, cold.finite], [-Infinity, false]);
  t.same(brief(find(samples, 'legacy_thing')), ['unknown', 'gauge', 42]);
  t.same(parser.families.get('request_latency_seconds'), { type: 'histogram', help: 'Request latency.', unit: 'seconds' });
  t.equal(samples.length, 25);
});

t.test('an error quotes the text where it is, up to the end of its line', async (t) => {
  t.throws(() => parseExposition('ok 1\nfoo 1 2 3\nnext 2\n', 'text'), { message: 'line 2: unexpected text after the sample, at "3"' });
});

t.test('text format: spacing, escapes, timestamps and values Prometheus accepts', async (t) => {
  t.same(parseExposition('before_1970 1 -5000\n', 'text').map((x) => x.timestampMs), [-5000], 'a negative timestamp, as Prometheus reads one');
  const samples = parseExposition([
    '# a free comment',
    '#no space: also a comment',
    '# HELP  spaced  Help with \\\\ and \\n and \\" kept',
    '# HELP spaced a second HELP is ignored',
    '   # TYPE spaced gauge',
    '',
    'spaced { a = "1" , b="x\\\\y\\"z\\nw\\q" , } 1 1700000000123',
    'spaced{a="2"}2\t1700000000124',
    '  spaced  3  ',
    'trailing_comma{a="x",} +Inf',
    'special{v="a"} -inf',
    'special{v="b"} NaN',
    'special{v="c"} 1e+06',
    'special{v="d"} .5',
    'special{v="e"} -0',
    'crlf 7\r',
    'last_line_without_newline{} 8',
  ].join('\n'), 'text');
  t.same(samples.map((s) => [s.name, s.labels, s.value, s.timestampMs]), [
    ['spaced', ['a', '1', 'b', 'x\\y"z\nw\\q'], 1, 1700000000123],
    ['spaced', ['a', '2'], 2, 1700000000124],
    ['spaced', [], 3, null],
    ['trailing_comma', ['a', 'x'], Infinity, null],
    ['special', ['v', 'a'], -Infinity, null],
    ['special', ['v', 'b'], NaN, null],
    ['special', ['v', 'c'], 1e6, null],
    ['special', ['v', 'd'], 0.5, null],
    ['special', ['v', 'e'], -0, null],
    ['crlf', [], 7, null],
    ['last_line_without_newline', [], 8, null],
  ]);
  const parser = new ExpositionParser('text', () => {});
  parser.push('# HELP spaced Help with \\\\ and \\n and \\" kept\n# HELP spaced again\n');
  parser.end();
  t.equal(parser.families.get('spaced')?.help, 'Help with \\ and \n and \\" kept', 'the first HELP stays; \\" is no escape in text HELP');
});

t.test('a TYPE line gives the type to later samples of its family, in either order of families', async (t) => {
  const samples = parseExposition([
    'early_bucket{le="1"} 1',
    '# TYPE early histogram',
    'early_bucket{le="1"} 2',
    '# TYPE a_total counter',
    '# TYPE b gauge',
    'a_total 1',
    'b_count 2',
    '# TYPE b gauge',
  ].join('\n'), 'text');
  t.same(samples.map((s) => [s.name, s.type, s.kind, s.labels.join('=')]), [
    ['early_bucket', 'untyped', 'gauge', 'le=1'],
    ['early_bucket', 'histogram', 'counter', 'le=1.0'],
    ['a_total', 'counter', 'counter', ''],
    ['b_count', 'untyped', 'gauge', ''],
  ], 'b_count is no part of gauge b; a repeated identical TYPE is fine');
});

t.test('garbage is refused with the line and what was expected', async (t) => {
  const cases: Array<[string, number, RegExp]> = [
    ['ok 1\nfoo{a="b" 1', 2, /expected "," or "}" after a label value/],
    ['foo{a=b} 1', 1, /expected a quoted value for the label a/],
    ['foo{a="b"', 1, /unterminated label set|expected "," or "}"/],
    ['foo{a="unterminated} 1', 1, /unterminated value for the label a/],
    ['foo{1a="x"} 1', 1, /expected a label name/],
    ['foo{a="1",a="2"} 1', 1, /label a appears twice/],
    ['foo 1 2 3', 1, /unexpected text after the sample/],
    ['foo 1 -', 1, /expected a timestamp in milliseconds/],
    ['foo 1 --5', 1, /expected a timestamp in milliseconds/],
    ['foo abc', 1, /invalid value for foo/],
    ['foo 0x10', 1, /invalid value for foo/],
    ['foo', 1, /expected a value for foo/],
    ['foo-bar 1', 1, /expected "\{" or a space after the metric name/],
    ['{a="b"} 1', 1, /expected a metric name/],
    ['9lives 1', 1, /expected a metric name/],
    ['# TYPE foo bogus', 1, /unknown metric type "bogus" for foo/],
    ['# TYPE foo info', 1, /unknown metric type "info"/],
    ['# TYPE foo counter\n# TYPE foo gauge', 2, /second TYPE for foo: "gauge" after "counter"/],
    ['# HELP 1abc x', 1, /expected a metric name after HELP/],
    ['<!DOCTYPE html>\n<html>', 1, /expected a metric name/],
    ['{"metrics": []}', 1, /expected a metric name/],
    ['ok 1\n\n\u0000\u0001\u0002', 3, /expected a metric name/],
  ];
  for (const [text, line, message] of cases) {
    const [gotLine, gotMessage] = failure(text, 'text');
    t.equal(gotLine, line, `${JSON.stringify(text)}: line`);
    t.match(gotMessage, message, JSON.stringify(text));
    t.match(gotMessage, new RegExp(`^line ${line}: `));
  }
});

t.test('OpenMetrics is stricter: # EOF, single spaces, no stray comments', async (t) => {
  const cases: Array<[string, number, RegExp]> = [
    ['a 1\n', 1, /does not end with "# EOF"/],
    ['', 1, /does not end with "# EOF"/],
    ['a 1\n# EOF\nb 2\n', 3, /unexpected data after "# EOF"/],
    ['a 1\n# EOF\n\n', 3, /unexpected data after "# EOF"/],
    ['a 1\n\n# EOF\n', 2, /empty line/],
    ['# just a comment\n# EOF\n', 1, /OpenMetrics has no other comments/],
    ['a  1\n# EOF\n', 1, /invalid value|expected one space/],
    ['a{b="c"}  1\n# EOF\n', 1, /invalid value|expected one space/],
    [' a 1\n# EOF\n', 1, /expected a metric name/],
    ['a { b="c"} 1\n# EOF\n', 1, /invalid value|expected one space/],
    ['a{b = "c"} 1\n# EOF\n', 1, /expected "="/],
    ['a 1 x\n# EOF\n', 1, /invalid timestamp/],
    ['a 1 NaN\n# EOF\n', 1, /invalid timestamp/],
    ['a_total 1 # trace\n# EOF\n', 1, /unexpected text after the sample/],
    ['a_total 1 # {t="x"}\n# EOF\n', 1, /expected one space before the exemplar value/],
    ['a_total 1 # {t="x"} y\n# EOF\n', 1, /invalid exemplar value/],
    ['# TYPE a gauge\n# UNIT a seconds\n# EOF\n', 2, /unit "seconds" is not a suffix of the metric name a/],
    ['# TYPE a untyped\n# EOF\n', 1, /unknown metric type "untyped"/],
    ['# HELP a\n# EOF\n', 1, /expected a space after the metric name in HELP/],
    ['a 1\r\n# EOF\n', 1, /invalid value/],
  ];
  for (const [text, line, message] of cases) {
    const [gotLine, gotMessage] = failure(text, 'openmetrics');
    t.equal(gotLine, line, `${JSON.stringify(text)}: line`);
    t.match(gotMessage, message, JSON.stringify(text));
  }
  t.same(parseExposition('a 1\n# EOF', 'openmetrics').length, 1, '# EOF needs no final newline');
  t.same(parseExposition('# HELP a \n# UNIT a \n# EOF\n', 'openmetrics'), [], 'empty HELP and UNIT are fine');
  t.same(parseExposition('a_total 1 123.5 # {t="x"} 2 123.4\n# EOF\n', 'openmetrics')[0]?.timestampMs, 123500);
});

t.test('chunks may split anywhere, even inside a UTF-8 character', async (t) => {
  const text = fixture('prom-client-15.om.txt');
  const whole = parseExposition(text, 'openmetrics');
  const bytes = Buffer.from(text, 'utf8');
  for (const size of [1, 2, 3, 7, 64, 1000]) {
    const samples: ScrapedSample[] = [];
    const parser = new ExpositionParser('openmetrics', (s) => samples.push(s));
    for (let i = 0; i < bytes.length; i += size) parser.push(bytes.subarray(i, i + size));
    parser.end();
    t.same(samples, whole, `${size}-byte chunks`);
    const strings: ScrapedSample[] = [];
    const p2 = new ExpositionParser('openmetrics', (s) => strings.push(s));
    for (let i = 0; i < text.length; i += size) p2.push(text.slice(i, i + size));
    p2.end();
    t.same(strings, whole, `${size}-character string chunks`);
  }
});

t.test('a huge line is refused by the length limit as it arrives, not parsed', async (t) => {
  const megabyte = 'a'.repeat(1024 * 1024);
  const parser = new ExpositionParser('text', () => {});
  let pushed = 0;
  t.throws(() => {
    for (let i = 0; i < 100; i++) {
      pushed++;
      parser.push(megabyte);
    }
  }, { name: 'ExpositionError', message: /^line 1: line longer than 131072 characters/ });
  t.equal(pushed, 1, 'refused on the first megabyte of a 100 MB line');
  t.throws(() => parser.push('ok 1\n'), /line longer than/, 'the parser stays failed');
  t.throws(() => parser.end(), /line longer than/);

  const small = new ExpositionParser('text', () => {}, { maxLineLength: 100 });
  small.push(`ok 1\nok 2\n${'b'.repeat(60)}`);
  t.throws(() => small.push('c'.repeat(60)), /^line 3: line longer than 100 characters/, 'a partial line grows past the limit');
  t.throws(() => parseExposition(`ok 1\nx{a="${'v'.repeat(200)}"} 1\nok 2\n`, 'text', { maxLineLength: 100 }), /^line 2: line longer than 100/);
});

t.test('bytes that are not UTF-8 are an ExpositionError', async (t) => {
  const parser = new ExpositionParser('text', () => {});
  t.throws(() => parser.push(Buffer.from([0x61, 0x20, 0x31, 0x0a, 0x62, 0xff, 0xfe, 0x20, 0x31, 0x0a])), { name: 'ExpositionError', message: /not valid UTF-8/ });
  const truncated = new ExpositionParser('text', () => {});
  truncated.push(Buffer.from([0x61, 0x7b, 0x62, 0x3d, 0x22, 0xc3]));
  t.throws(() => truncated.end(), { name: 'ExpositionError', message: /not valid UTF-8/ });
});

t.test('an error thrown by the sample callback is passed on unchanged and ends the parse', async (t) => {
  class LimitError extends Error {}
  let seen = 0;
  const parser = new ExpositionParser('text', () => {
    if (++seen > 2) throw new LimitError('sample_limit 2 exceeded');
  });
  const thrown = (f: () => void) => {
    try {
      f();
    } catch (e) {
      return e;
    }
    return null;
  };
  const first = thrown(() => parser.push('a 1\nb 2\nc 3\nd 4\n'));
  t.ok(first instanceof LimitError, 'the callback\'s own error');
  t.equal(seen, 3);
  t.equal(thrown(() => parser.push('e 5\n')), first, 'still failed');
  t.equal(thrown(() => parser.end()), first);
});

t.test('random garbage never escapes as anything but an ExpositionError', async (t) => {
  const random = seededRandom(12345);
  const alphabet = ['a', '_', ':', '{', '}', '=', '"', ',', '\\', ' ', '\t', '#', '\n', '1', '.', 'e', '+', '-', 'NaN', 'Inf', '# TYPE ', '# HELP ', '# EOF', 'le', 'é', '\u0000'];
  let parsed = 0;
  for (let i = 0; i < 3000; i++) {
    let text = '';
    const length = Math.floor(random() * 40);
    for (let k = 0; k < length; k++) text += alphabet[Math.floor(random() * alphabet.length)];
    for (const format of ['text', 'openmetrics'] as const) {
      try {
        parseExposition(text, format);
        parsed++;
      } catch (e) {
        if (!(e instanceof ExpositionError)) t.fail(`${format} ${JSON.stringify(text)} threw ${String(e)}`);
      }
    }
  }
  t.ok(parsed > 0, `${parsed} of 6000 random texts parsed`);
});

t.test('le and quantile values are put in canonical float form', async (t) => {
  const cases: Array<[string, string]> = [
    ['1', '1.0'], ['0.005', '0.005'], ['+Inf', '+Inf'], ['inf', '+Inf'], ['-Inf', '-Inf'], ['NaN', 'NaN'],
    ['1e6', '1e+06'], ['100000', '100000.0'], ['1234567', '1.234567e+06'], ['0.0001', '0.0001'], ['0.00001', '1e-05'],
    ['2.50', '2.5'], ['0', '0.0'], ['-0', '-0.0'], ['not a number', 'not a number'], ['', ''],
  ];
  for (const [input, output] of cases) t.equal(canonicalFloat(input), output, input);
});

t.test('a SeriesMemo: label sets looked up by their text, the same samples as a fresh parse', async (t) => {
  const parseWith = (text: string, memo: SeriesMemo) => {
    const out: ScrapedSample[] = [];
    const parser = new ExpositionParser('text', (s) => out.push(s), { memo });
    parser.push(text);
    parser.end();
    return out;
  };
  const memo = new SeriesMemo();
  const first = 'm{a="1",b="2"} 1\nq{v="x}y"} 2\nq{v="x}z"} 3\nx_bucket{le="1"} 4\nplain 5\n';
  const a = parseWith(first, memo);
  t.same(a, parseExposition(first, 'text'), 'the first parse is a plain parse');
  t.same(a.map((s) => s.series), ['m{a="1",b="2"}', 'q{v="x}y"}', 'q{v="x}z"}', 'x_bucket{le="1"}', 'plain']);
  const b = parseWith(first, memo);
  t.same(b, a, 'the second parse gives the same samples');
  t.equal(b[0]!.labels, a[0]!.labels, 'from the memo (the same label array)');
  t.same(b[2]!.labels, ['v', 'x}z'], 'a "}" inside a value never cuts a label set short');

  // a TYPE line changes what the label set means: le is put in canonical form from now on
  const typed = parseWith('# TYPE x histogram\nx_bucket{le="1"} 4\n', memo);
  t.same(typed[0]!.labels, ['le', '1.0'], 'a label set parsed under another TYPE is parsed again');

  t.equal(memo.size, 4, 'label sets are remembered (a name alone needs no memo)');
  parseWith('plain 6\n', memo);
  t.equal(memo.size, 1, 'label sets absent from this parse and the one before are forgotten (x_bucket was in the last one)');

  // a parse that fails still forgets what two parses did not see: new label sets every
  // time, each parse ending in a bad line, keep at most two parses' worth
  const failing = new SeriesMemo();
  for (let i = 0; i < 4; i++) t.throws(() => parseWith(`f{i="${i}a"} 1\nf{i="${i}b"} 2\nbroken\n`, failing), /line 3/);
  t.equal(failing.size, 4, 'the last two parses\' label sets, not all eight');

  // what the memo holds never changes what a line means: random label sets, twice each
  const random = seededRandom(99);
  const pick = (chars: string, n: number) => Array.from({ length: n }, () => chars[Math.floor(random() * chars.length)]).join('');
  const lines = Array.from({ length: 300 }, (_, i) => `r${i % 7}{${pick('ab', 1)}="${pick('x}{,=\\\\"', 3).replace(/\\$/, '')}"} ${i}`);
  const text = lines.filter((l) => { try { parseExposition(l + '\n', 'text'); return true; } catch { return false; } }).join('\n') + '\n';
  const again = new SeriesMemo();
  parseWith(text, again);
  t.same(parseWith(text, again), parseExposition(text, 'text'), 'random label sets: memo or not, the same samples');

  // the memo expects the series in the order of the last parse: a target that reorders,
  // adds or drops series still parses as a fresh parse would
  const steady = Array.from({ length: 40 }, (_, i) => `s{i="${i}"} ${i}`);
  const ordered = new SeriesMemo();
  parseWith(steady.join('\n') + '\n', ordered);
  const shuffled = [...steady].sort(() => random() - 0.5);
  const changed = [...shuffled.slice(0, 10), 's{i="new"} 1', 's{i="1",j="2"} 2', ...shuffled.slice(13)].join('\n') + '\n';
  t.same(parseWith(changed, ordered), parseExposition(changed, 'text'), 'reordered, added and dropped series');
  const hits = parseWith(changed, ordered);
  t.same(hits, parseExposition(changed, 'text'), 'and again, now in the new order');
  t.equal(hits[20]!.labels, parseWith(changed, ordered)[20]!.labels, 'the label sets come from the memo');

  // a space before the label set is text format only: a target that switches to
  // OpenMetrics is held to its rules, whatever the memo remembers
  const switching = new SeriesMemo();
  parseWith('sp {a="1"} 1\n', switching);
  const om = new ExpositionParser('openmetrics', () => {}, { memo: switching });
  t.throws(() => { om.push('sp {a="1"} 1\n# EOF\n'); om.end(); }, ExpositionError, 'OpenMetrics refuses what the text format allowed');
});

t.test('plainDecimal reads plain decimals in place exactly as Number() does, and leaves the rest to parseNumber', async (t) => {
  const read = (token: string) => plainDecimal(`x ${token} y`, 2, 2 + token.length);
  for (const [token, value] of [['0', 0], ['-0', -0], ['+7', 7], ['007', 7], ['1.', 1], ['.5', 0.5], ['-12.25', -12.25], ['0.1', 0.1], ['123456789012345', 123456789012345], ['0.00000000000001', 1e-14]] as const) {
    t.ok(Object.is(read(token), value), `${token} -> ${value}`);
  }
  for (const token of ['', '-', '.', '1.2.3', '1e3', '1,5', 'NaN', '+Inf', '0x10', '1234567890123456', '0.000000000000001', '1 ']) {
    t.equal(read(token), undefined, `${JSON.stringify(token)} is left to parseNumber`);
  }
  // random decimals of up to 15 digits, the point anywhere: the same double as Number()
  const random = seededRandom(7);
  let differ = 0;
  for (let i = 0; i < 20000; i++) {
    const digits = Array.from({ length: 1 + Math.floor(random() * 15) }, () => String(Math.floor(random() * 10))).join('');
    const point = Math.floor(random() * (digits.length + 1));
    const token = (random() < 0.3 ? '-' : '') + digits.slice(0, point) + (random() < 0.8 ? '.' : '') + digits.slice(point);
    if (!Object.is(read(token), Number(token))) differ++;
  }
  t.equal(differ, 0, '20,000 random decimals read exactly');
});
