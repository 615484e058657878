// A real Gaugeway on 127.0.0.1 with an ephemeral port and a fresh LevelDB in a temp dir,
// and an HTTPS client that verifies the server's own self-signed certificate.
import https from 'node:https';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { loadConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/log.js';
import { startServer, type RunningServer } from '../../src/server.js';

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface RequestOptions {
  /** JSON body (serialised here) */
  json?: unknown;
  /** form body: a ready `a=1&b[c]=2` string */
  form?: string;
  /** raw body with its own content type */
  raw?: { body: string | Buffer; type?: string };
  /** basic-auth credentials; default: the server's first admin; null: none */
  auth?: { user: string; password: string } | null;
  headers?: Record<string, string>;
  /** send over plain HTTP instead of HTTPS */
  plain?: boolean;
}

export interface TestServer {
  server: RunningServer;
  port: number;
  dataDir: string;
  admin: { user: string; password: string };
  request(method: string, path: string, opts?: RequestOptions): Promise<Reply>;
  get(path: string, opts?: RequestOptions): Promise<Reply>;
  /** a new account with one token of the given role */
  newAccount(email: string, role?: 'admin' | 'recorder' | 'viewer'): Promise<{ user: string; password: string }>;
  stop(): Promise<void>;
}

/** `yaml` is extra config text appended to the test config (keys must not repeat). */
export async function startTestServer(t: Test, yaml = '', opts: { dataDir?: string; keepData?: boolean } = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'gw-test-'));
  const file = join(dataDir, 'config.yaml');
  const hasHttp = /^http:/m.test(yaml);
  const hasLog = /^log:/m.test(yaml);
  writeFileSync(file, [
    `data_dir: ${dataDir}`,
    hasHttp ? '' : 'http:\n  listen: "127.0.0.1:0"',
    hasLog ? '' : 'log:\n  level: silent',
    yaml,
  ].join('\n'));
  const load = () => loadConfig({ file, env: {} });
  const config = load();
  const server = await startServer(config, createLogger(config.log.level), { load });
  const ca = server.tls.ca;
  const creds = readFileSync(join(dataDir, 'initial-credentials'), 'utf8');
  const admin = { user: /^email: (.*)$/m.exec(creds)![1]!, password: /^token: (.*)$/m.exec(creds)![1]! };
  const agent = new https.Agent({ ca, keepAlive: true });

  const request = (method: string, path: string, o: RequestOptions = {}): Promise<Reply> => new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...o.headers };
    let payload: string | Buffer | undefined;
    if (o.json !== undefined) { payload = JSON.stringify(o.json); headers['content-type'] ??= 'application/json'; }
    if (o.form !== undefined) { payload = o.form; headers['content-type'] ??= 'application/x-www-form-urlencoded'; }
    if (o.raw) { payload = o.raw.body; if (o.raw.type) headers['content-type'] = o.raw.type; }
    if (payload !== undefined) headers['content-length'] = Buffer.byteLength(payload);
    const auth = o.auth === undefined ? admin : o.auth;
    if (auth) headers.authorization = 'Basic ' + Buffer.from(`${auth.user}:${auth.password}`).toString('base64');
    const lib = o.plain ? http : https;
    const req = lib.request({ host: '127.0.0.1', port: server.port, method, path, headers, ...(o.plain ? {} : { agent, servername: 'localhost' }) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = undefined;
        try { body = text ? JSON.parse(text) : undefined; } catch { body = undefined; }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    agent.destroy();
    await server.close();
    if (!opts.keepData) rmSync(dataDir, { recursive: true, force: true });
  };
  t.teardown(stop);

  return {
    server, port: server.port, dataDir, admin, request,
    get: (path, o) => request('GET', path, o),
    async newAccount(email, role = 'admin') {
      const account = server.rt.accounts.findAccount(email) ?? (await server.rt.accounts.createAccount(email));
      const { secret } = await server.rt.accounts.createToken(account.email, `t${Date.now()}${Math.random().toString(36).slice(2, 6)}`, role);
      return { user: account.email, password: secret };
    },
    stop,
  };
}
