// A target's HTTP/1.1 connection, kept open between scrapes as Prometheus keeps it, one
// request at a time (a target loop never scrapes twice at once). Why not node:http: at
// the scrape workload's pace (100 targets every 5 s, 50 kB expositions) its request and
// response objects, agent bookkeeping and streams cost about 800 µs of CPU a scrape, and
// undici's Client the same; a socket written and read directly costs about 400 µs (bench
// notes, "The scrape client"). A scrape needs one GET and its answer, nothing else of HTTP.
import net from 'node:net';
import tls from 'node:tls';
import { ResponseParser, type ResponseLimits } from './http-response.js';

export interface HttpAnswer {
  status: number;
  statusText: string;
  headers: ReadonlyMap<string, string>;
  body: Buffer;
}

/** The TLS settings of a connection (the job's files, read at each scrape). */
export interface TlsSettings {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  servername?: string;
  rejectUnauthorized: boolean;
}

/** A request that failed on a kept connection the peer had closed meanwhile: worth one retry. */
class StaleConnection extends Error {}

/** Errors of a kept connection the peer closed before or while our request went out. */
const STALE_CODES = new Set(['ECONNRESET', 'EPIPE']);

interface Exchange {
  parser: ResponseParser;
  resolve: (answer: HttpAnswer) => void;
  reject: (error: Error) => void;
  reused: boolean;
}

export class TargetConnection {
  private socket: net.Socket | null = null;
  private tlsInUse: TlsSettings | null = null;
  private exchange: Exchange | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly host: string;
  private readonly port: number;

  /**
   * `origin` is the target's URL (its scheme, host and port are used); an idle connection
   * is closed after `idleMs`, or sooner when the server's Keep-Alive says so.
   */
  constructor(origin: URL, private readonly idleMs: number) {
    this.host = origin.hostname.startsWith('[') ? origin.hostname.slice(1, -1) : origin.hostname;
    this.port = origin.port ? Number(origin.port) : origin.protocol === 'https:' ? 443 : 80;
  }

  /**
   * Sends `request` (a whole GET, head and blank line) and reads its answer. A request on
   * a kept connection that the server closed meanwhile is sent once more on a new one.
   */
  async request(request: Buffer, tlsSettings: TlsSettings | null, limits: ResponseLimits): Promise<HttpAnswer> {
    const reused = this.socket !== null && sameTls(this.tlsInUse, tlsSettings);
    try {
      return await this.send(request, tlsSettings, limits, reused);
    } catch (e) {
      if (!(e instanceof StaleConnection)) throw e;
      return this.send(request, tlsSettings, limits, false);
    }
  }

  /** Closes the connection; a request in flight fails. */
  destroy(error: Error = new Error('the connection was closed')): void {
    this.drop(error);
  }

