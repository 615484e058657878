import t from 'tap';
import { paginate, parsePage } from '../../src/http/pagination.js';
import { ApiError } from '../../src/errors.js';

t.test('parsePage defaults and limits', async (t) => {
  t.same(parsePage({}, ['name']), { offset: 0, length: 100, orderby: 'name', sort: 'asc' });
  t.same(parsePage({ offset: '5', length: '10', orderby: 'updated_at', sort: 'desc' }, ['title', 'updated_at']), { offset: 5, length: 10, orderby: 'updated_at', sort: 'desc' });
  t.equal(parsePage({ offset: '9007199254740991' }, ['name']).offset, 9007199254740991, 'the largest exact integer is read as written');
  for (const q of [{ length: '101' }, { length: '0' }, { offset: '-3' }, { offset: '1.5' }, { offset: '99999999999999999999' }, { sort: 'random' }, { orderby: 'id' }]) {
    t.throws(() => parsePage(q, ['name']), ApiError, JSON.stringify(q));
  }
  try {
    parsePage({ length: '500', sort: 'x' }, ['name']);
  } catch (e) {
    t.same(Object.keys((e as ApiError).body.params!).sort(), ['length', 'sort'], 'every problem is reported at once');
  }
  // ?length=1&length=2: the query parser gives a list
  const twice = { offset: ['0', '5'], length: ['1', '2'], orderby: ['name', 'name'], sort: ['asc', 'desc'] };
  t.throws(() => parsePage(twice, ['name']), { body: { params: { offset: ['must be given once'], length: ['must be given once'], orderby: ['must be given once'], sort: ['must be given once'] } } });
});

t.test('paginate sorts, cuts and counts', async (t) => {
  const items = [{ name: 'b' }, { name: 'a' }, { name: 'c' }];
  const p = paginate(items, 10, { offset: 1, length: 1, orderby: 'name', sort: 'asc' });
  t.same(p, { query: { found: 3, length: 1, offset: 1, total: 10 }, items: [{ name: 'b' }] });
  t.same(paginate(items, 3, { offset: 0, length: 2, orderby: 'name', sort: 'desc' }).items, [{ name: 'c' }, { name: 'b' }]);
  t.same(paginate(items, 3, { offset: 5, length: 2, orderby: 'name', sort: 'asc' }).items, []);
});
