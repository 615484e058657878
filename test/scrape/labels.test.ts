import t from 'tap';
import { readFileSync } from 'node:fs';
import { parseExposition } from '../../src/scrape/parse.js';
import { seededRandom } from '../helpers/random.js';
import { TAG_NAME, TAG_VALUE, labelName, labelValue, tagName, tagValue, tagsOf } from '../../src/scrape/labels.js';

t.test('values: plain ones stay, the rest are escaped as documented', async (t) => {
  const cases: Array<[string, string]> = [
    ['node-1.example.com:9100', 'node-1.example.com:9100'],
    ['/var/lib/docker', '/var/lib/docker'],
    ['0.005', '0.005'],
    ['with space', 'with space'],
    ['GET', '?get'],
    ['Running', '?r?unning'],
    ['x86_64', 'x86_64'],
    ['HTTP/1.1', '?http/1.1'],
    ['+Inf', 'inf'],
    ['-Inf', '-inf'],
    ['NaN', 'nan'],
    ['inf', '\\69nf'],
    ['-inf', '\\2dinf'],
    ['nan', '\\6ean'],
    ['a=b,c', 'a\\3db\\2cc'],
    ['"quoted"', '\\22quoted\\22'],
    ['what?', 'what\\3f'],
    ['C:\\Windows', '?c:\\5cw?indows'],
    ['über', '\\c3\\bcber'],
    ['🙂', '\\f0\\9f\\99\\82'],
    ['(none)', '\\28none\\29'],
    ['#1 SMP PREEMPT_DYNAMIC', '\\231 ?smp preempt_dynamic'],
  ];
  for (const [label, tag] of cases) {
    t.equal(tagValue(label), tag, label);
    t.equal(labelValue(tag), label, `back from ${tag}`);
    t.match(tag, TAG_VALUE);
  }
  t.equal(tagValue(''), null, 'an empty value is no label');
});

t.test('names: plain ones stay; case and other characters are escaped', async (t) => {
  const cases: Array<[string, string]> = [
    ['instance', 'instance'],
    ['__name__', '__name__'],
    ['le', 'le'],
    ['hostName', 'host.n.ame'],
    ['HTTP_code', '.http_.code'],
    ['CamelCase', '.c.amel.c.ase'],
    ['a.b-c:d', 'a:2eb:2dc:3ad'],
    ['ünit', ':c3:bcnit'],
  ];
  for (const [label, tag] of cases) {
    t.equal(tagName(label), tag, label);
    t.equal(labelName(tag), label, `back from ${tag}`);
    t.match(tag, TAG_NAME);
  }
  t.equal(tagName(''), null);
});

t.test('too long for v1: cut, ending in a hash, still distinct; not reversible', async (t) => {
  const a = `${'x'.repeat(300)}a`;
  const b = `${'x'.repeat(300)}b`;
  const ta = tagValue(a)!;
  t.equal(ta.length, 255);
  t.match(ta, TAG_VALUE);
  t.match(ta, /^x{237}\\:[0-9a-f]{16}$/);
  t.not(tagValue(b), ta);
  t.equal(labelValue(ta), null);
  t.equal(tagValue('y'.repeat(255)), 'y'.repeat(255), 'exactly 255 plain characters stay');
  const huge = 'Ab€'.repeat(40_000);
  const th = tagValue(`${huge}a`)!;
  t.equal(th.length, 255, 'a 120 kB value is encoded only as far as the bound');
  t.equal(th.slice(0, 237), tagValue(`${huge}b`)!.slice(0, 237));
  t.not(tagValue(`${huge}b`), th, 'and hashed whole: its last character still tells it apart');
  const long = tagName('n'.repeat(65))!;
  t.match(long, /^n{47}-[0-9a-f]{16}$/);
  t.equal(labelName(long), null);
  t.equal(tagName('n'.repeat(64)), 'n'.repeat(64));
});

t.test('tag values that did not come from the mapping are told apart', async (t) => {
  t.equal(labelValue('bad\\zz'), null, 'not an escape');
  t.equal(labelValue('\\ff'), null, 'not UTF-8');
  t.equal(labelValue('\\c3'), null, 'cut UTF-8');
  t.equal(labelName('a:zz'), null);
});

