// Model-based randomized test of the storage engine: seeded lists of operations (appends of
// plain and summary samples at random times in a few windows, out of order, late into
// windows already checkpointed and merged, repeated timestamps; checkpoints, some left
// running beside the next operations; waits for merges; close and reopen; crashes that
// leave the WAL to replay, also between the batches of a checkpoint; retention passes;
// metric purges) run against a real engine on LevelDB in a temp dir, and after every
// operation every series is read at every tier over whole, per-window, aligned and
// unaligned ranges and compared with the naive model of model-oracle.ts.
//
// CI runs the fixed seeds below; GW_MODEL_SEEDS=500 runs seeds 1..500 as well (and
// GW_MODEL_SEED=1234 one seed alone); GW_MODEL_STEPS, GW_MODEL_OPTS, GW_MODEL_QUIET and
// GW_MODEL_STATS below; GW_TEST_WINDOW_SECONDS=900 (keys.ts) runs it all with short
// windows. A mismatch names the seed, the step and a shortened list of operations that
// still fails (greedy removal, a bounded number of reruns).
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine } from '../helpers/engine.js';
import { valueSample, type Sample, type TagPairs, type ValueColumns, rowColumns, ROW_BYTES } from '../../src/tsdb/sample.js';
import { PART_TIERS, WINDOW, windowOf } from '../../src/tsdb/keys.js';
import type { EngineState } from '../../src/tsdb/state.js';
import { RetentionJob } from '../../src/tsdb/retention.js';
import { createLogger } from '../../src/log.js';

const log = createLogger('silent');
import { COLUMN, type Points } from '../../src/tsdb/points.js';
import type { EngineOptions } from '../../src/tsdb/engine.js';
import { Model, READ_TIERS, Rng, asSummary, diffPoints, generate, type GenSample, type Op } from './model-oracle.js';

const SERIES = 3;
const STEPS = Number(process.env.GW_MODEL_STEPS ?? 36);

/**
 * Raw windows two before and two after a boundary of the 3600 s tier's windows (so of the
 * 900 s tier's too), between 14 and 30 days back: ended, so checkpoints and sealing treat
 * them as closed windows; and the open window, up to a minute ago.
 */
function windowStarts(): number[] {
  const now = Math.floor(Date.now() / 1000);
  const boundary = windowOf(now - 30 * 86400, 3600) + 64 * WINDOW;
  return [boundary - 2 * WINDOW, boundary - WINDOW, boundary, boundary + WINDOW, windowOf(now - 60)];
}
const WINDOWS = windowStarts().length;
/** Offsets each window takes: all of an ended one, of the open one what has passed (at least a minute, so whole minutes fit). */
function spans(): number[] {
  const now = Math.floor(Date.now() / 1000);
  return windowStarts().map((w) => Math.max(60, Math.min(WINDOW, now - 60 - w + 1)));
}

/**
 * The last series is of its own metric, which the purge op deletes, with the tags of the
 * first (the same array, as ingest shares one a tag map): the appender's caches by tag
 * set must tell the two apart.
 */
const metricOf = (s: number) => (s >= SERIES ? 'f' : s === SERIES - 1 ? 'n' : 'm');
const hostOf = (s: number) => (s >= SERIES ? `f${s}` : `h${s === SERIES - 1 ? 0 : s}`);
const tagsOf: TagPairs[] = Array.from({ length: SERIES - 1 }, (_, i) => Object.freeze([Object.freeze(['host', hostOf(i)] as const)]));
tagsOf.push(tagsOf[0]!);
/** Filler series (a seed in five): enough for checkpoints and reads of several batches (BATCH_OPS, BATCH_SERIES). */
const FILLER = 600;
const fillerFor = (seed: number) => (seed % 5 === 0 ? FILLER : 0);
for (let f = 0; f < FILLER; f++) tagsOf.push(Object.freeze([Object.freeze(['host', hostOf(SERIES + f)] as const)]));

/** Per seed, the engine's knobs: every checkpoint writes every window, or only due ones; windows sealed at once, or never. */
function optionsFor(seed: number): Partial<EngineOptions> {
  const r = new Rng(seed ^ 0x5eed);
  return { flushPoints: r.pick([1, 1, 4, 120]), sealIdleMs: r.pick([0, 0, 3_600_000]) };
}

