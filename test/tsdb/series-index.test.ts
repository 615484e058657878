// The series index's postings: a tag value held by one series keeps its id as a plain
// number, by two or more a Set; filters read both the same way.
import t from 'tap';
import { SeriesIndex } from '../../src/tsdb/series-index.js';
import { withId, type TagExpr } from '../../src/tsdb/tag-expr.js';
import { compileGlob } from '../../src/match/glob.js';

const match = (name: string, pattern: string): TagExpr => ({ op: 'match', name, glob: compileGlob(pattern) });

t.test('posting lists: a number for one series, a Set from the second', async (t) => {
  t.equal(withId(undefined, 7), 7);
  t.equal(withId(7, 7), 7, 'the same series twice stays one id');
  const two = withId(7, 9);
  t.same([...(two as Set<number>)], [7, 9]);
  t.equal(withId(two, 11), two, 'a Set grows in place');
  t.same([...(two as Set<number>)], [7, 9, 11]);
});

t.test('filters over unique and shared tag values', async (t) => {
  const index = new SeriesIndex();
  const add = (id: number, tags: [string, string][]) => index.add({ id, account: 1, metric: 'm', tags });
  add(1, [['host', 'a1'], ['region', 'east']]);
  add(2, [['host', 'a2'], ['region', 'east']]);
  add(3, [['host', 'b1'], ['region', 'west']]);
  add(4, [['host', 'c']]);
  add(5, [['role', 'db']]);
  const ids = (e: TagExpr) => index.select(1, 'm', e).map((r) => r.id).sort((a, b) => a - b);
  t.same(ids({ op: 'all' }), [1, 2, 3, 4, 5]);
  t.same(ids(match('host', 'a1')), [1], 'a value of one series');
  t.same(ids(match('host', 'a*')), [1, 2], 'values of one series each');
  t.same(ids(match('region', 'east')), [1, 2], 'a value of two series');
  t.same(ids({ op: 'notMatch', name: 'region', glob: compileGlob('east') }), [3]);
  t.same(ids({ op: 'lacks', name: 'region' }), [4, 5]);
  t.same(ids({ op: 'lacks', name: 'host' }), [5]);
  t.same(ids({ op: 'and', args: [match('region', '*'), match('host', '*1')] }), [1, 3]);
  t.same(ids({ op: 'or', args: [match('host', 'c'), match('role', 'db')] }), [4, 5]);
  t.same([...index.tagValues(1, 'host')].sort(), ['a1', 'a2', 'b1', 'c']);
});

t.test('a value without wildcards is looked up, not tested against every value', async (t) => {
  const index = new SeriesIndex();
  for (let id = 1; id <= 1000; id++) index.add({ id, account: 1, metric: 'm', tags: [['host', `h${id}`], ['region', `r${id % 3}`]] });
  // globs that count the values they are tested against
  let tested = 0;
  const counting = (pattern: string): TagExpr => {
    const glob = compileGlob(pattern);
    return { op: 'match', name: 'host', glob: { source: glob.source, hasWildcard: glob.hasWildcard, test: (v) => { tested++; return glob.test(v); } } };
  };
  const ids = (e: TagExpr) => index.select(1, 'm', e).map((r) => r.id).sort((a, b) => a - b);
  t.same(ids(counting('H42')), [42], 'found whatever the case of the filter (values are stored lower-cased)');
  t.same(ids(counting('h4242')), [], 'a value no series has');
  t.equal(tested, 0, 'no value was tested');
  t.same(ids(counting('h99*')), [99, 990, 991, 992, 993, 994, 995, 996, 997, 998, 999], 'a pattern still tests the values');
  t.equal(tested, 1000);
  t.same(ids({ op: 'notMatch', name: 'host', glob: compileGlob('h1') }).length, 999, 'a negated value still excludes only it');
});