t.test('tagsOf drops internal labels and empty values, and sorts by tag name', async (t) => {
  t.same(tagsOf(new Map([['__name__', 'up'], ['job', 'node'], ['instance', 'h:9100'], ['Zone', 'EU'], ['empty', ''], ['__address__', 'x']])), [
    ['.z.one', '?eu'],
    ['instance', 'h:9100'],
    ['job', 'node'],
  ]);
});

t.test('any string maps to a valid, distinct tag, and back where not cut', async (t) => {
  const random = seededRandom(4242);
  const pools = [
    'abcxyz', 'ABCXYZ', '0123456789', ' _-.:/', '?\\"=,{}#@+%!\t\n', 'éüßÅ€', '中文', '🙂🚀',
  ];
  const pick = (s: string) => [...s][Math.floor(random() * [...s].length)]!;
  const randomString = () => {
    const length = random() < 0.05 ? 200 + Math.floor(random() * 150) : Math.floor(random() * 12);
    let out = '';
    for (let i = 0; i < length; i++) out += pick(pools[Math.floor(random() * pools.length)]!);
    return random() < 0.03 ? ['+Inf', '-Inf', 'NaN', 'inf', '-inf', 'nan', 'Inf'][Math.floor(random() * 7)]! : out;
  };
  const values = new Map<string, string>();
  const names = new Map<string, string>();
  let problems = 0;
  for (let i = 0; i < 20000; i++) {
    const s = randomString();
    const v = tagValue(s);
    if (s === '') {
      if (v !== null) problems++;
      continue;
    }
    if (v === null || !TAG_VALUE.test(v) || v !== v.toLowerCase()) {
      problems++;
      t.fail(`value ${JSON.stringify(s)} -> ${JSON.stringify(v)}`);
      continue;
    }
    const seen = values.get(v);
    if (seen !== undefined && seen !== s) t.fail(`values ${JSON.stringify(s)} and ${JSON.stringify(seen)} both map to ${v}`);
    values.set(v, s);
    const back = labelValue(v);
    if (back !== s && !(back === null && v.length === 255)) t.fail(`value ${JSON.stringify(s)} -> ${v} -> ${JSON.stringify(back)}`);
    const n = tagName(s)!;
    if (!TAG_NAME.test(n) || n !== n.toLowerCase()) t.fail(`name ${JSON.stringify(s)} -> ${JSON.stringify(n)}`);
    const seenName = names.get(n);
    if (seenName !== undefined && seenName !== s) t.fail(`names ${JSON.stringify(s)} and ${JSON.stringify(seenName)} both map to ${n}`);
    names.set(n, s);
    const nameBack = labelName(n);
    if (nameBack !== s && !(nameBack === null && n.length === 64)) t.fail(`name ${JSON.stringify(s)} -> ${n} -> ${JSON.stringify(nameBack)}`);
  }
  t.equal(problems, 0);
  t.ok(values.size > 10000, `${values.size} distinct values checked`);
});

t.test('every sample of the real fixtures becomes valid tags', async (t) => {
  const files: Array<[string, 'text' | 'openmetrics']> = [
    ['node-exporter-1.5.0.prom', 'text'], ['prom-client-15.prom', 'text'], ['prom-client-15.om.txt', 'openmetrics'], ['python-client-style.om.txt', 'openmetrics'],
  ];
  let checked = 0;
  for (const [file, format] of files) {
    const samples = parseExposition(readFileSync(new URL(`../fixtures/scrape/${file}`, import.meta.url), 'utf8'), format);
    for (const s of samples) {
      const pairs = Array.from({ length: s.labels.length / 2 }, (_, i) => [s.labels[2 * i]!, s.labels[2 * i + 1]!] as const);
      for (const [name, value] of tagsOf([...pairs, ['job', 'node'], ['instance', 'localhost:9100']])) {
        if (!TAG_NAME.test(name) || !TAG_VALUE.test(value)) t.fail(`${file}: ${s.name} ${name}=${value}`);
        checked++;
      }
    }
  }
  t.ok(checked > 1500, `${checked} tags checked`);
});
