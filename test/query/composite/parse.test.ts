import t from 'tap';
import { parseComposite, parseSyntax } from '../../../src/query/composite/parse.js';
import { MAX_DEPTH, MAX_EXPRESSION_LENGTH, MAX_SERIES_CALLS, MAX_SET_ITEMS, MAX_TIMESHIFT_OFFSETS } from '../../../src/query/composite/limits.js';
import { composeMessage } from './errors.js';

const error = (src: string) => composeMessage(() => parseComposite(src));

t.test('the examples of the Librato and AppOptics documentation parse', async (t) => {
  const examples = [
    'series("foo.bar.baz", {})',
    'series("foo.bar.*", {"name":"prod.*"})',
    'series("foo.bar.*", "%")',
    'sum(s("foo.bar.*", {"name":"prod.*"}))',
    'group_by("region", sum(series("AWS.ELB.HTTPCode_Backend_2XX", {"region" : "us*"})))',
    '[sum(series("AWS.ELB.HTTPCode_Backend_2XX", {"region" : "us-east-1"})),\n sum(series("AWS.ELB.HTTPCode_Backend_2XX", {"region" : "us-west-1"}))]',
    'timeshift("0,1,2,3w", mean(s("AWS.ElastiCache.CPUUtilization", "%")))',
    'timeshift("0,1,2,3w", window(max(s("api.auth.time.p99", "*")), {size: "10"}))',
    'timeshift("0,1d",max(series("AWS.ELB.Latency", {"host":"metrics-prod"})))',
    'timeshift("1,0w", s("a", "*"))',
    'timeshift("0w", s("a", "*"))',
    'timeshift("+7d", s("a", "*"))',
    'timeshift("-7d", s("a", "*"))',
    'timeshift("0,60s", s("a", "*"))',
    'divide([sum(s("bench_metric",{"region":"r1"})), sum(s("bench_metric","*"))])',
    'top(s("bench_metric","*"),{count:"10",function:"max"})',
    'top(s("system.cpu.user", {"host":"*"}), {"count": "10","function": "max"})',
    'derive(s("collectd.cpu.0.idle", "*"), {detect_reset:"true"})',
    'scale(s("disk.bytes", "*"), {factor: "1/1024"})',
    'rate(s("requests", "*", {period:"60"}), {duration: "3600"})',
    'group_by("region,az", [sum(s("a", "*")), s("b", "*", {group:"false"})])',
  ];
  for (const src of examples) t.doesNotThrow(() => parseComposite(src), src);
});

t.test('AppOptics @host tags parse but are refused: Gaugeway has no such tags', async (t) => {
  const src = 'top(s("system.cpu.user", {"@host":"*"}), {"count": "10","function": "max"})';
  t.doesNotThrow(() => parseSyntax(src));
  t.equal(error(src), 'tag name "@host" at column 27: expected 1-64 letters, digits, . : - _');
});

t.test('the syntax tree keeps columns, strings, numbers and map keys', async (t) => {
  t.same(parseSyntax('f( "a\\"\\u0041\\n", -1.5e2 ,{k:1, "q k":"v"}, [])'), {
    kind: 'call', name: 'f', column: 1, args: [
      { kind: 'string', value: 'a"A\n', column: 4 },
      { kind: 'number', value: -150, text: '-1.5e2', column: 19 },
      { kind: 'map', column: 27, entries: [
        { key: 'k', keyColumn: 28, value: { kind: 'number', value: 1, text: '1', column: 30 } },
        { key: 'q k', keyColumn: 33, value: { kind: 'string', value: 'v', column: 39 } },
      ] },
      { kind: 'set', items: [], column: 45 },
    ],
  });
});