interface Failure {
  step: number;
  message: string;
}

/** A fresh engine dir, the ops run one by one, every series read at every tier after each. Returns the first mismatch. */
async function run(seed: number, ops: readonly Op[], opts: Partial<EngineOptions>): Promise<Failure | null> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-model-'));
  const starts = windowStarts();
  const model = new Model();
  let e = await openEngine(dir, opts);
  const pending: Promise<unknown>[] = [];
  const ids = new Map<number, number>(); // series index -> engine id
  const known = new Set<number>(); // series indexes written to (since a purge, for the purged one)
  const settle = async () => { await Promise.all(pending.splice(0)); };
  try {
    for (let step = 0; step < ops.length; step++) {
      const op = ops[step]!;
      try {
        await apply(op);
      } catch (err) {
        return { step, message: `threw ${(err as Error).stack ?? String(err)}` };
      }
      if (ids.size < known.size) {
        const found = new Map<string, number>();
        for (const metric of ['m', 'n', 'f']) for (const r of e.engine.select(1, metric, { op: 'all' })) found.set(`${metric} ${r.tags[0]![1]}`, r.id);
        for (const i of known) if (!ids.has(i) && found.has(`${metricOf(i)} ${hostOf(i)}`)) ids.set(i, found.get(`${metricOf(i)} ${hostOf(i)}`)!);
      }
      if (STATS) tally(e.engine, ids, starts);
      const bad = await check(e.engine, model, ids, starts, new Rng((seed * 1000003 + step) >>> 0));
      if (bad) return { step, message: bad };
    }
    await settle();
    return null;
  } finally {
    await settle().catch(() => undefined);
    await e.engine.close().catch(() => undefined);
    await e.crash().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }

  async function apply(op: Op): Promise<void> {
    const toSample = (g: GenSample): Sample => {
      const time = starts[g.w]! + g.off;
      return typeof g.v === 'number' ? valueSample(metricOf(g.s), tagsOf[g.s]!, time, g.v) : { metric: metricOf(g.s), tags: tagsOf[g.s]!, time, ...g.v };
    };
    const accept = (samples: readonly GenSample[]) => {
      for (const g of samples) {
        model.accept(g.s, starts[g.w]! + g.off, asSummary(g.v));
        known.add(g.s);
      }
    };
    switch (op.k) {
      case 'append':
        accept(op.samples);
        if (op.cols) await e.engine.appendValues(1, columnsOf(op.samples, starts));
        else await e.engine.append(1, op.samples.map(toSample));
        break;
      case 'appendMany': {
        const writes: Promise<void>[] = [];
        for (const b of op.batches) {
          accept(b);
          writes.push(e.engine.append(1, b.map(toSample)));
        }
        await Promise.all(writes);
        break;
      }
      case 'checkpoint':
        await e.engine.checkpoint();
        break;
      case 'checkpointBg':
        pending.push(e.engine.checkpoint());
        break;
      case 'compacted':
        await settle();
        await e.engine.compacted();
        break;
      case 'reopen':
        await settle();
        await e.engine.close();
        await e.crash();
        e = await openEngine(dir, opts);
        break;
      case 'retention': {
        const job = new RetentionJob(e.store, e.commit, e.engine, () => ({
          retention_schedule: '0 0 1 1 *',
          retention: { raw: 365 * 86400, '60': 365 * 86400, '900': 365 * 86400, '3600': 365 * 86400 },
        }), log);
        await job.run();
        break;
      }
      case 'purge':
        model.purge(SERIES - 1);
        ids.delete(SERIES - 1);
        known.delete(SERIES - 1);
        const purge = await e.engine.purge(1, ['n']);
        await e.commit.write(purge.ops);
        purge.release();
        break;
      case 'purgeCut': {
        await settle();
        const running = e.engine.checkpoint();
        await e.engine.purge(1, ['n']); // its operations are never committed
        await running;
        await e.engine.checkpoint();
        e.commit.left = 0;
        await e.crash();
        e = await openEngine(dir, opts);
        break;
      }
      case 'bulk':
        accept(op.samples);
        await e.engine.append(1, op.samples.map(toSample));
        break;
      case 'crashMid': {
        // the process dies once `batches` more writes have landed: inside a checkpoint of
        // several batches if it has that many, else after it
        await settle();
        e.commit.left = op.batches;
        const running = e.engine.checkpoint();
        for (let i = 0; i < 10_000 && e.commit.left > 0; i++) {
          if (await Promise.race([running.then(() => true), new Promise<false>((r) => setImmediate(() => r(false)))])) break;
        }
        if (STATS) stats.set(`crashMid: ${e.commit.left > 0 ? 'after the checkpoint' : 'inside it'}`, (stats.get(`crashMid: ${e.commit.left > 0 ? 'after the checkpoint' : 'inside it'}`) ?? 0) + 1);
        e.commit.left = 0;
        await e.crash();
        e = await openEngine(dir, opts);
        break;
      }
      case 'crash':
        // whatever runs in the background (a checkpoint, merges) stops where it is
        e.commit.left = 0;
        pending.splice(0);
        await e.crash();
        e = await openEngine(dir, opts);
        break;
    }
  }
}

