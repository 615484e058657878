// A calendar job whose time passes while the process is busy: logged as a JSON line
// naming the job, not as node-cron's own console text.
import t from 'tap';
import { captureLog } from './helpers/capture-log.js';
import { poll } from './helpers/poll.js';
import { scheduleJob } from '../src/cron.js';

t.test('a missed run is a warning in the log, and node-cron prints nothing of its own', async (t) => {
  const log = captureLog('info');
  const printed: string[] = [];
  const original = { warn: console.warn, log: console.log, error: console.error };
  for (const k of ['warn', 'log', 'error'] as const) console[k] = (...args: unknown[]) => { printed.push(args.map(String).join(' ')); };
  t.teardown(() => Object.assign(console, original));
  let runs = 0;
  const task = scheduleJob('* * * * * *', 'test job', log.logger, () => { runs++; });
  t.teardown(() => task.stop());
  await poll(async () => (runs > 0 ? true : undefined)); // it runs on time while the process is free
  const until = Date.now() + 2500;
  while (Date.now() < until) { /* the process is busy through two of the job's times */ }
  const missed = await poll(async () => log.lines().find((l) => /missed/.test(String(l.msg))), 100);
  t.match(missed, { level: 'warn', job: 'test job', msg: 'a scheduled run was missed: the process was busy at its time' });
  t.match(missed.at, /^\d{4}-\d\d-\d\dT/);
  t.same(printed.filter((p) => /missed/i.test(p)), [], 'no console line from node-cron');
});
