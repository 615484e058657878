import t from 'tap';
import { inspect } from '../../src/schema/inspect.js';
import { ApiError } from '../../src/errors.js';

const problem = (body: unknown, depth = 4) => {
  try { inspect(body, depth); return null; } catch (e) { return (e as ApiError).body; }
};

t.test('the body inspector names the offending field and enforces depth exactly', async (t) => {
  t.equal(problem({ a: [{ b: 1 }], c: 'x' }), null);
  t.same(problem({ measurements: [{ value: 1 }, { value: Infinity }] }), { params: { 'measurements[1].value': ['is not a finite number'] } });
  t.same(problem([1, -Infinity]), { params: { 'body[1]': ['is not a finite number'] } });
  t.same(problem(NaN), { params: { body: ['is not a finite number'] } });
  t.same(problem(JSON.parse('{"a":{"constructor":1}}')), { request: ['Request body may not contain the key "constructor"'] });
  // depth 2 allows {a: {b: leaf}}: the leaf is at depth 2
  t.equal(problem({ a: { b: 'leaf' } }, 2), null);
  t.same(problem({ a: { b: { c: 'leaf' } } }, 2), { request: ['Request body is nested deeper than 2 levels'] });
  t.same(problem({ a: ['leaf'] }, 1), { request: ['Request body is nested deeper than 1 levels'] });
  t.equal(problem({ a: [] }, 1), null);
});
