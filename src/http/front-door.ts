// One TCP port for HTTPS and plain HTTP: a TLS client's first byte is a handshake
// record (0x16); anything else is plain HTTP, which the app answers with the spec's 403
// (or /health, /ready, /metrics). The two http servers never listen themselves, so this
// module also does what their own listen() would: connection tracking (which enforces
// headers/request timeouts) and a graceful drain on shutdown.
import net from 'node:net';
import type http from 'node:http';
import type https from 'node:https';

/** Connections that have not sent a first byte within this time are dropped. */
const FIRST_BYTE_TIMEOUT_MS = 10_000;
const TLS_HANDSHAKE = 0x16;
/**
 * Once the server has ended its side of a connection, how long the client has to read
 * the answer and end its own before the connection is destroyed.
 */
const HALF_CLOSED_MS = 2000;
/**
 * How long an answer may wait, wholly unread, in a connection's buffer before the
 * connection is destroyed (any progress restarts the wait).
 */
const STALLED_WRITE_MS = 30_000;

export interface FrontDoor {
  server: net.Server;
  listen(port: number, host: string): Promise<net.AddressInfo>;
  /**
   * Stops accepting, lets in-flight requests finish (answering them with
   * `Connection: close`), and after `timeoutMs` cuts whatever is left.
   */
  drain(timeoutMs: number): Promise<void>;
}

export interface FrontDoorOptions {
  maxConnections: number;
  /** called with +1 when a request starts and -1 when its response is done */
  onInFlight?: (delta: 1 | -1) => void;
  /** STALLED_WRITE_MS by default (tests take less) */
  stalledWriteMs?: number;
}

export function createFrontDoor(secure: https.Server, plain: http.Server, opts: FrontDoorOptions): FrontDoor {
  const sockets = new Set<net.Socket>();
  const routed = new WeakSet<net.Socket>();
  const open = new Set<http.ServerResponse>();
  let draining = false;
  let onIdle: (() => void) | null = null;

  const front = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      socket.setTimeout(0);
      socket.pause();
      socket.unshift(first);
      routed.add(socket);
      (first[0] === TLS_HANDSHAKE ? secure : plain).emit('connection', socket);
      process.nextTick(() => socket.resume());
    });
  });
  front.maxConnections = opts.maxConnections;

  // After refusing a request its parser cannot take (408 for headers or a body too slow,
  // 400, 431: client-error.ts) the server ends its side and waits for the client's end. A
  // client that never reads never sends one, so each such connection stayed open for good,
  // counted against max_connections: a few hundred of them let nobody in any more. Node
  // destroys the connections it closes itself once the answer is written; every other
  // ended connection is destroyed here, a moment later.
  const reap = (socket: net.Socket) => {
    socket.once('finish', () => setTimeout(() => socket.destroy(), HALF_CLOSED_MS).unref());
  };
  secure.on('secureConnection', reap);
  plain.on('connection', reap);

  for (const server of [secure, plain]) {
    // http.Server starts tracking connections (and so enforcing headersTimeout and
    // requestTimeout, and supporting closeIdleConnections) on 'listening'.
    server.emit('listening');
    // before the app's own listener: an answer it ends at once must find these in place
    server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
      open.add(res);
      opts.onInFlight?.(1);
      if (draining) closeAfter(res);
      // An answer the client never reads stays in the socket's buffer, and the connection
      // with it, counted against max_connections: a few hundred clients that ask for a
      // large answer and stop reading let nobody in. Once the answer is all handed over,
      // a socket timeout ends a connection that makes no progress at all (Node's handler
      // destroys it); a finished answer gives the socket back to the keep-alive timeout.
      res.once('prefinish', () => {
        const socket = res.socket;
        if (socket && socket.writableLength > 0) socket.setTimeout(opts.stalledWriteMs ?? STALLED_WRITE_MS);
      });
      res.once('close', () => {
        open.delete(res);
        opts.onInFlight?.(-1);
        if (open.size === 0) onIdle?.();
      });
    });
  }

  return {
    server: front,
    listen: (port, host) => new Promise((resolve, reject) => {
      front.once('error', reject);
      front.listen(port, host, () => { front.off('error', reject); resolve(front.address() as net.AddressInfo); });
    }),
    async drain(timeoutMs) {
      draining = true;
      const closed = new Promise<void>((resolve) => front.close(() => resolve()));
      for (const socket of sockets) if (!routed.has(socket)) socket.destroy();
      for (const res of open) closeAfter(res);
      secure.closeIdleConnections();
      plain.closeIdleConnections();
      if (open.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          onIdle = resolve;
          timer = setTimeout(resolve, timeoutMs);
        });
        clearTimeout(timer);
      }
      for (const server of [secure, plain]) { server.closeAllConnections(); server.close(); }
      for (const socket of sockets) socket.destroy(); // e.g. TLS handshakes still in progress
      await closed;
    },
  };
}

/** The response still in progress ends its connection instead of keeping it alive. */
function closeAfter(res: http.ServerResponse): void {
  if (res.headersSent) return;
  res.shouldKeepAlive = false;
  res.setHeader('Connection', 'close');
}
