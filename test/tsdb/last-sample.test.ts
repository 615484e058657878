// A roll-up bucket's `last` is the value of its latest sample, also when a late sample
// lands in the bucket after the bucket was checkpointed: the parts merge by the time of
// their last samples, not by the order they were written in.
import t from 'tap';
import { openEngine, engineDir } from '../helpers/engine.js';
import { valueSample } from '../../src/tsdb/sample.js';
import { rollUp } from '../../src/tsdb/points.js';
import { WINDOW, windowOf } from '../../src/tsdb/keys.js';

const host = (h: string) => Object.freeze([Object.freeze(['host', h] as const)]);
const tags = host('a');
const TIERS = [60, 900, 3600] as const;

t.test('a late sample in a checkpointed bucket leaves the bucket\'s last with its latest sample', async (t) => {
  const dir = engineDir(t, 'gw-last-');
  const a = await openEngine(dir, { sealIdleMs: 0 });
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW; // an ended window
  const add = (h: string, at: number, v: number) => a.engine.append(1, [valueSample('m', host(h), base + at, v)]);
  // minute 0: samples at 20 s and 50 s, then (late) at 10 s. Series a has a sample in
  // minute 1 as well, so its late part goes back in time (the parts are sorted on
  // reading); series b's parts meet at minute 0 (merged at the seam, in read order).
  for (const h of ['a', 'b']) {
    await add(h, 20, 2);
    await add(h, 50, 5);
  }
  await add('a', 70, 7);
  await a.engine.checkpoint();
  for (const h of ['a', 'b']) await add(h, 10, 1);
  const ids = a.engine.select(1, 'm', { op: 'all' }).sort((x, y) => x.tags[0]![1].localeCompare(y.tags[0]![1])).map((r) => r.id);
  const check = async (engine: typeof a.engine, what: string) => {
    for (const [n, id] of ids.entries()) {
      const raw = (await engine.read(1, [id], 0, base, base + WINDOW))[0]!;
      t.same(raw.t, (n === 0 ? [10, 20, 50, 70] : [10, 20, 50]).map((s) => base + s), `${what}: raw, every sample once`);
      for (const tier of TIERS) {
        const p = (await engine.read(1, [id], tier, base, base + WINDOW))[0]!;
        t.equal(p.last[0], tier === 60 || n === 1 ? 5 : 7, `${what}: the ${tier} s bucket's last is its latest sample's`);
        t.same(p, rollUp(raw, tier), `${what}: the ${tier} s tier is the raw points rolled up`);
      }
    }
  };
  await check(a.engine, 'stored and late in the head');
  await a.engine.checkpoint();
  await check(a.engine, 'in two parts');
  await a.engine.compacted();
  await check(a.engine, 'sealed into one part');
  await a.engine.close();
  await a.crash();
  const b = await openEngine(dir);
  await check(b.engine, 'after a restart');
  await b.engine.close();
  await b.crash();
});

t.test('a late sample taken while a checkpoint writes the bucket: the head\'s two halves merge by time too', async (t) => {
  const dir = engineDir(t, 'gw-last-');
  const a = await openEngine(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  await a.engine.append(1, [valueSample('m', tags, base + 50, 5)]);
  const id = a.engine.select(1, 'm', { op: 'all' })[0]!.id;
  const running = a.engine.checkpoint();
  const late = a.engine.append(1, [valueSample('m', tags, base + 10, 1)]);
  const reads = Promise.all(TIERS.map((tier) => a.engine.read(1, [id], tier, base, base + WINDOW)));
  await Promise.all([running, late]);
  for (const [i, [p]] of (await reads).entries()) {
    if (p!.count[0] === 2) t.equal(p!.last[0], 5, `${TIERS[i]} s: the sample at 50 s is last`);
  }
  for (const tier of TIERS) {
    const [p] = await a.engine.read(1, [id], tier, base, base + WINDOW);
    t.same([p!.count[0], p!.last[0]], [2, 5], `${tier} s, written: the sample at 50 s is last`);
  }
  await a.engine.close();
  await a.crash();
});

t.test('samples of one second still take the later write as last', async (t) => {
  const dir = engineDir(t, 'gw-last-');
  const a = await openEngine(dir);
  const base = windowOf(Math.floor(Date.now() / 1000)) - 4 * WINDOW;
  await a.engine.append(1, [valueSample('m', tags, base + 30, 3)]);
  await a.engine.checkpoint();
  await a.engine.append(1, [valueSample('m', tags, base + 30, 4)]);
  const id = a.engine.select(1, 'm', { op: 'all' })[0]!.id;
  for (const tier of [0, ...TIERS] as const) {
    const [p] = await a.engine.read(1, [id], tier, base, base + WINDOW);
    t.same([p!.count[0], p!.last[0]], [2, 4], `${tier} s: the later write of the second`);
  }
  await a.engine.checkpoint();
  for (const tier of [0, ...TIERS] as const) {
    const [p] = await a.engine.read(1, [id], tier, base, base + WINDOW);
    t.same([p!.count[0], p!.last[0]], [2, 4], `${tier} s, both stored: the later write of the second`);
  }
  await a.engine.close();
  await a.crash();
});
