// Condition ids stay unique across a restart when two accounts create alerts at once. A
// condition's id is reserved while the alert is checked, before awaits (one a service it
// names, the account's alerts); another account's alert created meanwhile takes a later
// id and is written first. The stored counter must still end at the highest id handed
// out, or after a restart those ids are handed out again.
import t from 'tap';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/load.js';
import { createRuntime, closeRuntime } from '../../src/runtime.js';
import { createLogger } from '../../src/log.js';
import { tempDir } from '../helpers/tmp.js';

const webhook = (i: number) => ({ type: 'webhook', title: `hook ${i}`, settings: { url: `http://127.0.0.1:9/${i}` } });
const condition = (metric: string) => ({ type: 'above', metric_name: metric, threshold: 1 });

t.test('condition ids handed out before a restart are not handed out again after it', async (t) => {
  const dir = tempDir(t);
  const config = parseConfig(`data_dir: ${dir}\n`, join(dir, 'config.yaml'), {});
  const rt = await createRuntime(config, createLogger('silent'));
  const many: number[] = [];
  for (let i = 0; i < 30; i++) many.push((await rt.services.create(1, webhook(i))).id);
  const one = (await rt.services.create(2, webhook(99))).id;
  // started together: account 1's alert checks 30 services after reserving its condition's
  // id, account 2's one, so account 2's later id is written first. Which of the two reserves
  // first depends on LevelDB reads before that (one run in many had account 2 first), so
  // the race is run again until it takes that shape.
  const ids: number[] = [];
  let shaped = false;
  for (let attempt = 0; attempt < 20 && !shaped; attempt++) {
    const [slow, quick] = await Promise.all([
      rt.alerts.create(1, { name: `slow-${attempt}`, conditions: [condition('x')], services: many }),
      rt.alerts.create(2, { name: `quick-${attempt}`, conditions: [condition('y')], services: [one] }),
    ]);
    ids.push(slow.conditions[0]!.id, quick.conditions[0]!.id);
    shaped = quick.conditions[0]!.id > slow.conditions[0]!.id;
  }
  t.ok(shaped, `in one of the races the quick alert's condition took the later id (${ids})`);
  await closeRuntime(rt);

  const again = await createRuntime(config, createLogger('silent'));
  t.teardown(() => closeRuntime(again));
  const next = await again.alerts.create(2, { name: 'after', conditions: [condition('z')], services: [one] });
  t.ok(next.conditions[0]!.id > Math.max(...ids), `a condition created after the restart gets a new id (${next.conditions[0]!.id})`);
});
