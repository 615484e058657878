// A minimal HTTPS client for servers the tests start as child processes: it trusts
// exactly the server's own certificate and speaks basic auth.
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Credentials { user: string; password: string }

export interface SimpleReply { status: number; headers: Record<string, string | string[] | undefined>; text: string }

/** The first admin's e-mail and token from `<dataDir>/initial-credentials`. */
export function initialCredentials(dataDir: string): Credentials {
  const text = readFileSync(join(dataDir, 'initial-credentials'), 'utf8');
  return { user: /^email: (.*)$/m.exec(text)![1]!, password: /^token: (.*)$/m.exec(text)![1]! };
}

/** The local CA that issued the server certificate: what a client trusts. */
export function selfSignedCa(dataDir: string): string {
  return readFileSync(join(dataDir, 'tls', 'ca.pem'), 'utf8');
}

export function basic(c: Credentials): string {
  return 'Basic ' + Buffer.from(`${c.user}:${c.password}`).toString('base64');
}

export function httpsRequest(port: number, ca: string, method: string, path: string, opts: { auth?: Credentials; json?: unknown } = {}): Promise<SimpleReply> {
  return new Promise((resolve, reject) => {
    const payload = opts.json === undefined ? undefined : JSON.stringify(opts.json);
    const headers: Record<string, string | number> = {};
    if (opts.auth) headers.authorization = basic(opts.auth);
    if (payload !== undefined) { headers['content-type'] = 'application/json'; headers['content-length'] = Buffer.byteLength(payload); }
    const req = https.request({ host: '127.0.0.1', port, method, path, headers, ca, servername: 'localhost', agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}