function columnsOf(samples: readonly GenSample[], starts: readonly number[]): ValueColumns {
  const cols = rowColumns(new ArrayBuffer(samples.length * ROW_BYTES), samples.length);
  samples.forEach((g, i) => {
    cols.metric[i] = metricOf(g.s) === 'm' ? 0 : 1;
    cols.tag[i] = g.s;
    cols.time[i] = starts[g.w]! + g.off;
    cols.value[i] = g.v as number;
  });
  return { length: samples.length, metrics: ['m', 'n'], tagSets: tagsOf, ...cols };
}

/** GW_MODEL_STATS=1: what the runs reached (parts by place and level, head windows), printed at the end. */
const STATS = process.env.GW_MODEL_STATS === '1';
const stats = new Map<string, number>();
function tally(engine: Engine, ids: Map<number, number>, starts: readonly number[]): void {
  const st = (engine as unknown as { st: EngineState }).st;
  const bump = (k: string) => stats.set(k, (stats.get(k) ?? 0) + 1);
  for (const id of ids.values()) {
    for (const tier of PART_TIERS) {
      for (const w of new Set(starts.map((s) => windowOf(s, tier)))) {
        const parts = st.catalog.window(id, tier, w);
        if (parts.length > 1) bump(`tier ${tier}: windows of several parts`);
        for (const p of parts) bump(`tier ${tier}: parts of level ${p.level}`);
      }
    }
    for (const c of st.head.get(id) ?? []) {
      bump(c.size ? 'head windows holding points' : 'head windows empty');
      if (c.size && (c as unknown as { cols: { sorted: boolean } }).cols.sorted === false) bump('head windows out of order');
    }
  }
}
t.teardown(() => { if (STATS) console.error([...stats].sort().map(([k, v]) => `${k}: ${v}`).join('\n')); });

type Engine = Awaited<ReturnType<typeof openEngine>>['engine'];