t.test('series() becomes a typed node with its defaults', async (t) => {
  t.same(parseComposite('s("CPU.User", {port: 8080, "Host": "Web*"})'), {
    kind: 'series', metric: 'cpu.user', tags: [['host', 'web*'], ['port', '8080']], fn: 'mean', period: null, group: true,
  });
  t.same(parseComposite('series("a")'), { kind: 'series', metric: 'a', tags: [], fn: 'mean', period: null, group: true });
  t.same(parseComposite('series("a", "*", {function: "max", period: 300, group: "false"})'), {
    kind: 'series', metric: 'a', tags: [], fn: 'max', period: 300, group: false,
  });
  t.equal((parseComposite('s("a", "%")') as { tags: unknown }).tags, 'dynamic');
});

t.test('options arrive as strings or numbers and are typed', async (t) => {
  t.match(parseComposite('window(s("a","*"), {size: 5, function: "median"})'), { kind: 'window', size: 5, fn: 'median' });
  t.match(parseComposite('moving_average(s("a","*"), {"size": "3"})'), { kind: 'window', size: 3, fn: 'mean' });
  t.match(parseComposite('window(s("a","*"))'), { kind: 'window', size: 1, fn: 'mean' });
  t.match(parseComposite('derive(s("a","*"))'), { kind: 'derive', detectReset: true });
  t.match(parseComposite('derive(s("a","*"), {detect_reset: "false"})'), { kind: 'derive', detectReset: false });
  t.match(parseComposite('rate(s("a","*"))'), { kind: 'rate', duration: 1 });
  t.match(parseComposite('scale(s("a","*"), {factor: "1/1024"})'), { kind: 'scale', factor: 1 / 1024 });
  t.match(parseComposite('scale(s("a","*"), {factor: "-2.5"})'), { kind: 'scale', factor: -2.5 });
  t.match(parseComposite('scale(s("a","*"), {factor: 3})'), { kind: 'scale', factor: 3 });
  t.match(parseComposite('fill(s("a","*"), {value: "last"})'), { kind: 'fill', value: 'last' });
  t.match(parseComposite('fill(s("a","*"), {value: "-1"})'), { kind: 'fill', value: -1 });
  t.match(parseComposite('zero_fill(s("a","*"))'), { kind: 'fill', value: 0 });
  t.match(parseComposite('top(s("a","*"))'), { kind: 'rank', order: 'top', count: 10, fn: 'mean' });
  t.match(parseComposite('bottom(s("a","*"), {count: "3", function: "sum"})'), { kind: 'rank', order: 'bottom', count: 3, fn: 'sum' });
  t.match(parseComposite('filter(s("a","*"), {gt: "1", lte: 5})'), { kind: 'filter', fn: 'mean', gt: 1, gte: null, lt: null, lte: 5 });
  t.match(parseComposite('group_by(" Region , az,region", s("a","*"))'), { kind: 'group_by', tags: ['region', 'az'] });
  t.match(parseComposite('multiply([s("a","*"), s("b","*")])'), { kind: 'aggregate', fn: 'multiply' });
  t.match(parseComposite('subtract([s("a","*"), s("b","*")])'), { kind: 'pair', fn: 'subtract' });
  t.match(parseComposite('integrate(s("a","*"))'), { kind: 'integrate' });
});

t.test('timeshift offsets are seconds back in time; + is forward; the unit defaults to seconds', async (t) => {
  t.match(parseComposite('timeshift("0,1,2w", s("a","*"))'), { offsets: [0, 604800, 1209600] });
  t.match(parseComposite('timeshift("-1d", s("a","*"))'), { offsets: [86400] });
  t.match(parseComposite('timeshift("+2h", s("a","*"))'), { offsets: [-7200] });
  t.match(parseComposite('timeshift("5m", s("a","*"))'), { offsets: [300] });
  t.match(parseComposite('timeshift("0, 90", s("a","*"))'), { offsets: [0, 90] });
});

