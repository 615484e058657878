// A CompositeSource over arrays of samples, for the evaluator's unit tests: it selects
// by `*` globs and buckets samples onto the requested grid like the engine does, and it
// records every select and read so tests can count them.
import type { CompositeSource, MetricInfo, ReadRequest, SeriesMeta, TagFilter } from '../../../src/query/composite/source.js';

export interface MemorySeries {
  metric: string;
  tags?: Record<string, string>;
  /** [time, value] samples, any order; several in one bucket are summarised */
  samples: [number, number][];
}

function glob(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.?+^$()[\]{}|\\/-]/g, '\\$&')).join('.*')}$`, 'i');
}

export class MemorySource implements CompositeSource {
  readonly selects: { metric: string; tags: TagFilter }[] = [];
  readonly reads: (ReadRequest & { ids: number[] })[] = [];
  private readonly metas: SeriesMeta[];

  constructor(private readonly data: MemorySeries[], metrics: Partial<MetricInfo>[] = []) {
    this.metas = data.map((d, id) => {
      const info = metrics.find((m) => m.name === d.metric);
      return {
        id,
        tags: Object.entries(d.tags ?? {}),
        metric: { name: d.metric, type: info?.type ?? 'gauge', attributes: info?.attributes ?? {}, period: info?.period ?? null },
      };
    });
  }

  select(metric: string, tags: TagFilter): SeriesMeta[] {
    this.selects.push({ metric, tags });
    const name = glob(metric);
    const patterns = tags.map(([k, p]) => [k, glob(p)] as const);
    return this.metas.filter((m) => name.test(m.metric.name) && patterns.every(([k, re]) => m.tags.some(([k2, v]) => k2 === k && re.test(v))));
  }

  async read(series: readonly SeriesMeta[], q: ReadRequest): Promise<Float64Array[]> {
    this.reads.push({ ...q, ids: series.map((s) => s.id) });
    return series.map((s) => {
      const sum = new Float64Array(q.length);
      const count = new Float64Array(q.length);
      const min = new Float64Array(q.length).fill(Infinity);
      const max = new Float64Array(q.length).fill(-Infinity);
      for (const [t, v] of this.data[s.id]!.samples) {
        const i = Math.floor((t - q.start) / q.step);
        if (i < 0 || i >= q.length) continue;
        sum[i] += v;
        count[i]++;
        min[i] = Math.min(min[i]!, v);
        max[i] = Math.max(max[i]!, v);
      }
      const out = new Float64Array(q.length).fill(NaN);
      for (let i = 0; i < q.length; i++) {
        if (count[i] === 0) continue;
        out[i] = { mean: sum[i]! / count[i]!, sum: sum[i]!, min: min[i]!, max: max[i]!, count: count[i]! }[q.fn];
      }
      return out;
    });
  }
}
