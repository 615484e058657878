// A composite saved for later (a persisted composite metric, a chart's composite stream)
// is checked when it is saved: it must parse, and a persisted composite must not read
// another composite (its series would be definitions, not data). Domain code receives
// this as a plain function, so the rules of metrics and charts stay below the query layer.
import { ApiError } from '../errors.js';
import type { CompositeCheck, MetricCatalog } from '../domain/metrics.js';
import { parseComposite } from './composite/parse.js';
import type { Expr } from './composite/ast.js';


/** Metric names read by the series() calls of an expression. */
export function seriesMetrics(e: Expr, out = new Set<string>()): Set<string> {
  switch (e.kind) {
    case 'series': out.add(e.metric); break;
    case 'set': for (const item of e.items) seriesMetrics(item, out); break;
    default: seriesMetrics(e.arg, out);
  }
  return out;
}

function firstMessage(err: ApiError): string {
  const params = err.body.params;
  const compose = params?.compose;
  return Array.isArray(compose) && typeof compose[0] === 'string' ? compose[0] : 'is not a valid composite expression';
}

export function compositeCheck(catalog: MetricCatalog): CompositeCheck {
  return async (account, definition) => {
    let expr: Expr;
    try {
      expr = parseComposite(definition);
    } catch (err) {
      if (err instanceof ApiError) return firstMessage(err);
      throw err;
    }
    for (const name of seriesMetrics(expr)) {
      if (name.includes('*')) continue; // patterns skip composites when they run
      const m = await catalog.get(account, name);
      if (m?.type === 'composite') return `reads ${m.name}, a composite metric: a composite cannot reference another composite`;
    }
    return null;
  };
}
