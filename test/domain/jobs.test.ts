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
