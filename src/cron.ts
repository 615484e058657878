// The service's calendar jobs (alert checks, the retention pass) on node-cron. When the
// process is too busy at a job's time, node-cron prints its own unformatted warning to
// the console; the service's output is JSON lines (the journal, log shippers), so a
// missed run is logged through the logger instead, naming the job.
import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from './log.js';

export function scheduleJob(expression: string, job: string, log: Logger, run: () => void): ScheduledTask {
  const task = cron.schedule(expression, run);
  // a listener for the event is what keeps node-cron from printing its own line
  task.on('execution:missed', (ctx) => {
    log.warn({ job, at: ctx.date.toISOString() }, 'a scheduled run was missed: the process was busy at its time');
  });
  return task;
}