t.test('syntax errors name the column and what would have done', async (t) => {
  const cases: [string, string][] = [
    ['', 'unexpected end of expression at column 1: expected a function call, a set "[...]", a map "{...}", a string or a number'],
    ['sum(s("a","*")', 'unexpected end of expression at column 15: expected "," or ")"'],
    ['sum(s("a","*")))', 'unexpected ")" at column 16: expected end of expression'],
    ['sum (s("a","*"))', 'space before "(" at column 4: expected "(" directly after the function name "sum"'],
    ['sum', 'unexpected end of expression at column 4: expected "(" after the function name "sum"'],
    ['[s("a","*"),]', 'unexpected "]" at column 13: expected a function call, a set "[...]", a map "{...}", a string or a number'],
    ['[s("a","*") s("b","*")]', 'unexpected name "s" at column 13: expected "," or "]"'],
    ['s("a", {"host" "x"})', 'unexpected string "x" at column 16: expected ":"'],
    ['s("a", {host: x})', 'unexpected name "x" at column 15: expected a string or a number'],
    ['s("a", {host: "x",})', 'unexpected "}" at column 19: expected a key (a name or a string)'],
    ['s("a", {host: "x" region: "y"})', 'unexpected name "region" at column 19: expected "," or "}"'],
    ['s("a", {host: "x", host: "y"})', 'duplicate key "host" at column 20: expected each key once'],
    ['s("a, "*")', 'unexpected character "*" at column 8: expected a function call, "[", "{", a string or a number'],
    ['s("a", "*"', 'unexpected end of expression at column 11: expected "," or ")"'],
    ['s("abc', 'unterminated string at column 3: expected a closing double quote'],
    ['s("a\\x", "*")', 'unknown escape "\\\\x" at column 5: expected \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX'],
    ['s("a", "*") # note', 'unexpected character "#" at column 13: expected a function call, "[", "{", a string or a number'],
    ['scale(s("a","*"), {factor: 1e999})', 'number 1e999 is too large at column 28: expected a finite number'],
    // columns count characters: an emoji is one, though it is two UTF-16 units
    ['s("a", {"host": "\u{1F600}"} x)', 'unexpected name "x" at column 22: expected "," or ")"'],
    ['[s("\u{1F600}"), s ("b")]', 'space before "(" at column 11: expected "(" directly after the function name "s"'],
    ['s("\u{1F600}\u{1F600}\\x")', 'unknown escape "\\\\x" at column 6: expected \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX'],
    ['s("a") \u{1F600}', 'unexpected character "\u{1F600}" at column 8: expected a function call, "[", "{", a string or a number'],
    ['s("\u{1F600}"', 'unexpected end of expression at column 6: expected "," or ")"'],
  ];
  for (const [src, message] of cases) t.equal(error(src), message, src);
});

