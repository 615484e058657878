// The CLI's tools open a runtime over a stopped service's data dir (export, import,
// store compact): it must not deliver the service's pending notifications, evaluate its
// alerts or resume its jobs. Only a serving process starts that work (review, session 19).
import t from 'tap';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { createRuntime, closeRuntime, startBackgroundWork } from '../../src/runtime.js';
import { setup } from '../helpers/alert-setup.js';
import { tempDir } from '../helpers/tmp.js';
import { poll } from '../helpers/poll.js';
import { join } from 'node:path';

t.test('a runtime opened for a tool leaves pending notifications alone; the server delivers them', async (t) => {
  const dir = tempDir(t);
  const x = await setup(t, dir);
  x.hook.setStatus(500);
  await x.alert({ name: 'pending', conditions: [{ type: 'above', metric_name: 'pending', threshold: 10 }] });
  await x.post('pending', [[x.t0 + 10, 50]]);
  await x.evaluate(x.t0 + 11);
  await poll(async () => (x.hook.received.length > 0 ? true : undefined));
  await x.s.stop();

  const config = loadConfig({ file: join(dir, 'config.yaml'), env: {} });
  const rt = await createRuntime(config, createLogger('silent'));
  t.equal(rt.outbox.length, 0, 'the outbox is not even read');
  t.equal(rt.alertEngine.sizes().alerts, 0, 'nor are the alerts');
  await startBackgroundWork(rt);
  t.equal(rt.outbox.length, 1, 'a serving process picks the pending notification up');
  await closeRuntime(rt);
});
