// An HTTP/1.1 response read from the bytes of a connection, for the scrape client
// (connection.ts). Pure: bytes in, status, headers and body out, every limit enforced as
// the bytes arrive. The framing follows RFC 9112 section 6.3: no body for 1xx, 204 and
// 304; Transfer-Encoding ending in chunked; else Content-Length; else the body runs to
// the end of the connection. Lines may end in a bare LF, as Go's and Node's clients accept.

export class HttpResponseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpResponseError';
  }
}

/** The body passed the limit the caller set for it (its message is the caller's to write). */
export class BodyTooLargeError extends HttpResponseError {
  constructor(readonly limit: number) {
    super(`body larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

export interface ResponseLimits {
  /** status line, headers and trailers together */
  headerBytes: number;
  /** the body's limit as read off the wire, decided once the headers are known */
  bodyBytes(headers: ReadonlyMap<string, string>): number;
}

const enum State { Head, Body, UntilClose, ChunkSize, ChunkData, ChunkEnd, Trailers, Done }

const EMPTY = Buffer.alloc(0);
const LF = 0x0a;
const CR = 0x0d;
/** a chunk-size line with extensions; real ones are a few bytes */
const MAX_CHUNK_LINE = 1024;
/**
 * A body piece shorter than this is copied into a shared buffer rather than kept as a view
 * on its read: a view costs a Buffer object (about 100 bytes of heap) whatever its length,
 * so a target sending 1-byte chunks, or its body a byte a read, held 100 times its body's
 * size. Real bodies arrive in pieces of kilobytes, kept as views without a copy.
 */
const SMALL_PIECE = 1024;
const GATHER_BYTES = 16 * 1024;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: (.*))?$/;

export class ResponseParser {
  status = 0;
  statusText = '';
  /** header names in lower case; a repeated header's values joined with ", " */
  headers: Map<string, string> = new Map();
  /** the connection may carry another request after this response */
  keepAlive = false;
  /** some byte of the response has arrived */
  started = false;

  private state = State.Head;
  private version = 1;
  /**
   * The head so far while it spans reads: its first `headLength` bytes. Grown by doubling,
   * so a head trickled a byte a read is copied about twice in all, not once a byte (64 kB
   * of it cost 1.8 GB of copying).
   */
  private head: Buffer = EMPTY;
  private headLength = 0;
  private readonly body: Buffer[] = [];
  private bodySize = 0;
  private bodyLimit = Infinity;
  /** where small body pieces are copied, its first `gathered` bytes not yet in `body` */
  private gather: Buffer | null = null;
  private gathered = 0;
  /** bytes left of the body (Content-Length) or of the current chunk */
  private remaining = 0;
  /** a chunk-size or trailer line not yet ended */
  private line = '';
  private trailerBytes = 0;
  /** the 1xx heads read so far */
  private informationalBytes = 0;

  constructor(private readonly limits: ResponseLimits) {}

  get complete(): boolean {
    return this.state === State.Done;
  }

  /** The body, once complete. */
  bodyBuffer(): Buffer {
    if (this.gathered > 0) this.flushGathered();
    return this.body.length === 1 ? this.body[0] : Buffer.concat(this.body, this.bodySize);
  }

  /** Feeds the next bytes; true once the response is complete. Throws HttpResponseError. */
  push(chunk: Buffer): boolean {
    if (chunk.length > 0) this.started = true;
    let at = 0;
    while (at < chunk.length) {
      switch (this.state) {
        case State.Head: at = this.readHead(chunk, at); break;
        case State.Body: at = this.takeRemaining(chunk, at, State.Done); break;
        case State.UntilClose:
          this.take(chunk, at, chunk.length - at);
          at = chunk.length;
          break;
        case State.ChunkSize: at = this.readChunkSize(chunk, at); break;
        case State.ChunkData: at = this.takeRemaining(chunk, at, State.ChunkEnd); break;
        case State.ChunkEnd: {
          const byte = chunk[at++];
          if (byte === CR && this.line === '') this.line = '\r';
          else if (byte === LF) { this.line = ''; this.state = State.ChunkSize; }
          else throw new HttpResponseError('malformed chunked body: a chunk does not end with CRLF');
          break;
        }
        case State.Trailers: at = this.readTrailers(chunk, at); break;
        case State.Done:
          // We never send a second request before this answer ends: bytes after it are
          // the server's mistake, and the connection cannot be trusted for another one.
          this.keepAlive = false;
          return true;
      }
    }
    return this.state === State.Done;
  }

  /** The peer closed the connection: true if that ended the response (a body read to the end). */
  end(): boolean {
    if (this.state === State.UntilClose) this.state = State.Done;
    return this.state === State.Done;
  }

  /** Takes what is left of a framed body or chunk, then moves to `next`. */
  private takeRemaining(chunk: Buffer, at: number, next: State): number {
    const n = Math.min(this.remaining, chunk.length - at);
    this.take(chunk, at, n);
    this.remaining -= n;
    if (this.remaining === 0) this.state = next;
    return at + n;
  }

  private take(chunk: Buffer, at: number, n: number): void {
    if (n === 0) return;
    this.bodySize += n;
    if (this.bodySize > this.bodyLimit) throw new BodyTooLargeError(this.bodyLimit);
    if (n >= SMALL_PIECE) {
      if (this.gathered > 0) this.flushGathered();
      this.body.push(at === 0 && n === chunk.length ? chunk : chunk.subarray(at, at + n));
      return;
    }
    if (this.gather === null || this.gathered + n > this.gather.length) {
      if (this.gathered > 0) this.flushGathered();
      this.gather = Buffer.allocUnsafe(GATHER_BYTES);
    }
    chunk.copy(this.gather, this.gathered, at, at + n);
    this.gathered += n;
  }

  /** Moves the gathered small pieces into the body; the rest of the buffer gathers the next ones. */
  private flushGathered(): void {
    const gather = this.gather!;
    this.body.push(gather.subarray(0, this.gathered));
    this.gather = gather.subarray(this.gathered);
    this.gathered = 0;
  }

  private readHead(chunk: Buffer, at: number): number {
    const before = this.headLength;
    let head: Buffer;
    if (before === 0) {
      // the usual case: the whole head in one read, looked at in place
      head = chunk.subarray(at);
    } else {
      const n = chunk.length - at;
      // a view on a read is never written to: then head.length === headLength, and it grows
      if (before + n > this.head.length) {
        const grown = Buffer.allocUnsafe(Math.max(before + n, 2 * this.head.length));
        this.head.copy(grown, 0, 0, before);
        this.head = grown;
      }
      chunk.copy(this.head, before, at);
      head = this.head.subarray(0, before + n);
    }
    // the blank line may straddle the previous bytes: look from a little before them
    const end = headEnd(head, Math.max(0, before - 3));
    if (end === null) {
      if (head.length > this.limits.headerBytes) throw new HttpResponseError(`response headers larger than ${this.limits.headerBytes} bytes`);
      if (before === 0) this.head = head;
      this.headLength = head.length;
      return chunk.length;
    }
    if (end.start > this.limits.headerBytes) throw new HttpResponseError(`response headers larger than ${this.limits.headerBytes} bytes`);
    const text = head.toString('latin1', 0, end.start);
    const used = end.next - before;
    this.head = EMPTY;
    this.headLength = 0;
    this.parseHead(text);
    return at + used;
  }

  private parseHead(text: string): void {
    const lines = text.split('\n');
    const status = STATUS_LINE.exec(stripCr(lines[0]));
    if (!status) throw new HttpResponseError(`malformed status line ${JSON.stringify(stripCr(lines[0]).slice(0, 80))}`);
    const headers = new Map<string, string>();
    let key = '';
    /** the header being read is a repeat of a single-valued one: its lines are dropped */
    let dropping = false;
    for (let i = 1; i < lines.length; i++) {
      const line = stripCr(lines[i]);
      if ((line[0] === ' ' || line[0] === '\t') && key !== '') {
        // obsolete line folding continues the header above: RFC 9112 5.2 has a user agent
        // read it as a space, and Go's client (Prometheus's) accepts it
        if (!dropping) headers.set(key, `${headers.get(key)} ${line.trim()}`.trim());
        continue;
      }
      const colon = line.indexOf(':');
      const name = colon > 0 ? line.slice(0, colon) : '';
      if (!TOKEN.test(name)) throw new HttpResponseError(`malformed header line ${JSON.stringify(line.slice(0, 80))}`);
      key = name.toLowerCase();
      const value = line.slice(colon + 1).trim();
      const seen = headers.get(key);
      dropping = seen !== undefined && FIRST_VALUE_ONLY.has(key);
      if (!dropping) headers.set(key, seen === undefined ? value : `${seen}, ${value}`);
    }
    const code = Number(status[2]);
    if (code < 200) {
      // 100 Continue and 103 Early Hints come before the answer; 101 would change protocol
      if (code === 101) throw new HttpResponseError('the server switched protocols');
      // within the header limit all together, or a target could send them until the timeout
      this.informationalBytes += text.length;
      if (this.informationalBytes > this.limits.headerBytes) throw new HttpResponseError('too many 1xx informational responses');
      return;
    }
    this.version = Number(status[1]);
    this.status = code;
    this.statusText = status[3] ?? '';
    this.headers = headers;
    this.frame();
  }

  /** How the body is delimited, and whether the connection stays open after it. */
  private frame(): void {
    const connection = tokens(this.headers.get('connection'));
    this.keepAlive = this.version === 1 ? !connection.includes('close') : connection.includes('keep-alive');
    this.bodyLimit = this.limits.bodyBytes(this.headers);
    if (this.status === 204 || this.status === 304) {
      this.state = State.Done;
      return;
    }
    const te = this.headers.get('transfer-encoding');
    if (te !== undefined) {
      const codings = tokens(te);
      if (codings.length === 1 && codings[0] === 'chunked') {
        this.state = State.ChunkSize;
        // with a Content-Length too, the two framings may be a desync attempt (RFC 9112 6.3):
        // chunked wins, and the connection carries nothing more
        if (this.headers.has('content-length')) this.keepAlive = false;
      } else if (codings.every((coding) => coding === 'identity')) {
        // RFC 2616's no-op coding: the body runs to the close
        this.state = State.UntilClose;
        this.keepAlive = false;
      } else {
        // gzip and the like, chunked or not: Go's client refuses them too (read to the close,
        // the parser would be handed compressed bytes)
        throw new HttpResponseError(`unsupported Transfer-Encoding "${te.slice(0, 40)}"`);
      }
      return;
    }
    const cl = this.headers.get('content-length');
    if (cl !== undefined) {
      const values = new Set(cl.split(',').map((v) => v.trim()));
      const [value] = values;
      if (values.size !== 1 || !/^\d{1,15}$/.test(value)) throw new HttpResponseError(`malformed Content-Length "${cl.slice(0, 40)}"`);
      this.remaining = Number(value);
      if (this.remaining > this.bodyLimit) throw new BodyTooLargeError(this.bodyLimit);
      this.state = this.remaining === 0 ? State.Done : State.Body;
      return;
    }
    this.state = State.UntilClose;
    this.keepAlive = false;
  }

  private readChunkSize(chunk: Buffer, at: number): number {
    const lf = chunk.indexOf(LF, at);
    const end = lf === -1 ? chunk.length : lf;
    this.line += chunk.toString('latin1', at, end);
    if (this.line.length > MAX_CHUNK_LINE) throw new HttpResponseError('malformed chunked body: a chunk-size line is too long');
    if (lf === -1) return chunk.length;
    const semicolon = this.line.indexOf(';');
    const size = stripCr(semicolon === -1 ? this.line : this.line.slice(0, semicolon)).trim();
    this.line = '';
    // leading zeros as Go's client reads them; 12 more digits are 256 TB, past any limit
    if (!/^0*[0-9a-fA-F]{1,12}$/.test(size)) throw new HttpResponseError(`malformed chunked body: chunk size ${JSON.stringify(size.slice(0, 20))}`);
    this.remaining = parseInt(size, 16);
    this.state = this.remaining === 0 ? State.Trailers : State.ChunkData;
    return lf + 1;
  }

  private readTrailers(chunk: Buffer, at: number): number {
    const lf = chunk.indexOf(LF, at);
    const end = lf === -1 ? chunk.length : lf;
    this.trailerBytes += end - at;
    if (this.trailerBytes > this.limits.headerBytes) throw new HttpResponseError(`response trailers larger than ${this.limits.headerBytes} bytes`);
    this.line += chunk.toString('latin1', at, end);
    if (lf === -1) return chunk.length;
    // trailers carry nothing a scrape uses; an empty line ends them and the response
    if (stripCr(this.line) === '') this.state = State.Done;
    this.line = '';
    return lf + 1;
  }
}

/**
 * Headers that hold one value, not a list: a repeat is not joined to the first (a joined
 * Location is no address, a joined Content-Type no media type). The first counts, as
 * Prometheus reads them (Go's Header.Get).
 */
const FIRST_VALUE_ONLY: ReadonlySet<string> = new Set(['location', 'content-type', 'content-encoding']);

/** Where the blank line after the headers starts and the bytes after it begin. */
function headEnd(buf: Buffer, from: number): { start: number; next: number } | null {
  for (let lf = buf.indexOf(LF, from); lf !== -1; lf = buf.indexOf(LF, lf + 1)) {
    if (buf[lf + 1] === LF) return { start: lf, next: lf + 2 };
    if (buf[lf + 1] === CR && buf[lf + 2] === LF) return { start: lf, next: lf + 3 };
  }
  return null;
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}

function tokens(value: string | undefined): string[] {
  return value === undefined ? [] : value.toLowerCase().split(',').map((v) => v.trim()).filter(Boolean);
}