/** Every series at every tier: the whole span, each window, and random aligned and unaligned ranges; sometimes a few columns only. */
async function check(engine: Engine, model: Model, ids: Map<number, number>, starts: readonly number[], r: Rng): Promise<string | null> {
  const lo = Math.min(...starts);
  const hi = Math.max(...starts) + WINDOW;
  // filler series first: the series under test then sit in a later read batch than the first
  const order = (s: number) => (s >= SERIES ? s - SERIES : FILLER + s);
  const series = [...ids.keys()].sort((a, b) => order(a) - order(b));
  for (const tier of READ_TIERS) {
    const step = tier === 0 ? 1 : tier;
    const ranges: [number, number][] = [[lo - 86400, hi + 86400], [starts[r.int(0, starts.length - 1)]!, 0]];
    ranges[1]![1] = ranges[1]![0] + WINDOW;
    const near = () => r.pick(starts) + r.int(-2 * step, WINDOW);
    for (let k = 0; k < 2; k++) {
      const a = Math.floor(near() / step) * step;
      ranges.push([a, a + r.int(1, 40) * step]);
    }
    // unaligned: the buckets whose time lies in the range, each whole (docs: from <= t < to)
    const a = near();
    ranges.push([a, a + r.int(1, 3 * step + 7)]);
    for (const [k, [from, to]] of ranges.entries()) {
      const columns = r.chance(0.2) ? r.pick([COLUMN.count, COLUMN.count | COLUMN.sumsq, COLUMN.last, COLUMN.min | COLUMN.max]) : 31;
      // the filler series in the first two ranges only (reads of several batches), the others in every one
      const which = k < 2 ? series : series.filter((s) => s < SERIES);
      const engineIds = which.map((s) => ids.get(s)!);
      const got: Points[] = new Array(engineIds.length);
      if (columns === 31 && r.chance(0.5)) (await engine.read(1, engineIds, tier, from, to)).forEach((p, n) => { got[n] = p; });
      else await engine.readEach(1, engineIds, tier, from, to, (n, p) => { got[n] = p; }, columns);
      for (const [n, s] of which.entries()) {
        const bad = diffPoints(got[n]!, model.read(s, tier, from, to), columns);
        if (bad) return `series ${s} (${metricOf(s)} ${hostOf(s)}), tier ${tier}, range [${from}, ${to}) (window starts ${starts.join(', ')}), columns ${columns}: ${bad}`;
      }
    }
  }
  return null;
}

/** Greedy shortening: drop ops one at a time (from the end first) while the run still fails; a bounded number of reruns. */
async function shorten(seed: number, ops: Op[], opts: Partial<EngineOptions>, budget = 150): Promise<{ ops: Op[]; failure: Failure }> {
  let best = ops;
  let failure = (await run(seed, best, opts))!;
  if (!failure) return { ops, failure: { step: -1, message: 'did not fail again (timing-dependent?)' } };
  best = best.slice(0, failure.step + 1);
  for (let i = best.length - 1; i >= 0 && budget > 0; i--) {
    const fewer = [...best.slice(0, i), ...best.slice(i + 1)];
    budget--;
    const f = await run(seed, fewer, opts).catch((err) => ({ step: fewer.length - 1, message: String(err) }));
    if (f) {
      best = fewer.slice(0, f.step + 1);
      failure = f;
      i = Math.min(i, best.length);
    }
  }
  // then the samples of each append, in halves, quarters, ... down to one at a time
  const samplesOf = (op: Op): GenSample[][] => (op.k === 'append' ? [op.samples] : op.k === 'appendMany' ? op.batches : []);
  for (let i = 0; i < best.length && budget > 0; i++) {
    for (let b = 0; b < samplesOf(best[i]!).length && budget > 0; b++) {
      for (let size = Math.ceil(samplesOf(best[i]!)[b]!.length / 2); size >= 1 && budget > 0; size = size === 1 ? 0 : Math.ceil(size / 2)) {
        for (let at = 0; at < samplesOf(best[i]!)[b]!.length && budget > 0;) {
          const list = samplesOf(best[i]!)[b]!;
          if (list.length <= 1) break;
          const fewer = list.filter((_, k) => k < at || k >= at + size);
          const op = best[i]!;
          const changed: Op = op.k === 'append' ? { ...op, samples: fewer } : { k: 'appendMany', batches: samplesOf(op).map((x, k) => (k === b ? fewer : x)) };
          const trial = [...best.slice(0, i), changed, ...best.slice(i + 1)];
          budget--;
          const f = await run(seed, trial, opts).catch((err) => ({ step: trial.length - 1, message: String(err) }));
          if (f && f.step >= i) {
            best = trial.slice(0, f.step + 1);
            failure = f;
          } else at += size;
        }
      }
    }
  }
  return { ops: best, failure };
}

/**
 * Seeds CI runs, with the steps each takes: sixteen of ordinary length (seed 1 found the
 * head's partial edge buckets; 5, 10 and 15 have filler series, so checkpoints of several
 * batches, crashes between them and reads of several batches of series), and two long
 * ones, whose windows take enough checkpoints for merges of merges (level 2).
 */
