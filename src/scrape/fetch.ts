// One HTTP(S) GET of a target's exposition, as Prometheus sends it: its Accept header,
// gzip accepted, X-Prometheus-Scrape-Timeout-Seconds, the job's auth and TLS settings.
// The timeout covers the whole exchange (connect to last byte); the body is counted as it
// arrives, after decompression, and the fetch is cut as soon as body_size_limit is passed,
// so a huge target costs no more memory than the limit. Secrets in files are read at each
// scrape, so a rotated password or certificate applies without a reload.
// Connections are kept open between scrapes (each target loop has its own agent), as
// Prometheus keeps them: a new TCP connection and its teardown every scrape once cost
// more server CPU than parsing the exposition. A request on a kept connection that the
// target closed meanwhile fails with a reset through no fault of the target, so that one
// case is retried once on a fresh connection (as Go's HTTP client does for Prometheus).
// Redirects are followed as Prometheus's client follows them (follow_redirects, default
// true): at most 10, within the one timeout, the job's credentials only to the same host.
import http from 'node:http';
import https from 'node:https';
import { readFile } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { SCRAPE_ACCEPT } from './parse.js';
import type { ScrapeJob } from './config.js';

export const USER_AGENT = 'Gaugeway/0.1';

/**
 * The most a scrape body may hold after decompression, whatever body_size_limit says (0
 * is "no limit" in Prometheus). Node parses the exposition as one string and V8 refuses
 * strings past 512 MB, and without a ceiling a 13 MB gzip bomb expanded to 4.4 GB and
 * crashed the service. The largest real expositions (kube-state-metrics of a big cluster)
 * are tens of megabytes.
 */
export const MAX_SCRAPE_BODY_BYTES = 128 * 1024 * 1024;

/** The limit a fetch enforces: the job's, within the ceiling. */
export function effectiveBodyLimit(configured: number): number {
  return configured > 0 ? Math.min(configured, MAX_SCRAPE_BODY_BYTES) : MAX_SCRAPE_BODY_BYTES;
}

export class ScrapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScrapeError';
  }
}

export interface Exposition {
  contentType: string | null;
  /** decompressed body */
  body: Buffer;
}

type Auth = Pick<ScrapeJob, 'basicAuth' | 'authorization' | 'tls'>;
type FetchJob = Auth & Pick<ScrapeJob, 'bodySizeLimit'> & Partial<Pick<ScrapeJob, 'followRedirects'>>;

/** Go's http.Client stops after 10 redirects; so does Prometheus's scrape. */
const MAX_REDIRECTS = 10;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A 3xx answer with a Location. */
interface Redirect {
  status: number;
  location: string;
}

