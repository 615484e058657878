// Runs a checked expression over a CompositeSource in three steps:
// 1. plan: walk the tree and note every series() read as (metric, tags, function, step,
//    timeshift) with the time range it needs; a second occurrence widens the range;
// 2. load: select each (metric, tags) once and read each planned read once, all values
//    of the query bounded by MAX_COMPOSITE_POINTS before anything is read;
// 3. run: walk the tree again, slicing the loaded arrays and applying the functions.
// group_by restricts series() to one group's series in memory: it never reads again.
import type { Expr, SeriesExpr } from './ast.js';
import type { CompositeSource, Grid, ReadFunction, SeriesMeta, TagFilter, TagPairs } from './source.js';
import { aggregate, derive, fill, filter, integrate, pair, rank, rate, scale, window } from './functions.js';
import { hasPoints, trimBefore, type Series } from './series.js';
import { composeError } from './error.js';
import { MAX_COMPOSITE_POINTS } from './limits.js';

export interface CompositeQuery {
  /** first second of the window */
  from: number;
  /** end of the window, exclusive */
  to: number;
  /** seconds per bucket */
  resolution: number;
  /** what `%` stands for (a chart's dynamic tags); without it `%` selects every series */
  dynamicTags?: TagFilter;
}

/** The part of the query a subexpression sees. */
interface Scope {
  from: number;
  to: number;
  /** seconds the enclosing timeshifts moved the window back */
  shift: number;
  /** tag values of the enclosing group_by groups */
  groups: TagPairs;
}

interface Selection {
  metas: readonly SeriesMeta[];
  /** group tag names -> their values -> indexes of the metas having them */
  partitions: Map<string, Map<string, number[]>>;
}

interface Read {
  metric: string;
  tags: TagFilter;
  fn: ReadFunction;
  step: number;
  selection: string;
  from: number;
  to: number;
  grid: Grid;
  columns: readonly Float64Array[];
}

const SEP = '\x1f'; // never part of a tag name or value

function gridOf(from: number, to: number, step: number): Grid {
  const start = Math.floor(from / step) * step;
  return { start, step, length: Math.max(0, Math.ceil((to - start) / step)) };
}

/** Seconds per point of a series(): its period when coarser than the resolution. */
function stepOf(e: SeriesExpr, resolution: number): number {
  return e.period !== null && e.period > resolution ? e.period : resolution;
}

/** The coarsest step of any series() in `e`: how far derive must look back. */
function maxStep(e: Expr, resolution: number): number {
  switch (e.kind) {
    case 'series': return stepOf(e, resolution);
    case 'set': return e.items.reduce((m, item) => Math.max(m, maxStep(item, resolution)), resolution);
    default: return maxStep(e.arg, resolution);
  }
}

/** Offsets move by whole buckets, so shifted points line up with unshifted ones. */
function shifted(scope: Scope, offset: number, resolution: number): Scope {
  const by = Math.round(offset / resolution) * resolution;
  return { ...scope, from: scope.from - by, to: scope.to - by, shift: scope.shift + by };
}

/** derive's input starts a step early so that the window's first point has a predecessor. */
function lookback(scope: Scope, e: Expr, resolution: number): Scope {
  return { ...scope, from: scope.from - maxStep(e, resolution) };
}

function tagValue(meta: SeriesMeta, name: string): string | undefined {
  for (const [k, v] of meta.tags) if (k === name) return v;
  return undefined;
}

/** The series() calls a group_by groups by. */
function grouped(e: Expr, out: SeriesExpr[] = []): SeriesExpr[] {
  if (e.kind === 'series') { if (e.group) out.push(e); } else if (e.kind === 'set') for (const item of e.items) grouped(item, out);
  else grouped(e.arg, out);
  return out;
}

class Evaluation {
  private readonly reads = new Map<string, Read>();
  private readonly selections = new Map<string, Selection>();
  /** every series() use (a read may serve many): each yields its selection over its own grid */
  private readonly uses: { selection: string; from: number; to: number; step: number }[] = [];
  /**
   * Values the series() runs have yielded so far. load() bounds each use once, but a
   * group_by runs its expression once per group, and a `{group: "false"}` series takes
   * part whole in every group: "each host's share of the total" over n hosts is n x n
   * series, which only this count, kept as the groups run, sees.
   */
  private yielded = 0;

  constructor(private readonly source: CompositeSource, private readonly q: CompositeQuery) {}

