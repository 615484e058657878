// The composite evaluator's view of the stored data (query/composite/source.ts), bound to
// one account: series are found through the engine's tag index (metric names with `*`
// through the account's own catalogue), and read once at the coarsest stored tier that
// serves the requested step, straight into one typed array per series.
import { metricKey, type MetricCatalog, type MetricRecord } from '../domain/metrics.js';
import type { ReadOptions, SeriesStore } from '../tsdb/engine.js';
import type { TagExpr } from '../tsdb/tag-expr.js';
import type { Retention } from '../tsdb/retention.js';
import { rollUp, type Points } from '../tsdb/points.js';
import { columnsFor } from './summary.js';
import { compileGlob } from '../match/glob.js';
import { ApiError } from '../errors.js';
import { composeError } from './composite/error.js';
import { chooseTier, UNAVAILABLE_RESOLUTION } from './window.js';
import type { CompositeSource, MetricInfo, ReadRequest, SeriesMeta, TagFilter } from './composite/source.js';

export interface CompositeSourceDeps {
  catalog: MetricCatalog;
  engine: SeriesStore;
}

function tagExpr(tags: TagFilter): TagExpr {
  const args: TagExpr[] = tags.map(([name, pattern]) => ({ op: 'match', name: name.toLowerCase(), glob: compileGlob(pattern) }));
  return args.length === 0 ? { op: 'all' } : args.length === 1 ? args[0]! : { op: 'and', args };
}

function info(m: MetricRecord): MetricInfo {
  return { name: m.name, type: m.type, attributes: m.attributes, period: m.period };
}

export class StoredCompositeSource implements CompositeSource {
  constructor(
    private readonly deps: CompositeSourceDeps,
    private readonly account: number,
    private readonly now: number,
    private readonly retention: Retention,
    /** how its reads are admitted (the request's signal) */
    private readonly reads: ReadOptions = {},
  ) {}

  async select(metric: string, tags: TagFilter): Promise<readonly SeriesMeta[]> {
    let metrics: MetricRecord[];
    if (metric.includes('*')) {
      const glob = compileGlob(metric.toLowerCase());
      // a pattern reads stored series only: composites are definitions, not data
      metrics = (await this.deps.catalog.list(this.account)).filter((m) => m.type !== 'composite' && glob.test(m.name.toLowerCase()));
    } else {
      const m = await this.deps.catalog.get(this.account, metric);
      if (m?.type === 'composite') throw composeError(`${m.name} is a composite metric: a composite cannot read another composite`);
      metrics = m ? [m] : [];
    }
    const expr = tagExpr(tags);
    const out: SeriesMeta[] = [];
    for (const m of metrics) {
      const metricInfo = info(m);
      for (const ref of this.deps.engine.select(this.account, metricKey(m.name), expr)) out.push({ id: ref.id, tags: ref.tags, metric: metricInfo });
    }
    return out;
  }

  async read(series: readonly SeriesMeta[], q: ReadRequest): Promise<readonly Float64Array[]> {
    const tier = chooseTier(q.step, q.start, this.now, this.retention);
    if (tier === null) throw new ApiError(400, { request: [UNAVAILABLE_RESOLUTION] });
    const end = q.start + q.length * q.step;
    const values = series.map(() => new Float64Array(q.length).fill(NaN));
    // Series by series, decoding only the summary column `fn` reads: holding the points of
    // every series at once, all six columns, cost a wide composite about twice what the
    // same grouped read costs (issue 13's C1 against Q4).
    const visit = (n: number, raw: Points) => {
      const p = rollUp(raw, q.step);
      const out = values[n]!;
      for (let i = 0; i < p.t.length; i++) {
        const at = (p.t[i]! - q.start) / q.step;
        if (at < 0 || at >= q.length) continue;
        const count = p.count[i]!;
        switch (q.fn) {
          case 'mean': out[at] = p.sum[i]! / count; break;
          case 'sum': out[at] = p.sum[i]!; break;
          case 'min': out[at] = p.min[i]!; break;
          case 'max': out[at] = p.max[i]!; break;
          case 'count': out[at] = count; break;
        }
      }
    };
    await this.deps.engine.readEach(this.account, series.map((s) => s.id), tier, q.start, end, visit, columnsFor(q.fn), this.reads);
    return values;
  }
}
