// The service under the crash-cycle test: `node bin/gaugeway.js serve` from dist/, as a
// child process on 127.0.0.1 with an ephemeral port, killed with SIGKILL at a moment the
// test chooses (also before it listens: during WAL replay). Its JSON log lines are kept,
// so the test can fail on an error the service logged without dying of it.
import https from 'node:https';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cleanEnv } from '../helpers/cli.js';

const BIN = fileURLToPath(new URL('../../bin/gaugeway.js', import.meta.url));

export interface LogLine { level?: number; msg?: string; [k: string]: unknown }

export interface Reply { status: number; text: string }

export class ServiceProcess {
  readonly child: ChildProcess;
  readonly logs: LogLine[] = [];
  private raw = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private done = false;
  port = 0;
  private agent: https.Agent | null = null;

  constructor(config: string) {
    // a plain server: none of tap's loaders or coverage hooks in the child
    this.child = spawn(process.execPath, [BIN, 'serve', '--config', config], {
      env: cleanEnv({ NODE_OPTIONS: '', NODE_V8_COVERAGE: '' }), stdio: ['ignore', 'pipe', 'pipe'],
    });
    let pending = '';
    this.child.stdout!.on('data', (c: Buffer) => {
      this.raw += c;
      pending += c;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        try { this.logs.push(JSON.parse(line) as LogLine); } catch { /* not a log line */ }
      }
    });
    this.child.stderr!.on('data', (c: Buffer) => (this.raw += c));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => { this.done = true; resolve({ code, signal }); }));
  }

  get running(): boolean {
    return !this.done;
  }

  output(): string {
    return this.raw;
  }

  /** Resolves with the port once the service logs that it listens; rejects if it exits first. */
  async listening(ca: () => string, timeoutMs = 60_000): Promise<number> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.logs.find((l) => /^gaugeway listening/.test(String(l.msg)));
      if (hit) {
        this.port = Number(hit.port);
        this.agent = new https.Agent({ ca: ca(), keepAlive: true, maxSockets: 16 });
        return this.port;
      }
      if (this.done) throw new Error(`gaugeway exited before listening:\n${this.raw}`);
      if (Date.now() > until) throw new Error(`gaugeway did not listen within ${timeoutMs} ms:\n${this.raw}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** kill -9, and wait until the process is gone. */
  async kill(): Promise<void> {
    this.agent?.destroy();
    if (!this.done) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM (a clean stop); resolves with the exit code. */
  async stop(): Promise<number | null> {
    this.agent?.destroy();
    if (!this.done) this.child.kill('SIGTERM');
    return (await this.exited).code;
  }

  /** Log lines at error level or above (pino: 50 error, 60 fatal). */
  errors(): LogLine[] {
    return this.logs.filter((l) => (l.level ?? 0) >= 50);
  }

  request(auth: string, method: string, path: string, json?: unknown): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const payload = json === undefined ? undefined : JSON.stringify(json);
      const headers: Record<string, string | number> = { authorization: auth };
      if (payload !== undefined) { headers['content-type'] = 'application/json'; headers['content-length'] = Buffer.byteLength(payload); }
      const req = https.request({ host: '127.0.0.1', port: this.port, method, path, headers, agent: this.agent ?? undefined, servername: 'localhost' }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }
}
