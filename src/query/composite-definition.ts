// A composite saved for later (a persisted composite metric, a chart's composite stream)
// is checked when it is saved: it must parse, and a persisted composite must not read
// another composite (its series would be definitions, not data). Domain code receives
// this as a plain function, so the rules of metrics and charts stay below the query layer.
import { ApiError } from '../errors.js';
import { metricKey, type CompositeCheck, type MetricCatalog } from '../domain/metrics.js';
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
  return async (account, definition, metric) => {
    let expr: Expr;
    try {
      expr = parseComposite(definition);
    } catch (err) {
      if (err instanceof ApiError) return firstMessage(err);
      throw err;
    }
    const reads = seriesMetrics(expr);
    const self = metric === null ? null : metricKey(metric);
    for (const name of reads) {
      if (name.includes('*')) continue; // patterns skip composites when they run
      if (metricKey(name) === self) return `reads ${metric}, itself: a composite cannot reference a composite`;
      const m = await catalog.get(account, name);
      if (m?.type === 'composite') return `reads ${m.name}, a composite metric: a composite cannot reference another composite`;
    }
    if (metric === null || (await catalog.get(account, metric))?.type === 'composite') return null;
    // a new composite: no composite saved before may read it (one may name a metric to come)
    for (const other of await catalog.list(account)) {
      if (other.type !== 'composite' || other.composite == null) continue;
      let names: Set<string>;
      try {
        names = seriesMetrics(parseComposite(other.composite));
      } catch {
        continue; // saved before the language refused it: it reads nothing when it runs
      }
      for (const name of names) {
        if (metricKey(name) === self) return `${other.name} reads ${metric}: a composite cannot be read by another composite (a metric of another type may have this name)`;
      }
    }
    return null;
  };
}
