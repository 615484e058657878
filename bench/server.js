// A Gaugeway server for benchmarks: a child process on a fresh config, its port once it
// listens, its credentials, and its CPU time and memory from /proc. The server runs with
// MALLOC_ARENA_MAX=2 and NODE_OPTIONS=--max-semi-space-size=64, as systemd/gaugeway.service
// sets them, unless the variable is set.
import { spawn } from 'node:child_process';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TICK = 100; // USER_HZ for /proc/<pid>/stat

/** Starts `gaugeway serve --config <config>`; `flags` go to node (e.g. --cpu-prof). */
export function startServer(config, { flags = [], env = {} } = {}) {
  return new Promise((resolve, reject) => {
    const childEnv = { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2', NODE_OPTIONS: process.env.NODE_OPTIONS ?? '--max-semi-space-size=64', ...env };
    const child = spawn(process.execPath, [...flags, process.env.BENCH_SERVER_SCRIPT ?? join(root, 'bin/gaugeway.js'), 'serve', '--config', config], { stdio: ['ignore', 'pipe', 'inherit'], env: childEnv });
    // BENCH_SERVER_STDOUT=file keeps what is not a log record (node's --trace-gc, say)
    const rest = process.env.BENCH_SERVER_STDOUT ? createWriteStream(process.env.BENCH_SERVER_STDOUT) : null;
    // BENCH_SERVER_LOG=file keeps the server's log records too (its compactions, say)
    const log = process.env.BENCH_SERVER_LOG ? createWriteStream(process.env.BENCH_SERVER_LOG) : null;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (rest && !line.startsWith('{')) rest.write(line + '\n');
      if (log && line.startsWith('{')) log.write(line + '\n');
      try {
        const rec = JSON.parse(line);
        if (rec.msg?.startsWith('gaugeway listening')) resolve({ child, port: rec.port });
        if (rec.level === 'error' || rec.level === 'fatal') console.error('server:', line);
      } catch { /* not JSON */ }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

export function stopServer(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

/** The first admin's basic-auth header, from the data dir's initial-credentials. */
export function basicAuth(dataDir) {
  const creds = readFileSync(join(dataDir, 'initial-credentials'), 'utf8');
  return 'Basic ' + Buffer.from(`${/^email: (.*)$/m.exec(creds)[1]}:${/^token: (.*)$/m.exec(creds)[1]}`).toString('base64');
}

/** utime + stime, in seconds, of a /proc stat line (a process's or a thread's) */
function statCpuSeconds(stat) {
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / TICK;
}

export function cpuSeconds(pid) {
  return statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** CPU seconds of a process's main (JavaScript) thread and of all its other threads together. */
export function threadCpuSeconds(pid) {
  let main = 0;
  let others = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const s = statCpuSeconds(stat);
    if (Number(tid) === pid) main += s;
    else others += s;
  }
  return { main, others };
}

export function rssMb(pid, field = 'VmRSS') {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]) / 1024;
}

/**
 * Replays the workload with bench/load.js (its own process; `args` as load.js takes them)
 * against the server of `pid`, and measures that server's CPU over the replay alone.
 */
export function replayLoad(pid, args) {
  const load = spawn(process.execPath, ['--max-old-space-size=4096', join(root, 'bench/load.js'), ...args.map(String)], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let cpu0 = 0;
    createInterface({ input: load.stdout }).on('line', (line) => {
      const ev = JSON.parse(line);
      if (ev.event === 'ready') { cpu0 = cpuSeconds(pid); load.stdin.write('go\n'); }
      if (ev.event === 'done') resolve({ seconds: ev.seconds, samples: ev.samples, cpu: cpuSeconds(pid) - cpu0 });
      if (ev.event === 'error') reject(new Error(ev.message));
    });
    load.once('exit', (code) => { if (code) reject(new Error(`load generator exited with ${code}`)); });
  });
}
