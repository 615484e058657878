import t from 'tap';
import { ReadGate, type ReadGateLimits } from '../../src/tsdb/read-gate.js';
import { ApiError } from '../../src/errors.js';

/** A read that runs until its `finish` is called. */
function heldRead(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((r) => { finish = r; });
  return { finish, read: async () => { log.push(`start ${name}`); await done; log.push(`end ${name}`); return name; } };
}

const settle = () => new Promise((r) => setImmediate(r));

t.test('at most `concurrency` reads run; the others start in arrival order as slots free', async (t) => {
  const gate = new ReadGate(() => ({ concurrency: 2, queueTimeoutMs: 60_000 }));
  const log: string[] = [];
  const reads = ['a', 'b', 'c', 'd'].map((n) => heldRead(log, n));
  const results = reads.map((r) => gate.run(r.read));
  await settle();
  t.same(log, ['start a', 'start b'], 'two run, two wait');
  t.equal(gate.waiting, 2);
  reads[1]!.finish();
  await settle(); await settle();
  t.same(log.slice(2), ['end b', 'start c'], 'the first waiting read takes the freed slot');
  reads[0]!.finish();
  await settle(); await settle();
  t.same(log.slice(4), ['end a', 'start d']);
  t.equal(gate.waiting, 0);
  reads[2]!.finish();
  reads[3]!.finish();
  t.same(await Promise.all(results), ['a', 'b', 'c', 'd'], 'each read gets its own result');
});

t.test('turns go round the waiting owners: one account\'s burst does not hold back another\'s read', async (t) => {
  const gate = new ReadGate(() => ({ concurrency: 1, queueTimeoutMs: 60_000 }));
  const log: string[] = [];
  const names = ['a1', 'a2', 'a3', 'b1', 'a4', 'b2'];
  const reads = new Map(names.map((n) => [n, heldRead(log, n)]));
  const results = names.map((n) => gate.run(reads.get(n)!.read, { owner: n.startsWith('a') ? 1 : 2 }));
  await settle();
  t.equal(gate.waiting, 5);
  for (let i = 0; i < names.length; i++) {
    // end the one read running now; the gate picks the next
    const running = log.filter((l) => l.startsWith('start ')).at(-1)!.slice('start '.length);
    reads.get(running)!.finish();
    await settle(); await settle();
  }
  t.same(log.filter((l) => l.startsWith('start')), ['start a1', 'start a2', 'start b1', 'start a3', 'start b2', 'start a4'],
    'in arrival order within an owner, alternating between owners');
  t.equal(gate.waiting, 0);
  t.same(await Promise.all(results), ['a1', 'a2', 'a3', 'b1', 'a4', 'b2']);
});

t.test('a read that waits past the queue timeout is refused with 503, and the queue moves on', async (t) => {
  const gate = new ReadGate(() => ({ concurrency: 1, queueTimeoutMs: 20 }));
  const log: string[] = [];
  const first = heldRead(log, 'first');
  const running = gate.run(first.read);
  const refused = await gate.run(async () => 'never').then(() => null, (err: unknown) => err);
  t.ok(refused instanceof ApiError, 'an ApiError');
  t.equal((refused as ApiError).status, 503);
  t.match((refused as ApiError).body, { system: [/limits\.wide_reads/] });
  t.equal((refused as ApiError).headers['Retry-After'], '1');
  t.equal(gate.refused, 1);
  t.equal(gate.waiting, 0, 'the refused read left the queue');
  first.finish();
  t.equal(await running, 'first');
  t.equal(await gate.run(async () => 'next'), 'next', 'the slot is free again');
});

t.test('a read that fails frees its slot', async (t) => {
  const gate = new ReadGate(() => ({ concurrency: 1, queueTimeoutMs: 60_000 }));
  await t.rejects(gate.run(async () => { throw new Error('disk'); }), /disk/);
  t.equal(await gate.run(async () => 'after'), 'after');
});

t.test('a higher limit from a reload lets waiting reads in as soon as any read ends', async (t) => {
  const limits: ReadGateLimits = { concurrency: 1, queueTimeoutMs: 60_000 };
  const gate = new ReadGate(() => limits);
  const log: string[] = [];
  const reads = ['a', 'b', 'c'].map((n) => heldRead(log, n));
  const results = reads.map((r) => gate.run(r.read));
  await settle();
  t.same(log, ['start a']);
  limits.concurrency = 3;
  reads[0]!.finish();
  await settle(); await settle();
  t.same(log, ['start a', 'end a', 'start b', 'start c'], 'both waiting reads start');
  reads[1]!.finish();
  reads[2]!.finish();
  await Promise.all(results);
});

