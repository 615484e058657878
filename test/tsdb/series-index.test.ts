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
