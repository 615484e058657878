import t from 'tap';
import { compileAnchored } from '../../src/scrape/regex.js';

t.test('RE2 syntax is translated and anchored', async (t) => {
  const cases: Array<[string, string[], string[]]> = [
    // [regex, matches, does not match]
    ['foo', ['foo'], ['xfoo', 'foox', 'FOO']],
    ['a|b', ['a', 'b'], ['ab', '']],
    ['(?i)foo', ['foo', 'FoO'], ['fo']],
    ['(?is)a.b', ['a\nb', 'A-B'], ['ab']],
    ['a.b', ['a\nb'], []],
    ['(?P<name>x+)y', ['xxy'], ['y']],
    ['(?<name>x+)y', ['xy'], []],
    ['\\_\\-\\:\\.', ['_-:.'], ['_x:.']],
    ['[[:alpha:]]+[[:digit:]]', ['abc1'], ['abc', '1']],
    ['[^[:space:]]+', ['a-b'], ['a b']],
    ['a{2}', ['aa'], ['a', 'aaa']],
    ['a{2,}', ['aaaa'], ['a']],
    ['a{', ['a{'], ['a']],
    ['{}', ['{}'], []],
    ['x}', ['x}'], []],
    ['[]a]+', [']a]'], ['b']],
    ['[^]a]', ['b'], [']', 'a']],
    ['\\Q.*+\\E!', ['.*+!'], ['ab!']],
    ['\\pL+', ['héllo'], ['h3']],
    ['\\p{Greek}+', ['αβ'], ['ab']],
    ['\\p{^Greek}+', ['ab'], ['αβ']],
    ['\\PL', ['1'], ['a']],
    ['\\p{Lu}', ['Ä'], ['ä']],
    ['\\x41\\x{42}', ['AB'], []],
    ['\\Afoo\\z', ['foo'], []],
    ['', [''], ['a']],
    ['.*', ['', 'anything\nat all'], []],
    ['10\\.0\\.[0-9]+\\.[0-9]+:9100', ['10.0.3.4:9100'], ['10.0.3.4:91000', '10x0.3.4:9100']],
    ['(.+);(.+)', ['a;b'], [';b']],
  ];
  for (const [source, yes, no] of cases) {
    const re = compileAnchored(source);
    for (const s of yes) t.ok(re.test(s), `${source} matches ${JSON.stringify(s)}`);
    for (const s of no) t.notOk(re.test(s), `${source} does not match ${JSON.stringify(s)}`);
  }
  t.same(compileAnchored('(?P<host>[^:]+):(?P<port>\\d+)').exec('h:1')?.groups, { host: 'h', port: '1' });
});

t.test('what RE2 refuses, or JavaScript cannot do here, is a clear error', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['(', /invalid regex "\("/],
    ['a)', /invalid regex/],
    ['*a', /invalid regex/],
    ['(?=a)b', /lookahead and lookbehind are not supported/],
    ['(?<!a)b', /lookahead and lookbehind are not supported/],
    ['(a)\\1', /backreferences and octal escapes are not supported/],
    ['a(?i)b', /inline flags are supported only at the very start/],
    ['(?i:a)', /inline flags are supported only at the very start/],
    ['(?m)^a', /regex flag "m" is not supported/],
    ['(?U)a+', /regex flag "U" is not supported/],
    ['a{1001}', /repeat count above 1000/],
    ['[[:bogus:]]', /unknown or unsupported character class "\[:bogus:\]"/],
    ['[a', /missing "\]"/],
    ['\\k<x>', /invalid escape \\k/],
    ['a\\', /trailing backslash/],
    ['\\x4', /invalid \\x escape/],
    ['(?P=name)', /invalid group syntax/],
  ];
  for (const [source, message] of cases) t.throws(() => compileAnchored(source), { name: 'Error', message }, source);
});
