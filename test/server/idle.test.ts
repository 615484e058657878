// An idle service sleeps: a real `gaugeway serve` child with nothing to do wakes its
// JavaScript thread a few times a second, not a hundred (prom-client's event-loop lag
// sampling every 10 ms did that, about 1 % of a core; src/selfmetrics.ts). Counted as
// the main thread's voluntary context switches (each wake-up after a wait is one), which
// a busy machine does not add to: it delays wake-ups, it does not make more of them.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { startServe } from '../helpers/cli.js';
import { tempDir, writeServeConfig } from '../helpers/tmp.js';

function wakeUps(pid: number): number {
  // /proc/<pid>/status describes the thread-group leader: the JavaScript thread
  const m = /^voluntary_ctxt_switches:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error('no voluntary_ctxt_switches in /proc/<pid>/status');
  return Number(m[1]);
}

t.test('an idle service wakes its JavaScript thread at most a few dozen times a second', async (t) => {
  if (!existsSync('/proc/self/status')) return t.skip('no /proc/<pid>/status on this system');
  const dir = tempDir(t, 'gw-idle-');
  const s = await startServe(t, ['--config', writeServeConfig(dir)]);
  const pid = s.child.pid!;
  // past start-up's own work (first checkpoint, opening keyspaces)
  await new Promise((r) => setTimeout(r, 3000));
  const before = wakeUps(pid);
  const started = Date.now();
  await new Promise((r) => setTimeout(r, 5000));
  const perSecond = (wakeUps(pid) - before) / ((Date.now() - started) / 1000);
  // 10 ms lag sampling alone gave about 100 a second; 100 ms sampling, the disk check
  // each second and the timers of an idle service give about 12
  t.ok(perSecond < 40, `JavaScript thread woke ${perSecond.toFixed(1)} times a second while idle`);
  s.child.kill('SIGTERM');
  await s.exited;
});