  private send(request: Buffer, tlsSettings: TlsSettings | null, limits: ResponseLimits, reuse: boolean): Promise<HttpAnswer> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (!reuse) this.drop(null);
    const socket = this.socket ?? this.open(tlsSettings);
    socket.ref();
    return new Promise<HttpAnswer>((resolve, reject) => {
      this.exchange = { parser: new ResponseParser(limits), resolve, reject, reused: reuse };
      socket.write(request);
    });
  }

  private open(tlsSettings: TlsSettings | null): net.Socket {
    const socket = tlsSettings
      ? tls.connect({ host: this.host, port: this.port, ...tlsSettings, servername: tlsSettings.servername ?? (net.isIP(this.host) ? undefined : this.host) })
      : net.connect({ host: this.host, port: this.port });
    socket.setNoDelay(true);
    this.socket = socket;
    this.tlsInUse = tlsSettings;
    // One set of listeners for the socket's life: adding and removing them per request
    // costs more than the dispatch on `this.socket`.
    socket.on('data', (chunk: Buffer) => { if (socket === this.socket) this.onData(chunk); });
    socket.on('end', () => { if (socket === this.socket) this.onEnd(); });
    socket.on('error', (e: NodeJS.ErrnoException) => { if (socket === this.socket) this.onError(e); });
    socket.on('close', () => { if (socket === this.socket) this.drop(closedEarly(this.exchange?.parser)); });
    return socket;
  }

  private onData(chunk: Buffer): void {
    const exchange = this.exchange;
    if (exchange === null) {
      // bytes nobody asked for: the connection can no longer be trusted
      this.drop(null);
      return;
    }
    let done: boolean;
    try {
      done = exchange.parser.push(chunk);
    } catch (e) {
      this.drop(e as Error);
      return;
    }
    if (done) this.finish(exchange);
  }

  private onEnd(): void {
    const exchange = this.exchange;
    if (exchange === null) {
      this.drop(null);
      return;
    }
    if (exchange.parser.end()) {
      exchange.parser.keepAlive = false;
      this.finish(exchange);
      return;
    }
    this.drop(exchange.reused && !exchange.parser.started ? new StaleConnection() : closedEarly(exchange.parser));
  }

  private onError(e: NodeJS.ErrnoException): void {
    const exchange = this.exchange;
    this.drop(exchange?.reused && !exchange.parser.started && STALE_CODES.has(e.code ?? '') ? new StaleConnection() : readable(e));
  }

  private finish(exchange: Exchange): void {
    const { parser } = exchange;
    this.exchange = null;
    if (parser.keepAlive) this.idle(keepAliveMs(parser.headers.get('keep-alive'), this.idleMs));
    else this.drop(null);
    exchange.resolve({ status: parser.status, statusText: parser.statusText, headers: parser.headers, body: parser.bodyBuffer() });
  }

  /** Keeps the connection for the next scrape, without holding the process open for it. */
  private idle(ms: number): void {
    this.socket?.unref();
    this.idleTimer = setTimeout(() => this.drop(null), ms);
    this.idleTimer.unref();
  }

  /** Forgets the socket; a request in flight fails with `error`. */
  private drop(error: Error | null): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const socket = this.socket;
    this.socket = null;
    this.tlsInUse = null;
    socket?.destroy();
    const exchange = this.exchange;
    this.exchange = null;
    if (exchange) exchange.reject(error ?? new Error('the connection was closed'));
  }
}

/**
 * OpenSSL's messages carry its thread, error code, function and source file ("80DC02561D7F0000:
 * error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/...");
 * the targets page shows the reason alone.
 */
function readable(e: Error): Error {
  const reason = /:error:[0-9A-F]+:[^:]*:[^:]*:([^:\n]+)/.exec(e.message)?.[1];
  return reason === undefined ? e : new Error(`TLS: ${reason}`);
}

/** What the targets page says of a connection closed before the answer ended: how far it got. */
function closedEarly(parser: ResponseParser | undefined): Error {
  if (parser === undefined || !parser.started) return new Error('the server closed the connection without answering');
  // the status is set once the final (not 1xx) head is read
  if (parser.status === 0) return new Error('the connection closed before the response headers ended');
  return new Error('the connection closed before the body ended');
}

/** The server's Keep-Alive `timeout=N` wins when shorter, less a margin against the race of its close. */
function keepAliveMs(header: string | undefined, idleMs: number): number {
  const hint = header === undefined ? null : /(?:^|[\s,])timeout=(\d+)/i.exec(header);
  if (hint === null) return idleMs;
  return Math.min(idleMs, Math.max(0, Number(hint[1]) * 1000 - 500));
}

function sameTls(a: TlsSettings | null, b: TlsSettings | null): boolean {
  if (a === null || b === null) return a === b;
  const same = (x?: Buffer, y?: Buffer) => (x === undefined ? y === undefined : y !== undefined && x.equals(y));
  return same(a.ca, b.ca) && same(a.cert, b.cert) && same(a.key, b.key) && a.servername === b.servername && a.rejectUnauthorized === b.rejectUnauthorized;
}
