import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/db.js';
import { CommitQueue } from '../../src/store/commit.js';
import { JobRunner } from '../../src/domain/jobs.js';
import { createLogger } from '../../src/log.js';

const log = createLogger('silent');

async function waitFor(runner: JobRunner, account: number, id: number, state: string) {
  for (let i = 0; i < 400; i++) {
    const job = await runner.get(account, id);
    if (job?.state === state) return job;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`job ${id} never reached ${state}`);
}

t.test('a job cut off by a restart runs again at the next start', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-jobs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));

  let store = await Store.open(dir, { sync: true });
  let runner = new JobRunner(store, new CommitQueue(store.db, true), log);
  let release!: () => void;
  const blocked = new Promise<void>((r) => (release = r));
  runner.register('slow', async (_a, _p, progress) => {
    progress(10);
    await blocked;
    progress(50); // throws once the runner is stopping
    return 'never';
  });
  const id = await runner.submit(7, 'slow', { n: 1 });
  await waitFor(runner, 7, id, 'working');
  const stopped = runner.stop();
  release();
  await stopped;
  t.equal((await runner.get(7, id))?.state, 'working', 'left unfinished, not marked failed');
  await store.close();

  store = await Store.open(dir, { sync: true });
  runner = new JobRunner(store, new CommitQueue(store.db, true), log);
  const seen: unknown[] = [];
  runner.register('slow', async (account, params) => { seen.push([account, params]); return { done: true }; });
  await runner.recover();
  const job = await waitFor(runner, 7, id, 'complete');
  t.same(job, { id, state: 'complete', progress: 100, output: { done: true } });
  t.same(seen, [[7, { n: 1 }]]);
  t.equal(await runner.get(8, id), undefined, 'jobs belong to their account');
  await runner.stop();
  await store.close();
});

t.test('a failing job reports failed with the reason', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-jobs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = await Store.open(dir, { sync: false });
  const runner = new JobRunner(store, new CommitQueue(store.db, false), log);
  runner.register('bad', async () => { throw new Error('disk on fire'); });
  const id = await runner.submit(1, 'bad', {});
  t.same(await waitFor(runner, 1, id, 'failed'), { id, state: 'failed', progress: 0, errors: { system: ['disk on fire'] } });
  await runner.stop();
  await store.close();
});

t.test('two jobs of one account run at once; a third waits queued; another account is not held up', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-jobs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = await Store.open(dir, { sync: false });
  const runner = new JobRunner(store, new CommitQueue(store.db, false), log);
  const releases = new Map<number, () => void>();
  runner.register('held', async (_a, params) => {
    const n = (params as { n: number }).n;
    await new Promise<void>((r) => releases.set(n, r));
    return { n };
  });
  const a1 = await runner.submit(1, 'held', { n: 1 });
  const a2 = await runner.submit(1, 'held', { n: 2 });
  const a3 = await runner.submit(1, 'held', { n: 3 });
  const b1 = await runner.submit(2, 'held', { n: 4 });
  await waitFor(runner, 1, a1, 'working');
  await waitFor(runner, 1, a2, 'working');
  await waitFor(runner, 2, b1, 'working');
  t.equal((await runner.get(1, a3))?.state, 'queued', 'the third waits its turn');
  for (let i = 0; i < 400 && !releases.has(1); i++) await new Promise((r) => setTimeout(r, 10));
  releases.get(1)!();
  await waitFor(runner, 1, a1, 'complete');
  t.same(await waitFor(runner, 1, a3, 'working'), { id: a3, state: 'working', progress: 0 }, 'and runs once one ends');
  for (let i = 0; i < 400 && releases.size < 4; i++) await new Promise((r) => setTimeout(r, 10));
  for (const release of releases.values()) release();
  await waitFor(runner, 1, a3, 'complete');
  await runner.stop();
  await store.close();
});

t.test('parameters leave the store when a job ends; a finished job is kept a day; an old record with inline parameters still runs', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-jobs-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const store = await Store.open(dir, { sync: false });
  let now = 1_800_000_000;
  const runner = new JobRunner(store, new CommitQueue(store.db, false), log, () => now);
  const seen: unknown[] = [];
  runner.register('echo', async (_a, params) => { seen.push(params); return 'ok'; });
  const paramKeys = async () => (await store.json('job_params').keys().all()).length;

  const id = await runner.submit(1, 'echo', { names: ['a', 'b'] });
  t.equal(await paramKeys(), 1, 'stored with the job before the 202');
  await waitFor(runner, 1, id, 'complete');
  t.equal(await paramKeys(), 0, 'gone once it ended');
  t.same(seen, [{ names: ['a', 'b'] }]);

  // a record from before the parameters had their own key
  await store.json('jobs').put(`1!${String(999).padStart(12, '0')}`, { id: 999, account_id: 1, kind: 'echo', params: { legacy: true }, state: 'queued', progress: 0, created_at: now, updated_at: now });
  await runner.recover();
  await waitFor(runner, 1, 999, 'complete');
  t.same(seen[1], { legacy: true });

  now += 86_400;
  await runner.sweep();
  t.equal((await runner.get(1, id))?.state, 'complete', 'a day old: still there');
  now += 1;
  await runner.sweep();
  t.equal(await runner.get(1, id), undefined, 'older: deleted');
  t.equal(await runner.get(1, 999), undefined);
  await runner.stop();
  await store.close();
});
