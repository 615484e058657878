// One HTTP(S) GET of a target's exposition, as Prometheus sends it: its Accept header,
// gzip accepted, X-Prometheus-Scrape-Timeout-Seconds, the job's auth and TLS settings.
// The timeout covers the whole exchange (connect to last byte). The body is bounded as it
// arrives (a gzipped one by its compressed size first, then by the limit as it inflates),
// so a huge target costs no more memory than the limit. Secrets in files are read at each
// scrape, so a rotated password or certificate applies without a reload.
// Connections are kept open between scrapes (each target loop has its own, connection.ts),
// as Prometheus keeps them: a new TCP connection and its teardown every scrape once cost
// more server CPU than parsing the exposition.
// Redirects are followed as Prometheus's client follows them (follow_redirects, default
// true): at most 10, within the one timeout, the job's credentials only to the same host.
import { readFile } from 'node:fs/promises';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { TargetConnection, type HttpAnswer, type TlsSettings } from './connection.js';
import { BodyTooLargeError } from './http-response.js';
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

const gunzipAsync = promisify(gunzip);

async function tlsSettings(job: Auth): Promise<TlsSettings> {
  const tls = job.tls;
  if (!tls) return { rejectUnauthorized: true };
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

/** The connection a target loop keeps to its target between scrapes; closed by the loop's stop(). */
export function targetConnection(url: string, intervalMs: number): TargetConnection {
  // Idle a little longer than one interval, so the next scrape finds the connection; a
  // target's own shorter Keep-Alive timeout still wins.
  return new TargetConnection(new URL(url), intervalMs + 5000);
}

/** GETs `url`; throws ScrapeError with a message for the targets page. */
export async function fetchExposition(url: string, job: FetchJob, timeoutMs: number, connection?: TargetConnection): Promise<Exposition> {
  // A timer that closes the connection: the exchange in flight then fails, and the next
  // scrape opens a new one.
  let timedOut = false;
  let current: TargetConnection | null = null;
  const timer = setTimeout(() => {
    timedOut = true;
    current?.destroy();
  }, timeoutMs);
  timer.unref();
  try {
    const origin = new URL(url);
    let target = origin;
    for (let hops = 0; ; hops++) {
      // the target's kept connection and its credentials serve its own host only
      const same = target.host === origin.host;
      const kept = same && target.protocol === origin.protocol ? connection : undefined;
      current = kept ?? new TargetConnection(target, 0);
      let answer: Exposition | Redirect;
      try {
        answer = await get(target, job, timeoutMs, current, same, () => timedOut);
      } catch (e) {
        if (timedOut) throw new ScrapeError(`timeout after ${timeoutMs} ms`);
        throw e instanceof ScrapeError ? e : new ScrapeError((e as Error).message);
      } finally {
        if (!kept) current.destroy();
      }
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

/** Response headers of real exporters are a few hundred bytes; Node's own limit is 16 KiB. */
const MAX_HEADER_BYTES = 64 * 1024;

/**
 * What a header value cannot carry (RFC 9110 5.5): a line break would end it early and
 * smuggle in another header or request, other control characters are refused by servers,
 * and a character past Latin-1 would be cut to its low byte by the request's encoding.
 */
const NOT_HEADER_TEXT = /[^\t\x20-\x7e\x80-\xff]/;

async function get(
  url: URL, job: FetchJob, timeoutMs: number, connection: TargetConnection, withAuth: boolean, timedOut: () => boolean,
): Promise<Exposition | Redirect> {
  const auth = withAuth ? await authorizationHeader(job) : null;
  if (auth !== null && NOT_HEADER_TEXT.test(auth)) throw new ScrapeError('the credentials hold a character no HTTP header can carry (a line break, another control character, or one beyond Latin-1)');
  const request = Buffer.from(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nUser-Agent: ${USER_AGENT}\r\nAccept: ${SCRAPE_ACCEPT}\r\n`
    + `Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: ${timeoutMs / 1000}\r\n${auth === null ? '' : `Authorization: ${auth}\r\n`}\r\n`, 'latin1');
  const limit = effectiveBodyLimit(job.bodySizeLimit);
  const tooLarge = () => new ScrapeError(limit === job.bodySizeLimit
    ? `body size limit exceeded (${limit} bytes)`
    : `body size limit exceeded (${limit} bytes: Gaugeway's ceiling, which body_size_limit 0 or larger means)`);
  const tls = url.protocol === 'https:' ? await tlsSettings(job) : null;
  // The timer closes the exchange in flight; one that fired while the files above were read
  // (a slow disk, a thread pool busy inflating bodies) closed none, and a request sent now
  // would wait forever.
  if (timedOut()) throw new ScrapeError('timed out before the request was sent');
  let answer: HttpAnswer;
  try {
    answer = await connection.request(request, tls, {
      headerBytes: MAX_HEADER_BYTES,
      // A gzipped body is bounded after decompression; before it, by the limit with room
      // for gzip's framing of data that does not compress (a few bytes every 16 kB).
      bodyBytes: (headers) => (isGzip(headers) ? limit + Math.ceil(limit / 1024) + 1024 : limit),
    });
  } catch (e) {
    throw e instanceof BodyTooLargeError ? tooLarge() : e;
  }
  const location = answer.headers.get('location');
  if (REDIRECTS.has(answer.status) && location) return { status: answer.status, location };
  if (answer.status !== 200) throw new ScrapeError(`server returned HTTP status ${answer.status} ${answer.statusText}`.trimEnd());
  const encoding = (answer.headers.get('content-encoding') ?? 'identity').toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip') throw new ScrapeError(`unsupported Content-Encoding "${encoding}"`);
  const contentType = answer.headers.get('content-type') ?? null;
  if (encoding === 'identity') return { contentType, body: answer.body };
  try {
    // on the thread pool, and cut at the limit: a gzip bomb inflates no further
    return { contentType, body: await gunzipAsync(answer.body, { maxOutputLength: limit }) };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
    throw new ScrapeError(`cannot read the body: ${(e as Error).message}`);
  }
}

function isGzip(headers: ReadonlyMap<string, string>): boolean {
  return (headers.get('content-encoding') ?? '').toLowerCase() === 'gzip';
}
