// Which measurement times a write accepts, the same for every write route: back as far as
// the coarsest tier keeps data (anything older would be expired at once), and ahead of the
// server clock by a fixed slack for senders whose clocks run fast.
import type { Retention } from '../tsdb/retention.js';
import { FUTURE_SLACK_SECONDS } from '../domain/measure-times.js';

export interface TimeWindow {
  /** oldest accepted time, epoch seconds */
  oldest: number;
  /** newest accepted time, epoch seconds */
  newest: number;
  /** the server's time, epoch seconds: the time of measurements that give none */
  now: number;
}

export function acceptedTimes(retention: Retention, now = Math.floor(Date.now() / 1000)): TimeWindow {
  return { oldest: now - retention['3600'], newest: now + FUTURE_SLACK_SECONDS, now };
}