async function secret(inline: string | null, file: string | null, what: string): Promise<string> {
  if (file === null) return inline ?? '';
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (e) {
    throw new ScrapeError(`cannot read ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

async function authorizationHeader(job: Auth): Promise<string | null> {
  if (job.basicAuth) {
    const password = await secret(job.basicAuth.password, job.basicAuth.passwordFile, 'password_file');
    return 'Basic ' + Buffer.from(`${job.basicAuth.username}:${password}`).toString('base64');
  }
  if (job.authorization) {
    const credentials = await secret(job.authorization.credentials, job.authorization.credentialsFile, 'credentials_file');
    return `${job.authorization.type} ${credentials}`;
  }
  return null;
}

async function tlsOptions(job: Auth): Promise<https.RequestOptions> {
  const tls = job.tls;
  if (!tls) return {};
  const read = async (file: string | null, what: string) => {
    if (file === null) return undefined;
    try {
      return await readFile(file);
    } catch (e) {
      throw new ScrapeError(`cannot read ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
  };
  const [ca, cert, key] = await Promise.all([read(tls.caFile, 'ca_file'), read(tls.certFile, 'cert_file'), read(tls.keyFile, 'key_file')]);
  return { ca, cert, key, rejectUnauthorized: !tls.insecureSkipVerify, ...(tls.serverName ? { servername: tls.serverName } : {}) };
}

/**
 * An agent that keeps a target's connection open between scrapes (unref'd while idle, so
 * it never holds the process open). Closed by its loop's stop().
 */
export function scrapeAgent(url: string, intervalMs: number): http.Agent {
  // Idle a little longer than one interval, so the next scrape finds the connection; a
  // target's own shorter Keep-Alive timeout still wins (Node's agent honours it).
  const options: http.AgentOptions = { keepAlive: true, maxSockets: 2, timeout: intervalMs + 5000 };
  return url.startsWith('https:') ? new https.Agent(options) : new http.Agent(options);
}

/** Errors of a kept connection the peer closed before or while our request went out. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

/** GETs `url`; throws ScrapeError with a message for the targets page. */
export async function fetchExposition(url: string, job: FetchJob, timeoutMs: number, agent?: http.Agent): Promise<Exposition> {
  // A timer that destroys the request, not an AbortSignal handed to http.request: the
  // signal's listeners cost about a twentieth of the scrape workload's request thread.
  let timedOut = false;
  let current: http.ClientRequest | null = null;
  const timer = setTimeout(() => {
    timedOut = true;
    current?.destroy();
  }, timeoutMs);
  timer.unref();
  try {
    const origin = new URL(url);
    let target = origin;
    for (let hops = 0; ; hops++) {
      // the target's kept connections and its credentials serve its own host only
      const same = target.host === origin.host;
      const answer = await get(target.href, job, timeoutMs, same && target.protocol === origin.protocol ? agent : undefined, same, () => timedOut, (req) => { current = req; });
      if (!('status' in answer)) return answer;
      const status = `server returned HTTP status ${answer.status}`;
      if (job.followRedirects === false) throw new ScrapeError(`${status} (follow_redirects is false)`);
      if (hops === MAX_REDIRECTS) throw new ScrapeError(`${status}: stopped after ${MAX_REDIRECTS} redirects`);
      let next: URL;
      try {
        next = new URL(answer.location, target);
      } catch {
        throw new ScrapeError(`${status} to a bad Location ${JSON.stringify(answer.location.slice(0, 100))}`);
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new ScrapeError(`${status} to ${next.protocol} (only http and https are scraped)`);
      target = next;
    }
  } finally {
    clearTimeout(timer);
  }
}

async function get(
  url: string, job: FetchJob, timeoutMs: number, agent: http.Agent | undefined, withAuth: boolean,
  timedOut: () => boolean, sent: (req: http.ClientRequest) => void,
): Promise<Exposition | Redirect> {
  const timeout = `timeout after ${timeoutMs} ms`;
  const headers: http.OutgoingHttpHeaders = {
    accept: SCRAPE_ACCEPT,
    'accept-encoding': 'gzip',
    'user-agent': USER_AGENT,
    'x-prometheus-scrape-timeout-seconds': (timeoutMs / 1000).toString(),
  };
  const auth = withAuth ? await authorizationHeader(job) : null;
  if (auth) headers.authorization = auth;
  const isHttps = url.startsWith('https:');
  const options: https.RequestOptions = { method: 'GET', headers, ...(agent ? { agent } : {}), ...(isHttps ? await tlsOptions(job) : {}) };
  return new Promise<Exposition | Redirect>((resolve, reject) => {
    const fail = (message: string) => reject(new ScrapeError(message));
    const send = (retry: boolean): void => {
      if (timedOut()) { fail(timeout); return; }
      let answered = false;
      const req = (isHttps ? https : http).request(url, options, (res) => {
        answered = true;
        const location = res.headers.location;
        if (REDIRECTS.has(res.statusCode!) && location) {
          res.resume();
          resolve({ status: res.statusCode!, location });
          return;
        }
        if (res.statusCode !== 200) {
          res.resume();
          fail(`server returned HTTP status ${res.statusCode} ${res.statusMessage ?? ''}`.trimEnd());
          return;
        }
        const encoding = (res.headers['content-encoding'] ?? 'identity').toLowerCase();
        let body: Readable = res;
        if (encoding === 'gzip') body = res.pipe(createGunzip());
        else if (encoding !== 'identity') {
          res.resume();
          fail(`unsupported Content-Encoding "${encoding}"`);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        const limit = effectiveBodyLimit(job.bodySizeLimit);
        body.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) {
            // the reason first: destroying the streams reports a closed connection too
            fail(limit === job.bodySizeLimit ? `body size limit exceeded (${limit} bytes)` : `body size limit exceeded (${limit} bytes: Gaugeway's ceiling, which body_size_limit 0 or larger means)`);
            // the decompressor too: a gzip bomb's buffered input would go on inflating
            body.destroy();
            req.destroy();
            return;
          }
          chunks.push(chunk);
        });
        body.on('error', (e) => fail(timedOut() ? timeout : `cannot read the body: ${e.message}`));
        res.on('aborted', () => fail(timedOut() ? timeout : 'the connection closed before the body ended'));
        body.on('end', () => resolve({ contentType: res.headers['content-type'] ?? null, body: Buffer.concat(chunks, size) }));
      });
      sent(req);
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (retry && req.reusedSocket && !answered && !timedOut() && STALE_CONNECTION.has(e.code ?? '')) send(false);
        else fail(timedOut() ? timeout : e.message);
      });
      req.end();
    };
    send(true);
  });
}
