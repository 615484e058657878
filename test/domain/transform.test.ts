import t from 'tap';
import { compileTransform, transformProblem } from '../../src/domain/transform.js';

t.test('linear formulas in x and p are accepted', async (t) => {
  for (const f of ['x', 'x/1000', '8x', 'x*8', '2(x+1)', '(x - 32) * 5 / 9', 'x/p', 'x*p/60', '-x', '+x', 'p x', 'x/1.5', '.5x', '5', '((x))', 'x + x', '3 * (2 * x)', 'x/(p*2)', '\tx / 60 ']) {
    t.equal(transformProblem(f), null, f);
  }
});

t.test('x multiplied by x, in any spelling, is rejected', async (t) => {
  for (const f of ['x*x', 'xx', 'x(x)', '(x+1)(x-1)', '2*x*3*x', 'x*(p+x)', '(x)x']) {
    t.match(transformProblem(f), /must be linear in x/, f);
  }
});

t.test('x in a divisor is rejected, as it is not linear either', async (t) => {
  t.match(transformProblem('1/x'), /divisor/);
  t.match(transformProblem('x/(x+1)'), /divisor/);
});

t.test('characters outside the set are rejected before parsing', async (t) => {
  for (const f of ['x^2', 'sqrt(x)', 'x%2', 'y', 'x,5', 'X']) {
    t.match(transformProblem(f), /may contain only/, f);
  }
});

t.test('malformed formulas say what is wrong', async (t) => {
  t.match(transformProblem(''), /may contain only|empty/);
  t.match(transformProblem('   '), /must not be empty/);
  t.match(transformProblem('(x'), /unclosed parenthesis/);
  t.match(transformProblem('x)'), /unexpected "\)"/);
  t.match(transformProblem('x+'), /ends unexpectedly/);
  t.match(transformProblem('1.2.3'), /malformed number/);
  t.match(transformProblem('x/0'), /divides by zero/);
  t.match(transformProblem('x/(2-2)'), /divides by zero/);
  t.match(transformProblem('x'.repeat(256)), /at most 255/);
  t.match(transformProblem('*x'), /unexpected "\*"/);
});

t.test('a compiled formula computes what it says, with x the value and p the period', async (t) => {
  const cases: [string, number, number, number][] = [
    ['x', 7, 60, 7],
    ['x*8', 2, 60, 16],
    ['8x', 2, 60, 16],
    ['x/1024', 2048, 60, 2],
    ['x/p', 120, 60, 2],
    ['(x+1)*2 - 3', 4, 1, 7],
    ['-x + p/2', 3, 10, 2],
    ['2(x-1)/4', 5, 1, 2],
    ['x / (p / 60)', 30, 120, 15],
  ];
  for (const [f, x, p, want] of cases) t.equal(compileTransform(f)!(x, p), want, `${f} at x=${x} p=${p}`);
});

t.test('a formula the API refuses does not compile', async (t) => {
  for (const f of ['x*x', 'x/(x+1)', 'x/0', 'y', '', '(x']) t.equal(compileTransform(f), null, f);
});
