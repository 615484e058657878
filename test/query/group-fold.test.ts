import t from 'tap';
import { GroupFold } from '../../src/query/summary.js';

const series = [
  { t: [60, 120, 180], v: [1, 2, 3] },
  { t: [120, 180], v: [10, -5] },
  { t: [300], v: [7] },
];

function fold(fn: 'sum' | 'min' | 'max' | 'mean') {
  const g = new GroupFold(60, 60, 5, fn);
  for (const s of series) s.t.forEach((time, i) => g.add(time, s.v[i]!));
  return g.measurements().map((m) => [m.time, m.value]);
}

t.same(fold('sum'), [[60, 1], [120, 12], [180, -2], [300, 7]], 'sum per bucket; empty buckets left out');
t.same(fold('min'), [[60, 1], [120, 2], [180, -5], [300, 7]], 'min');
t.same(fold('max'), [[60, 1], [120, 10], [180, 3], [300, 7]], 'max');
t.same(fold('mean'), [[60, 1], [120, 6], [180, -1], [300, 7]], 'mean over the series having a value');
t.throws(() => new GroupFold(60, 60, 5, 'sum').add(90, 1), RangeError, 'a time off the grid is a bug, refused');
t.throws(() => new GroupFold(60, 60, 5, 'sum').add(360, 1), RangeError, 'so is one past the last bucket');