t.test('function names, arguments and options are checked before anything runs', async (t) => {
  const cases: [string, string][] = [
    ['foo(s("a","*"))', 'unknown function "foo" at column 1: expected one of series, s, sum, mean, min, max, multiply, divide, subtract, derive, integrate, rate, scale, window, moving_average, timeshift, fill, zero_fill, top, bottom, filter, group_by'],
    ['sum(foo(s("a","*")))', 'unknown function "foo" at column 5: expected one of series, s, sum, mean, min, max, multiply, divide, subtract, derive, integrate, rate, scale, window, moving_average, timeshift, fill, zero_fill, top, bottom, filter, group_by'],
    ['"a"', 'string "a" at column 1: expected a set of series (a function call or [...])'],
    ['sum("a")', 'string "a" at column 5: expected a set of series (a function call or [...])'],
    ['sum([s("a","*"), 5])', 'number 5 at column 18: expected a set of series (a function call or [...])'],
    ['sum()', 'sum with 0 arguments at column 1: expected sum(set)'],
    ['sum(s("a","*"), s("b","*"))', 'sum with 2 arguments at column 1: expected sum(set)'],
    ['window(s("a","*"), {size: "65"})', 'window size "65" at column 27: expected a whole number from 1 to 64'],
    ['window(s("a","*"), {size: 0})', 'window size 0 at column 27: expected a whole number from 1 to 64'],
    ['window(s("a","*"), {size: "2.5"})', 'window size "2.5" at column 27: expected a whole number from 1 to 64'],
    ['window(s("a","*"), {function: "p99"})', 'window function "p99" at column 31: expected one of mean, sum, min, max, median'],
    ['moving_average(s("a","*"), {function: "max"})', 'unknown option "function" of moving_average at column 29: expected one of size'],
    ['divide([s("a","*"), s("b","*"), s("c","*")])', 'divide of 3 series at column 8: expected a set of exactly 2 series'],
    ['subtract([s("a","*")])', 'subtract of 1 series at column 10: expected a set of exactly 2 series'],
    ['divide([[s("a","*"), s("b","*")], s("c","*")])', 'divide of 3 series at column 8: expected a set of exactly 2 series'],
    ['series(5)', 'number 5 at column 8: expected a metric name (a double-quoted string)'],
    ['series("cpu idle", "*")', 'metric name "cpu idle" at column 8: expected 1-255 letters, digits, . : - _ or *'],
    ['series("a", "boat;man")', 'source pattern "boat;man" at column 13: expected 1-255 letters, digits, spaces, . : - _ ? \\ / or *'],
    ['series("a", 5)', 'number 5 at column 13: expected a tag map {"name": "pattern"}, a source pattern, "*" or "%"'],
    ['series("a", {"host": "a;b"})', 'tag pattern "a;b" at column 22: expected 1-255 letters, digits, spaces, . : - _ ? \\ / or *'],
    ['series("a", {"host": "a", "HOST": "b"})', 'duplicate tag name "HOST" at column 27: expected each tag name once'],
    ['series("a", {"!host": "a"})', 'tag name "!host" at column 14: expected 1-64 letters, digits, . : - _'],
    ['series("a", "*", {function: "median"})', 'series function "median" at column 29: expected one of mean, sum, min, max, count'],
    ['s("a", "*", {period: "0"})', 's period "0" at column 22: expected a whole number from 1 to 604800'],
    ['s("a", "*", {group: "no"})', 's group "no" at column 21: expected one of true, false'],
    ['s("a", "*", {colour: "red"})', 'unknown option "colour" of s at column 14: expected one of function, period, group'],
    ['s("a", "*", "x")', 'string "x" at column 13: expected an options map {...} as the last argument of s'],
    ['s("a", "*", {}, {})', 's with 4 arguments at column 1: expected s(metric, tags, {function, period, group})'],
    ['derive(s("a","*"), {detect_reset: "yes"})', 'derive detect_reset "yes" at column 35: expected one of true, false'],
    ['rate(s("a","*"), {duration: "0"})', 'rate duration "0" at column 29: expected a positive number of seconds'],
    ['rate(s("a","*"), {duration: "fast"})', 'rate duration "fast" at column 29: expected a number'],
    ['scale(s("a","*"))', 'scale with 1 argument at column 1: expected scale(set, {factor: "2"})'],
    ['scale(s("a","*"), {})', 'scale without the option factor at column 1: expected scale(set, {factor: "1/1024"})'],
    ['scale(s("a","*"), {factor: "1/0"})', 'scale factor "1/0" at column 28: expected a fraction with a non-zero divisor'],
    ['scale(s("a","*"), {factor: "x/2"})', 'scale factor "x/2" at column 28: expected a number'],
    ['fill(s("a","*"), {value: "first"})', 'fill value "first" at column 26: expected a number'],
    ['fill(s("a","*"), {})', 'fill without the option value at column 1: expected fill(set, {value: "0" or "last"})'],
    ['top(s("a","*"), {count: "0"})', 'top count "0" at column 25: expected a whole number from 1 to 10000'],
    ['bottom(s("a","*"), {function: "count"})', 'bottom function "count" at column 31: expected one of mean, sum, min, max'],
    ['filter(s("a","*"), {function: "max"})', 'filter without a bound at column 1: expected at least one of the options gt, gte, lt, lte'],
    ['filter(s("a","*"), {gt: "high"})', 'filter gt "high" at column 25: expected a number'],
    ['timeshift("1y", s("a","*"))', 'timeshift "1y" at column 11: expected offsets like "1d", "0,1,2w" or "+1h" (units s, m, h, d, w)'],
    ['timeshift("1.5d", s("a","*"))', 'timeshift "1.5d" at column 11: expected offsets like "1d", "0,1,2w" or "+1h" (units s, m, h, d, w)'],
    ['timeshift("60w", s("a","*"))', 'timeshift "60w" at column 11: expected shifts of at most 400 days'],
    ['timeshift(s("a","*"), "1d")', 's() at column 11: expected offsets like "1d" or "0,1w" (a double-quoted string)'],
    ['group_by("region,", s("a","*"))', 'group_by tags "region," at column 10: expected comma-separated tag names such as "region,az"'],
    ['group_by("*", s("a","*"))', 'group_by tags "*" at column 10: expected comma-separated tag names such as "region,az"'],
    ['integrate(s("a","*"), {})', 'integrate with 2 arguments at column 1: expected integrate(set)'],
  ];
  for (const [src, message] of cases) t.equal(error(src), message, src);
});

