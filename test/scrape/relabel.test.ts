// Cases mirror Prometheus's documented relabelling behaviour (and its relabel tests).
import t from 'tap';
import { compileRelabelConfigs, parseTemplate, relabel, type RelabelConfig, type RelabelRule } from '../../src/scrape/relabel.js';
import type { ScrapeConfigProblem } from '../../src/scrape/problems.js';

function compile(configs: RelabelConfig[]): { rules: RelabelRule[]; problems: string[] } {
  const problems: string[] = [];
  const rules = compileRelabelConfigs(configs, (segments, message) => problems.push(`${segments.join('.')}: ${message}`));
  return { rules, problems };
}

/** Runs `configs` on `input`; the labels after, or null if dropped. */
function run(input: Record<string, string>, configs: RelabelConfig[]): Record<string, string> | null {
  const { rules, problems } = compile(configs);
  if (problems.length) throw new Error(problems.join('; '));
  const labels = new Map(Object.entries(input));
  if (!relabel(labels, rules)) return null;
  return Object.fromEntries([...labels].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
}

const abc = { a: 'foo', b: 'bar', c: 'baz' };

t.test('replace', async (t) => {
  t.same(run(abc, [{ source_labels: ['a'], regex: 'f(.*)', target_label: 'd', replacement: 'ch${1}-ch${1}' }]), { ...abc, d: 'choo-choo' });
  t.same(run(abc, [
    { source_labels: ['a', 'b'], regex: 'f(.*);(.*)r', target_label: 'a', replacement: 'b${1}${2}m' },
    { source_labels: ['c', 'a'], regex: '(b).*b(.*)ba(.*)', target_label: 'd', replacement: '$1$2$2$3' },
  ]), { a: 'boobam', b: 'bar', c: 'baz', d: 'boooom' }, 'rules see the changes of the rules before');
  t.same(run(abc, [{ source_labels: ['a'], regex: 'o', target_label: 'd', replacement: 'x' }]), abc, 'the regex is anchored: "o" does not match "foo"');
  t.same(run(abc, [{ source_labels: ['a'], regex: 'f|o', target_label: 'd', replacement: 'x' }]), abc, 'anchored around the whole alternation');
  t.same(run(abc, [{ source_labels: ['a'], target_label: 'd' }]), { ...abc, d: 'foo' }, 'defaults: regex (.*), replacement $1');
  t.same(run(abc, [{ source_labels: ['a', 'b'], separator: '|', target_label: 'd' }]), { ...abc, d: 'foo|bar' });
  t.same(run(abc, [{ source_labels: ['a', 'missing', 'b'], target_label: 'd' }]), { ...abc, d: 'foo;;bar' }, 'a missing label is the empty string');
  t.same(run(abc, [{ source_labels: ['missing'], target_label: 'b' }]), { a: 'foo', c: 'baz' }, 'an empty result deletes the target label');
  t.same(run(abc, [{ source_labels: ['a'], regex: '(f)(o+)', target_label: 'd', replacement: '$1x' }]), abc, '$1x is the group "1x", which is empty');
  t.same(run(abc, [{ source_labels: ['a'], regex: '(f)(o+)', target_label: 'd', replacement: '${1}x$$${2}$' }]), { ...abc, d: 'fx$oo$' }, '${1}, $$ and a lone $');
  t.same(run(abc, [{ source_labels: ['a'], regex: '(f)(o+)', target_label: 'd', replacement: '$0 $9 ${1' }]), { ...abc, d: 'foo  ${1' }, '$0 is the match, a missing group is empty, ${1 is literal');
  t.same(run({ a: 'web-1.eu:9100' }, [{ source_labels: ['a'], regex: '(?P<host>[^:]+):(?P<port>\\d+)', target_label: 'host', replacement: '$host' }, { source_labels: ['a'], regex: '(?P<host>[^:]+):(?P<port>\\d+)', target_label: 'port', replacement: '${port}' }]), { a: 'web-1.eu:9100', host: 'web-1.eu', port: '9100' }, 'named groups');
  t.same(run({ a: 'some-name-value' }, [{ source_labels: ['a'], regex: 'some-([^-]+)-([^,]+)', target_label: '${1}', replacement: '${2}' }]), { a: 'some-name-value', name: 'value' }, 'target_label with references');
  t.same(run({ a: 'some-1-value' }, [{ source_labels: ['a'], regex: 'some-([^-]+)-([^,]+)', target_label: '${1}', replacement: '${2}' }]), { a: 'some-1-value' }, 'an invalid expanded target name changes nothing');
  t.same(run({ a: 'line1\nline2' }, [{ source_labels: ['a'], regex: 'line1.line2', target_label: 'd', replacement: 'dot matches newline' }]), { a: 'line1\nline2', d: 'dot matches newline' });
  t.same(run({ a: 'FOO' }, [{ source_labels: ['a'], regex: '(?i)foo', target_label: 'd', replacement: 'yes' }]), { a: 'FOO', d: 'yes' }, 'a leading (?i)');
  t.same(run({ __address__: 'h:1' }, [{ action: 'Replace', source_labels: ['__address__'], target_label: '__param_target' }]), { __address__: 'h:1', __param_target: 'h:1' }, 'actions are case-insensitive');
});

t.test('keep and drop', async (t) => {
  t.equal(run(abc, [{ source_labels: ['a'], regex: '.*o.*', action: 'drop' }]), null);
  t.same(run(abc, [{ source_labels: ['a'], regex: 'f', action: 'drop' }]), abc);
  t.equal(run(abc, [{ source_labels: ['a'], regex: 'no-match', action: 'keep' }]), null);
  t.same(run(abc, [{ source_labels: ['a'], regex: 'f.*', action: 'keep' }]), abc);
  t.equal(run(abc, [{ source_labels: ['missing'], regex: '', action: 'drop' }]), null, 'regex "" drops when the label is missing');
  t.same(run(abc, [{ source_labels: ['a'], regex: '', action: 'drop' }]), abc);
  t.equal(run(abc, [{ source_labels: ['a'], regex: 'f.*', action: 'drop' }, { source_labels: ['a'], target_label: 'never' }]), null, 'rules after a drop do not run');
  t.equal(run({ a: 'foo', b: 'foo' }, [{ source_labels: ['a'], target_label: 'b', action: 'dropequal' }]), null);
  t.same(run({ a: 'foo', b: 'foo' }, [{ source_labels: ['a'], target_label: 'b', action: 'keepequal' }]), { a: 'foo', b: 'foo' });
  t.equal(run({ a: 'foo', b: 'bar' }, [{ source_labels: ['a'], target_label: 'b', action: 'keepequal' }]), null);
  t.same(run({ a: 'foo', b: 'bar' }, [{ source_labels: ['a'], target_label: 'b', action: 'dropequal' }]), { a: 'foo', b: 'bar' });
});

t.test('labelmap, labeldrop, labelkeep work on label names', async (t) => {
  const input = { a: 'foo', b1: 'bar', b2: 'baz' };
  t.same(run(input, [{ regex: '(b.*)', replacement: 'bar_${1}', action: 'labelmap' }]), { ...input, bar_b1: 'bar', bar_b2: 'baz' });
  t.same(run({ __meta_my_bar: 'aaa', __meta_my_baz: 'bbb', __meta_other: 'ccc' }, [{ regex: '__meta_(my.*)', action: 'labelmap' }]), {
    __meta_my_bar: 'aaa', __meta_my_baz: 'bbb', __meta_other: 'ccc', my_bar: 'aaa', my_baz: 'bbb',
  });
  t.same(run(input, [{ regex: '(b.*)', action: 'labeldrop' }]), { a: 'foo' });
  t.same(run(input, [{ regex: '(b.*)', action: 'labelkeep' }]), { b1: 'bar', b2: 'baz' });
  t.same(run(input, [{ regex: 'b', action: 'labeldrop' }]), input, 'anchored: "b" is not "b1"');
});

t.test('hashmod, lowercase, uppercase', async (t) => {
  t.same(run(abc, [{ source_labels: ['c'], target_label: 'd', modulus: 1000, action: 'hashmod' }]), { ...abc, d: '976' }, 'the same shard as Prometheus');
  t.same(run(abc, [{ source_labels: ['a', 'b'], target_label: 'shard', modulus: 2, action: 'hashmod' }]).shard, run(abc, [{ source_labels: ['a', 'b'], target_label: 'shard', modulus: 2, action: 'hashmod' }]).shard);
  t.same(run({ foo: 'bAr123Foo' }, [{ source_labels: ['foo'], target_label: 'up', action: 'uppercase' }, { source_labels: ['foo'], target_label: 'down', action: 'lowercase' }]), {
    down: 'bar123foo', foo: 'bAr123Foo', up: 'BAR123FOO',
  });
  t.same(run({ foo: 'x' }, [{ source_labels: ['missing'], target_label: 'foo', action: 'lowercase' }]), {}, 'an empty result removes the label');
});

t.test('templates follow Go regexp.Expand', async (t) => {
  t.same(parseTemplate('a$1b${2}c$$d$name${x_1}$'), ['a', { name: '1b' }, { group: 2 }, 'c$d', { name: 'name' }, { name: 'x_1' }, '$']);
  t.same(parseTemplate('$01 ${} $-'), [{ name: '01' }, ' ${} $-'], 'leading zeros make a name; ${} and $- are literal');
});

t.test('bad rules are reported at their index and key, all at once', async (t) => {
  const cases: Array<[RelabelConfig, RegExp]> = [
    [{ action: 'bogus' }, /^0\.action: unknown relabel action "bogus"/],
    [{ regex: '(' }, /^0\.regex: invalid regex "\("/],
    [{ regex: '(?=a)', target_label: 'x' }, /^0\.regex: lookahead and lookbehind are not supported/],
    [{ source_labels: ['a'] }, /^0\.target_label: is required for the replace action/],
    [{ source_labels: ['a'], target_label: '1abc' }, /"1abc" is not a valid target label/],
    [{ source_labels: ['a'], target_label: 'foo-bar' }, /"foo-bar" is not a valid target label/],
    [{ source_labels: ['a-b'], target_label: 'x' }, /^0\.source_labels: "a-b" \(item 0\) is not a label name/],
    [{ source_labels: ['a'], target_label: 'x', action: 'hashmod' }, /^0\.modulus: must be set/],
    [{ source_labels: ['a'], target_label: 'x', action: 'lowercase', replacement: 'y' }, /^0\.replacement: cannot be set for the lowercase action/],
    [{ source_labels: ['a'], target_label: '${1}', action: 'uppercase' }, /"\$\{1\}" is not a label name/],
    [{ source_labels: ['a'], regex: 'x', action: 'labeldrop' }, /^0: the labeldrop action takes only regex/],
    [{ target_label: 'x', action: 'labelkeep' }, /^0: the labelkeep action takes only regex/],
    [{ source_labels: ['a'], target_label: 'b', regex: 'x', action: 'keepequal' }, /^0: the keepequal action takes only source_labels and target_label/],
    [{ regex: '(.*)', replacement: 'a-$1', action: 'labelmap' }, /"a-\$1" is not a valid replacement for labelmap/],
  ];
  for (const [config, message] of cases) {
    const { rules, problems } = compile([config]);
    t.equal(rules.length, 0, JSON.stringify(config));
    t.match(problems.join('\n'), message, JSON.stringify(config));
  }
  const { rules, problems } = compile([{ source_labels: ['a'], target_label: 'ok' }, { action: 'nope' }, { regex: '[' }]);
  t.equal(rules.length, 1);
  t.same(problems.map((p) => p.split(':')[0]), ['1.action', '2.regex', '2.target_label']);
  t.ok(compile([{ source_labels: ['a'], target_label: '${1}_x$name' }]).problems.length === 0, 'references in a replace target are allowed');
});

t.test('problems carry their path for the config loader', async (t) => {
  const found: ScrapeConfigProblem[] = [];
  compileRelabelConfigs([{}, { action: 'nope' }], (segments, message) => found.push({ file: null, segments: ['x', ...segments.map(String)], message }));
  t.same(found.map((p) => p.segments), [['x', '0', 'target_label'], ['x', '1', 'action']]);
});
