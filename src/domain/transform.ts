// Chart stream `transform_function`: a formula in x (the measurement) and p (the period
// in seconds) applied to each point before display. It must be linear in x, because
// the display layer applies it to already aggregated values: sum(2x) = 2 sum(x) holds,
// sum(x*x) = sum(x)^2 does not. See docs/resources.md for the accepted grammar.

export const TRANSFORM_MAX_LENGTH = 255;

/**
 * The spec's characters (digits, whitespace, parentheses, x, p, + - /) plus `*` and `.`
 * that the legacy Librato expression `^[\dxp()*+-\/ ]+$` admits (its `+-\/` is a range
 * that includes `.`), so formulas such as `x*8` or `x/1.5` from existing clients work.
 */
const CHARSET = /^[0-9xp()*+\-/. \t]+$/;

interface Node {
  /** degree of the polynomial in x: 0 = no x, 1 = linear */
  degree: number;
  /** the value when the expression is a constant without p, for the division-by-zero check */
  value: number | null;
  /** the expression's value for a measurement x over a period of p seconds */
  at: Transform;
}

/** A checked formula, applied to one point: x its value, p the period in seconds. */
export type Transform = (x: number, p: number) => number;

/** Returns why the formula is rejected, or null when it is acceptable. */
export function transformProblem(formula: string): string | null {
  const checked = checkTransform(formula);
  return typeof checked === 'string' ? checked : null;
}

/**
 * The formula as a function, or null when it is not acceptable. The web UI applies
 * stream transforms with this, so what the API accepts and what a chart draws agree.
 */
export function compileTransform(formula: string): Transform | null {
  const checked = checkTransform(formula);
  return typeof checked === 'string' ? null : checked;
}

function checkTransform(formula: string): Transform | string {
  if (formula.length > TRANSFORM_MAX_LENGTH) return `must be at most ${TRANSFORM_MAX_LENGTH} characters`;
  if (!CHARSET.test(formula)) return 'may contain only digits, whitespace, parentheses, x, p, +, -, *, / and decimal points';
  try {
    const parser = new Parser(formula);
    const root = parser.expression();
    parser.end();
    if (root.degree > 1) return 'must be linear in x (x may not be multiplied by x)';
    return root.at;
  } catch (err) {
    if (err instanceof FormulaError) return err.message;
    throw err;
  }
}

class FormulaError extends Error {}

type Token = { kind: 'num'; value: number } | { kind: 'x' | 'p' | '(' | ')' | '+' | '-' | '*' | '/' };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t') { i++; continue; }
    if (/[0-9.]/.test(c)) {
      const m = /^(?:\d+(?:\.\d+)?|\.\d+)/.exec(text.slice(i));
      if (!m) throw new FormulaError(`has a malformed number at position ${i + 1}`);
      tokens.push({ kind: 'num', value: Number(m[0]) });
      i += m[0].length;
      if (text[i] === '.') throw new FormulaError(`has a malformed number at position ${i + 1}`);
      continue;
    }
    tokens.push({ kind: c as 'x' });
    i++;
  }
  return tokens;
}

/**
 * expression := term (('+' | '-') term)*
 * term       := unary (('*' | '/')? unary)*      juxtaposition multiplies: 8x, 2(x+1)
 * unary      := ('+' | '-') unary | primary
 * primary    := number | x | p | '(' expression ')'
 */
class Parser {
  private readonly tokens: Token[];
  private at = 0;

  constructor(text: string) {
    this.tokens = tokenize(text);
    if (this.tokens.length === 0) throw new FormulaError('must not be empty');
  }

  end(): void {
    if (this.at < this.tokens.length) throw new FormulaError(`has an unexpected "${this.describe(this.tokens[this.at]!)}"`);
  }

  expression(): Node {
    let left = this.term();
    for (let t = this.peek(); t && (t.kind === '+' || t.kind === '-'); t = this.peek()) {
      this.at++;
      const right = this.term();
      const value = left.value !== null && right.value !== null ? (t.kind === '+' ? left.value + right.value : left.value - right.value) : null;
      const [a, b] = [left.at, right.at];
      left = { degree: Math.max(left.degree, right.degree), value, at: t.kind === '+' ? (x, p) => a(x, p) + b(x, p) : (x, p) => a(x, p) - b(x, p) };
    }
    return left;
  }

  private term(): Node {
    let left = this.unary();
    for (let t = this.peek(); t && t.kind !== '+' && t.kind !== '-' && t.kind !== ')'; t = this.peek()) {
      if (t.kind === '/') {
        this.at++;
        const right = this.unary();
        if (right.degree > 0) throw new FormulaError('must be linear in x (x may not appear in a divisor)');
        if (right.value === 0) throw new FormulaError('divides by zero');
        const [a, b] = [left.at, right.at];
        left = { degree: left.degree, value: left.value !== null && right.value !== null ? left.value / right.value : null, at: (x, p) => a(x, p) / b(x, p) };
        continue;
      }
      if (t.kind === '*') this.at++;
      const right = this.unary();
      const [a, b] = [left.at, right.at];
      left = { degree: left.degree + right.degree, value: left.value !== null && right.value !== null ? left.value * right.value : null, at: (x, p) => a(x, p) * b(x, p) };
    }
    return left;
  }

  private unary(): Node {
    const t = this.peek();
    if (t && (t.kind === '+' || t.kind === '-')) {
      this.at++;
      const inner = this.unary();
      const a = inner.at;
      return { degree: inner.degree, value: inner.value === null ? null : t.kind === '-' ? -inner.value : inner.value, at: t.kind === '-' ? (x, p) => -a(x, p) : a };
    }
    return this.primary();
  }

  private primary(): Node {
    const t = this.tokens[this.at++];
    if (!t) throw new FormulaError('ends unexpectedly');
    switch (t.kind) {
      case 'num': { const v = t.value; return { degree: 0, value: v, at: () => v }; }
      case 'x': return { degree: 1, value: null, at: (x) => x };
      case 'p': return { degree: 0, value: null, at: (_x, p) => p };
      case '(': {
        const inner = this.expression();
        if (this.tokens[this.at]?.kind !== ')') throw new FormulaError('has an unclosed parenthesis');
        this.at++;
        return inner;
      }
      default: throw new FormulaError(`has an unexpected "${this.describe(t)}"`);
    }
  }

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }

  private describe(t: Token): string {
    return t.kind === 'num' ? String(t.value) : t.kind;
  }
}
