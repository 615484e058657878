// ValueRows: a row that does not fit is refused without being counted (an overflow once left
// the length past the capacity, so columns() described rows that were never written).
import t from 'tap';
import { ValueRows } from '../../src/tsdb/sample.js';

t.test('rows past the capacity are refused and leave the rows so far intact', async (t) => {
  const rows = new ValueRows(2);
  rows.add(0, 0, 60, 1.5);
  rows.add(1, 3, 120, 2.5);
  t.throws(() => rows.add(0, 1, 180, 3.5), RangeError, 'a third row does not fit');
  t.equal(rows.length, 2, 'the refused row is not counted');
  const cols = rows.columns(['a', 'b'], []);
  t.equal(cols.length, 2);
  t.same([...cols.metric.subarray(0, 2)], [0, 1]);
  t.same([...cols.tag.subarray(0, 2)], [0, 3]);
  t.same([...cols.time.subarray(0, 2)], [60, 120]);
  t.same([...cols.value.subarray(0, 2)], [1.5, 2.5]);
});