  private tagsOf(e: SeriesExpr): TagFilter {
    return e.tags === 'dynamic' ? this.q.dynamicTags ?? [] : e.tags;
  }

  private selectionKey(e: SeriesExpr): string {
    return JSON.stringify([e.metric, this.tagsOf(e)]);
  }

  private readKey(e: SeriesExpr, scope: Scope): string {
    return JSON.stringify([e.metric, this.tagsOf(e), e.fn, stepOf(e, this.q.resolution), scope.shift]);
  }

  plan(e: Expr, scope: Scope): void {
    const res = this.q.resolution;
    switch (e.kind) {
      case 'series': {
        const key = this.readKey(e, scope);
        this.uses.push({ selection: this.selectionKey(e), from: scope.from, to: scope.to, step: stepOf(e, res) });
        const r = this.reads.get(key);
        if (r) {
          r.from = Math.min(r.from, scope.from);
          r.to = Math.max(r.to, scope.to);
          return;
        }
        const step = stepOf(e, res);
        this.reads.set(key, {
          metric: e.metric, tags: this.tagsOf(e), fn: e.fn, step, selection: this.selectionKey(e),
          from: scope.from, to: scope.to, grid: { start: 0, step, length: 0 }, columns: [],
        });
        return;
      }
      case 'set': for (const item of e.items) this.plan(item, scope); return;
      case 'timeshift': for (const offset of e.offsets) this.plan(e.arg, shifted(scope, offset, res)); return;
      case 'derive': this.plan(e.arg, lookback(scope, e.arg, res)); return;
      default: this.plan(e.arg, scope);
    }
  }

  async load(): Promise<void> {
    const reads = [...this.reads.values()];
    const pending = new Map<string, Promise<readonly SeriesMeta[]>>();
    for (const r of reads) {
      if (!pending.has(r.selection)) pending.set(r.selection, Promise.resolve(this.source.select(r.metric, r.tags)));
    }
    // all at once: one failure must not leave the others' rejections unhandled
    const selected = await Promise.all(pending.values());
    [...pending.keys()].forEach((key, i) => this.selections.set(key, { metas: selected[i]!, partitions: new Map() }));
    let points = 0;
    for (const r of reads) {
      r.grid = gridOf(r.from, r.to, r.step);
      points += this.selections.get(r.selection)!.metas.length * r.grid.length;
    }
    if (points > MAX_COMPOSITE_POINTS) {
      throw composeError(`reads ${points} points: expected at most ${MAX_COMPOSITE_POINTS}; use a coarser resolution, a shorter time range or narrower tag filters`);
    }
    // one read used a hundred times is evaluated (and may be answered) a hundred times
    let evaluated = 0;
    for (const u of this.uses) evaluated += this.selections.get(u.selection)!.metas.length * gridOf(u.from, u.to, u.step).length;
    if (evaluated > MAX_COMPOSITE_POINTS) {
      throw composeError(`evaluates ${evaluated} points: expected at most ${MAX_COMPOSITE_POINTS}; use a coarser resolution, a shorter time range or fewer series() calls`);
    }
    await Promise.all(reads.map(async (r) => {
      const metas = this.selections.get(r.selection)!.metas;
      if (metas.length === 0 || r.grid.length === 0) return;
      const columns = await this.source.read(metas, { ...r.grid, fn: r.fn });
      if (columns.length !== metas.length || columns.some((c) => c.length !== r.grid.length)) {
        throw new Error(`composite source read ${r.metric}: expected ${metas.length} arrays of ${r.grid.length} values`);
      }
      r.columns = columns;
    }));
  }

  /** Indexes of the selection's metas in the groups; null: all of them. */
  private members(sel: Selection, groups: TagPairs): readonly number[] | null {
    if (groups.length === 0) return null;
    const names = groups.map(([k]) => k).join(SEP);
    let partition = sel.partitions.get(names);
    if (!partition) {
      partition = new Map();
      sel.metas.forEach((meta, i) => {
        const values = groups.map(([k]) => tagValue(meta, k));
        if (values.some((v) => v === undefined)) return;
        const key = values.join(SEP);
        const list = partition!.get(key);
        if (list) list.push(i); else partition!.set(key, [i]);
      });
      sel.partitions.set(names, partition);
    }
    return partition.get(groups.map(([, v]) => v).join(SEP)) ?? [];
  }