type Run = [seed: number, steps: number, opts?: Partial<EngineOptions>, quiet?: boolean];
/** every checkpoint writes every window, and nothing is sealed: merges pile up */
const PILE_UP: Partial<EngineOptions> = { flushPoints: 1, sealIdleMs: 3_600_000 };
const FIXED_SEEDS: Run[] = [...Array.from({ length: 16 }, (_, i): Run => [i + 1, STEPS]), [1001, 160, PILE_UP, true], [1002, 160, PILE_UP, true]];

/**
 * GW_MODEL_OPTS: engine options (JSON) for every seed, as `{"flushPoints":1,"sealIdleMs":3600000}`;
 * GW_MODEL_QUIET=1: no restarts, retention passes or purges among the operations.
 */
function seeds(): Run[] {
  const forced = process.env.GW_MODEL_OPTS ? JSON.parse(process.env.GW_MODEL_OPTS) as Partial<EngineOptions> : undefined;
  const one = process.env.GW_MODEL_SEED;
  if (one) return [[Number(one), STEPS, forced, process.env.GW_MODEL_QUIET === '1']];
  const many = Number(process.env.GW_MODEL_SEEDS ?? 0);
  const out = new Map(FIXED_SEEDS.map(([seed, steps, opts, quiet]) => [seed, [seed, steps, forced ?? opts, quiet] as Run]));
  for (let s = 1; s <= many; s++) out.set(s, [s, STEPS, forced, process.env.GW_MODEL_QUIET === '1']);
  return [...out.values()];
}

// Found by the model (seed 1): a roll-up read over a range not on its tier's buckets gave
// the edge buckets from the head partly (only the points inside the range, and a bucket
// starting before `from`), from stored parts whole; so a checkpoint changed the answer.
t.test('a roll-up read over an unaligned range gives whole buckets from the head as from stored parts', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-model-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const e = await openEngine(dir);
  const base = windowStarts()[2]!; // on a whole hour, whatever GW_TEST_WINDOW_SECONDS says
  await e.engine.append(1, [10, 70, 3590, 3610, 7190].map((at, i) => valueSample('m', tagsOf[0]!, base + at, i + 1)));
  const id = e.engine.select(1, 'm', { op: 'all' })[0]!.id;
  const reads = async () => {
    const out: Record<string, number[][]> = {};
    for (const tier of [60, 900, 3600] as const) {
      for (const [from, to] of [[base + 30, base + 3605], [base + 5, base + 65], [base + 3601, base + 7199]]) {
        const p = (await e.engine.read(1, [id], tier, from!, to!))[0]!;
        out[`${tier} [${from! - base}, ${to! - base})`] = [p.t.map((x) => x - base), p.count, p.sum];
      }
    }
    return out;
  };
  const head = await reads();
  t.same(head['3600 [30, 3605)'], [[3600], [2], [9]], 'the bucket at 3600 s whole (3610 s is past the range), none at 0 s');
  t.same(head['60 [5, 65)'], [[60], [1], [2]], 'the 60 s tier: the bucket at 60 s whole, none at 0 s');
  await e.engine.checkpoint();
  t.same(await reads(), head, 'the same once written');
  await e.engine.close();
  await e.crash();
});

for (const [seed, steps, forced, quiet] of seeds()) {
  t.test(`seed ${seed}`, async (t) => {
    const opts = forced ?? optionsFor(seed);
    const ops = generate(seed, { series: SERIES, windows: WINDOWS, steps, quiet, filler: fillerFor(seed) }, spans());
    const failure = await run(seed, ops, opts);
    if (!failure) {
      t.pass(`seed ${seed}: ${ops.length} ops, every read as the model says`);
      return;
    }
    const short = await shorten(seed, ops, opts);
    t.fail(`seed ${seed} (options ${JSON.stringify(opts)}), step ${failure.step} (${JSON.stringify(ops[failure.step])}): ${failure.message}\n` +
      `shortened to ${short.ops.length} ops, failing at step ${short.failure.step}: ${short.failure.message}\nops: ${JSON.stringify(short.ops)}`);
  });
}
