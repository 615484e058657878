// The real `gaugeway` command as a child process: `node bin/gaugeway.js ...` over the
// dist/ that `npm test` builds first. `serve` children are found by the port in their
// "listening" log line (they listen on 127.0.0.1:0) and stopped in teardown.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';

const BIN = fileURLToPath(new URL('../../bin/gaugeway.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Environment for children: no GAUGEWAY_* leaking in from the developer's shell. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GAUGEWAY_')));
  return { ...env, ...extra };
}

/** `gaugeway ARGS`; `cwd` for relative paths (default: the test's); `as`: another user to run as (root only). */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string, as?: { uid: number; gid: number }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'], ...as });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export interface ServeProcess {
  child: ChildProcess;
  port: number;
  /** every stdout line so far, parsed as JSON where it is JSON */
  logs: Record<string, unknown>[];
  /** raw stdout + stderr so far */
  output(): string;
  /** resolves with the first log line matching `msg` (polls; generous default timeout) */
  waitForLog(msg: RegExp, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** resolves with the exit code once the process has ended */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `ready`: the log line to wait for (default: "listening"; port is NaN when that line has none) */
export async function startServe(t: Test, args: string[], env: NodeJS.ProcessEnv = {}, ready = /listening/): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let raw = '';
  let pending = '';
  const logs: Record<string, unknown>[] = [];
  child.stdout!.on('data', (c: Buffer) => {
    raw += c;
    pending += c;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      try { logs.push(JSON.parse(line) as Record<string, unknown>); } catch { /* not a log line */ }
    }
  });
  child.stderr!.on('data', (c: Buffer) => (raw += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })));
  let done = false;
  void exited.then(() => (done = true));
  t.teardown(async () => {
    if (!done) { child.kill('SIGKILL'); await exited; }
  });

  const waitForLog = async (msg: RegExp, timeoutMs = 60_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const hit = logs.find((l) => msg.test(String(l.msg)));
      if (hit) return hit;
      if (done) throw new Error(`gaugeway exited before logging ${msg}:\n${raw}`);
      if (Date.now() > until) throw new Error(`no log line ${msg} within ${timeoutMs} ms:\n${raw}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const hit = await waitForLog(ready);
  return { child, port: Number(hit.port), logs, output: () => raw, waitForLog, exited };
}

/** Polls `check` until it returns true (generous timeout: CI machines are slow). */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