  private series(e: SeriesExpr, scope: Scope): Series[] {
    const r = this.reads.get(this.readKey(e, scope))!;
    if (r.columns.length === 0) return [];
    const sel = this.selections.get(r.selection)!;
    const grid = gridOf(scope.from, scope.to, r.step);
    const offset = (grid.start - r.grid.start) / r.step;
    const out: Series[] = [];
    const add = (i: number) => {
      const meta = sel.metas[i]!;
      const s: Series = {
        tags: meta.tags,
        metric: meta.metric,
        start: grid.start,
        step: r.step,
        period: e.period !== null ? r.step : Math.max(r.step, meta.metric.period ?? 0),
        values: r.columns[i]!.subarray(offset, offset + grid.length),
      };
      if (hasPoints(s)) out.push(s);
    };
    const members = e.group ? this.members(sel, scope.groups) : null;
    this.yielded += (members ?? sel.metas).length * grid.length;
    if (this.yielded > MAX_COMPOSITE_POINTS) {
      throw composeError(`evaluates more than ${MAX_COMPOSITE_POINTS} points, counting each group_by group's run of its series: use a coarser resolution, a shorter time range, fewer groups or narrower tag filters`);
    }
    if (members) members.forEach(add);
    else for (let i = 0; i < r.columns.length; i++) add(i);
    return out;
  }

  private groupBy(tags: readonly string[], arg: Expr, scope: Scope): Series[] {
    const groups = new Map<string, TagPairs>();
    for (const e of grouped(arg)) {
      const sel = this.selections.get(this.selectionKey(e))!;
      const members = this.members(sel, scope.groups) ?? sel.metas.map((_, i) => i);
      for (const i of members) {
        const values = tags.map((k) => tagValue(sel.metas[i]!, k));
        if (values.some((v) => v === undefined)) continue; // lacks a grouped tag: in no group
        const key = values.join(SEP);
        if (!groups.has(key)) groups.set(key, tags.map((k, j) => [k, values[j]!] as const));
      }
    }
    const keys = [...groups.keys()].sort();
    return keys.flatMap((key) => {
      const pairs = groups.get(key)!;
      // each result says which group it is, even where a group:false series made the
      // group's tags uncommon to the aggregate's inputs
      return this.run(arg, { ...scope, groups: [...scope.groups, ...pairs] }).map((s) => {
        const missing = pairs.filter(([k]) => !s.tags.some(([k2]) => k2 === k));
        return missing.length ? { ...s, tags: [...s.tags, ...missing] } : s;
      });
    });
  }

  run(e: Expr, scope: Scope): Series[] {
    const res = this.q.resolution;
    switch (e.kind) {
      case 'series': return this.series(e, scope);
      case 'set': return e.items.flatMap((item) => this.run(item, scope));
      case 'aggregate': return aggregate(e.fn, this.run(e.arg, scope));
      case 'pair': return pair(e.fn, this.run(e.arg, scope));
      case 'derive':
        return derive(this.run(e.arg, lookback(scope, e.arg, res)), e.detectReset)
          .map((s) => trimBefore(s, Math.floor(scope.from / s.step) * s.step));
      case 'integrate': return integrate(this.run(e.arg, scope));
      case 'rate': return rate(this.run(e.arg, scope), e.duration);
      case 'scale': return scale(this.run(e.arg, scope), e.factor);
      case 'window': return window(this.run(e.arg, scope), e.size, e.fn);
      case 'fill': return fill(this.run(e.arg, scope), e.value);
      case 'rank': return rank(this.run(e.arg, scope), e.order, e.count, e.fn);
      case 'filter': return filter(this.run(e.arg, scope), e, e.fn);
      case 'group_by': return this.groupBy(e.tags, e.arg, scope);
      case 'timeshift':
        return e.offsets.flatMap((offset) => {
          const inner = shifted(scope, offset, res);
          const by = inner.shift - scope.shift;
          return this.run(e.arg, inner).map((s) => (by === 0 ? s : { ...s, start: s.start + by }));
        });
    }
  }
}

/** The series an expression yields over the query window, on regular grids. */
export async function evaluateComposite(expr: Expr, source: CompositeSource, q: CompositeQuery): Promise<Series[]> {
  if (!Number.isInteger(q.resolution) || q.resolution < 1 || !Number.isInteger(q.from) || !Number.isInteger(q.to)) {
    throw new RangeError('composite query needs whole-second from, to and a resolution of at least 1');
  }
  const ev = new Evaluation(source, q);
  const scope: Scope = { from: q.from, to: q.to, shift: 0, groups: [] };
  ev.plan(expr, scope);
  await ev.load();
  return ev.run(expr, scope);
}
