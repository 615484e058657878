// Requests Node's HTTP parser refuses before Koa sees them (headers too large, a bad
// Content-Length, headers that never finish) get the API's `errors` envelope too, not
// Node's bare status line: a client reading error bodies finds what went wrong.
import type { Socket } from 'node:net';
import type { Middleware } from 'koa';
import { ApiError } from '../errors.js';

/** Node's maxHeaderSize for the API's servers */
export const MAX_HEADER_BYTES = 16 * 1024;

interface ClientErrorLike extends Error {
  code?: string;
}

/** status and message for a parser error code */
function verdict(code: string | undefined): [number, string, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW': return [431, 'Request Header Fields Too Large', `The request headers are larger than ${MAX_HEADER_BYTES / 1024} KB`];
    case 'ERR_HTTP_REQUEST_TIMEOUT': return [408, 'Request Timeout', 'The request headers or body did not arrive in time'];
    default: return [400, 'Bad Request', `The request is not valid HTTP/1.1${code ? ` (${code})` : ''}`];
  }
}

/** The `clientError` listener of the API's HTTP and HTTPS servers. */
export function answerClientError(err: ClientErrorLike, socket: Socket): void {
  // a reset or a socket that already sent a response: nothing can be said any more
  const pending = Reflect.get(socket, '_httpMessage') as { headersSent?: boolean } | null | undefined;
  if (err.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason, message] = verdict(err.code);
  const body = JSON.stringify({ errors: { request: [message] } });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * HTTP/1.1 requires a Host header. Node's own check answered a bare 400 with no body, so
 * the servers leave it to this middleware (`requireHostHeader: false`), which answers in
 * the envelope.
 */
export function requireHost(): Middleware {
  return async (ctx, next) => {
    if (ctx.req.httpVersion === '1.1' && ctx.req.headers.host === undefined) {
      throw new ApiError(400, { request: ['The Host header is required (HTTP/1.1)'] });
    }
    await next();
  };
}