t.test('a patient read (an alert check) waits past the queue timeout and is never refused', async (t) => {
  const gate = new ReadGate(() => ({ concurrency: 1, queueTimeoutMs: 10 }));
  const log: string[] = [];
  const first = heldRead(log, 'first');
  const running = gate.run(first.read);
  const patient = gate.run(async () => 'patient', { patient: true });
  await new Promise((r) => setTimeout(r, 50));
  t.equal(gate.waiting, 1, 'still waiting after five queue timeouts');
  t.equal(gate.refused, 0);
  first.finish();
  t.equal(await running, 'first');
  t.equal(await patient, 'patient');
});

t.test('a raised limit lets waiting reads in at the next arrival, ahead of it, without any read ending', async (t) => {
  const limits: ReadGateLimits = { concurrency: 1, queueTimeoutMs: 60_000 };
  const gate = new ReadGate(() => limits);
  const log: string[] = [];
  const reads = ['a', 'b', 'c', 'd'].map((n) => heldRead(log, n));
  const results = reads.slice(0, 3).map((r) => gate.run(r.read));
  await settle();
  t.same(log, ['start a']);
  limits.concurrency = 3;
  results.push(gate.run(reads[3]!.read));
  await settle(); await settle();
  t.same(log, ['start a', 'start b', 'start c'], 'the two waiting start; the newcomer waits behind them');
  t.equal(gate.waiting, 1);
  reads[0]!.finish();
  await settle(); await settle();
  t.same(log.slice(3), ['end a', 'start d']);
  for (const r of reads.slice(1)) r.finish();
  await Promise.all(results);
});

t.test('a read refused from the middle of the queue leaves the others in their order', async (t) => {
  const gate = new ReadGate(() => ({ concurrency: 1, queueTimeoutMs: 10 }));
  const log: string[] = [];
  const [a, b, d] = ['a', 'b', 'd'].map((n) => heldRead(log, n));
  const ra = gate.run(a!.read);
  const rb = gate.run(b!.read, { patient: true });
  const rc = gate.run(async () => 'c').then(() => 'ran', () => 'refused');
  const rd = gate.run(d!.read, { patient: true });
  t.equal(await rc, 'refused');
  t.equal(gate.waiting, 2);
  a!.finish();
  await ra;
  await settle(); await settle();
  t.same(log, ['start a', 'end a', 'start b']);
  b!.finish();
  await rb;
  await settle(); await settle();
  t.same(log.slice(3), ['end b', 'start d']);
  d!.finish();
  await rd;
});

t.test('a waiting read whose signal is aborted leaves the queue at once with the signal\'s reason, and is not counted refused', async (t) => {
  const gate = new ReadGate(() => ({ concurrency: 1, queueTimeoutMs: 60_000 }));
  const log: string[] = [];
  const first = heldRead(log, 'first');
  const running = gate.run(first.read);
  const ac = new AbortController();
  const abandoned = gate.run(async () => { log.push('abandoned ran'); return 'x'; }, { signal: ac.signal });
  const next = heldRead(log, 'next');
  const after = gate.run(next.read);
  await settle();
  t.equal(gate.waiting, 2);
  const reason = new Error('client gone');
  ac.abort(reason);
  t.equal(await abandoned.then(() => null, (err: unknown) => err), reason, 'rejected with the reason');
  t.equal(gate.waiting, 1, 'out of the queue before its turn');
  first.finish();
  next.finish();
  t.same(await Promise.all([running, after]), ['first', 'next']);
  t.notOk(log.includes('abandoned ran'), 'never ran');
  t.equal(gate.refused, 0);
});

t.test('a read whose signal is already aborted is not admitted, even with a free slot; an admitted one ignores a later abort', async (t) => {
  const gate = new ReadGate(() => ({ concurrency: 1, queueTimeoutMs: 60_000 }));
  const ac = new AbortController();
  ac.abort(new Error('gone'));
  await t.rejects(gate.run(async () => 'x', { signal: ac.signal }), /gone/);
  const late = new AbortController();
  const log: string[] = [];
  const r = heldRead(log, 'r');
  const running = gate.run(r.read, { signal: late.signal });
  await settle();
  late.abort(new Error('too late'));
  r.finish();
  t.equal(await running, 'r', 'the read itself decides what an abort means once it runs');
  t.equal(await gate.run(async () => 'free'), 'free', 'its slot was given back once');
});