t.test('errors are reported left to right: the first problem in the text wins', async (t) => {
  t.equal(error('window(foo(), {size: 99})'), error('foo()').replace('column 1', 'column 8'));
});

t.test('limits keep a hostile expression cheap', async (t) => {
  const long = `s("${'a'.repeat(MAX_EXPRESSION_LENGTH)}")`;
  t.equal(error(long), `is ${long.length} characters long: expected at most ${MAX_EXPRESSION_LENGTH}`);

  const nest = (n: number) => `${'sum('.repeat(n - 1)}s("a","*")${')'.repeat(n - 1)}`;
  t.doesNotThrow(() => parseComposite(nest(MAX_DEPTH)));
  t.equal(error(nest(MAX_DEPTH + 1)), `nesting deeper than ${MAX_DEPTH} levels at column ${4 * MAX_DEPTH + 1}: expected at most ${MAX_DEPTH} levels of calls, sets and maps`);
  // far past the limit: still a 400, not a stack overflow
  t.match(error('['.repeat(5000)), /nesting deeper than 32 levels at column 33/);

  const set = (n: number) => `[${Array.from({ length: n }, () => 's("a","*")').join(',')}]`;
  t.doesNotThrow(() => parseComposite(set(MAX_SET_ITEMS)));
  t.equal(error(set(MAX_SET_ITEMS + 1)), `set of more than ${MAX_SET_ITEMS} items at column ${2 + 11 * MAX_SET_ITEMS}: expected at most ${MAX_SET_ITEMS} items in one set`);

  const calls = (n: number) => `sum([${Array.from({ length: n }, () => 's("a","*")').join(',')}])`;
  t.doesNotThrow(() => parseComposite(calls(MAX_SERIES_CALLS)));
  t.match(error(`[${calls(60)}, ${calls(41)}]`), `more than ${MAX_SERIES_CALLS} series() calls (counting each timeshift offset)`);

  // every offset runs the inner expression again: 11 offsets x 10 calls
  const ten = calls(10);
  t.doesNotThrow(() => parseComposite(`timeshift("0,1,2,3,4,5,6,7,8,9d", ${ten})`));
  t.match(error(`timeshift("0,1,2,3,4,5,6,7,8,9,10d", ${ten})`), /more than 100 series\(\) calls \(counting each timeshift offset\) at column \d+: expected at most 100/);
  t.match(error(`timeshift("0,1d", timeshift("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25d", s("a","*")))`), /timeshift with 26 offsets at column 29: expected at most 16/);
  // nested offsets multiply even around nothing to read: 16^10 runs would hang the service
  const sixteen = `"${Array.from({ length: 16 }, (_, i) => i).join(',')}"`;
  t.match(error(`${`timeshift(${sixteen}, `.repeat(10)}[]${')'.repeat(10)}`), /timeshifts that run their expression 256 times at column \d+: expected at most 100 runs/);
  t.doesNotThrow(() => parseComposite(`timeshift("0,1,2,3,4,5,6,7,8,9", timeshift("0,1,2,3,4,5,6,7,8,9", s("a","*")))`));
  t.ok(MAX_TIMESHIFT_OFFSETS === 16);
});
