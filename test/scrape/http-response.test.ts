// The scrape client's response parser (src/scrape/http-response.ts): framing, limits and
// malformed answers, with every response also fed split at each byte (a TCP read may end
// anywhere).
import t from 'tap';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ResponseParser, HttpResponseError, BodyTooLargeError, type ResponseLimits } from '../../src/scrape/http-response.js';

const limits = (bodyBytes = 1 << 20, headerBytes = 1024): ResponseLimits => ({ headerBytes, bodyBytes: () => bodyBytes });

/** Feeds `text` in pieces cut at `cuts`; the parser and whether it finished. */
function feed(text: string | Buffer, cuts: number[] = [], lim = limits(), closed = false): { p: ResponseParser; done: boolean } {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'latin1') : text;
  const p = new ResponseParser(lim);
  let done = false;
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > at) done = p.push(bytes.subarray(at, cut)) || done;
    at = Math.max(at, cut);
  }
  if (closed && !done) done = p.end();
  return { p, done };
}

/** The same response split at every byte must read the same. */
function everySplit(t: Tap.Test, text: string, expect: { status: number; body: string; keepAlive: boolean }, closed = false): void {
  for (let cut = 0; cut <= text.length; cut++) {
    const { p, done } = feed(text, [cut], limits(), closed);
    if (!done || p.status !== expect.status || p.bodyBuffer().toString('latin1') !== expect.body || p.keepAlive !== expect.keepAlive) {
      t.fail(`split at ${cut}: done ${done}, status ${p.status}, body ${JSON.stringify(p.complete ? p.bodyBuffer().toString('latin1') : null)}, keepAlive ${p.keepAlive}`);
      return;
    }
  }
  t.pass(`${text.length + 1} splits read the same`);
}

t.test('Content-Length, chunked and until-close bodies read the same split anywhere', async (t) => {
  everySplit(t, 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nup 1\ncpu 2\n', { status: 200, body: 'up 1\ncpu 2\n', keepAlive: true });
  everySplit(t, 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=x\r\nup 1\n\r\n6\r\ncpu 2\n\r\n0\r\nX-Trailer: 1\r\n\r\n', { status: 200, body: 'up 1\ncpu 2\n', keepAlive: true });
  everySplit(t, 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nB\r\nup 1\ncpu 2\n\r\n0\r\n\r\n', { status: 200, body: 'up 1\ncpu 2\n', keepAlive: true });
  // bare LF line ends, as lenient clients accept them
  everySplit(t, 'HTTP/1.1 200 OK\nContent-Length: 4\n\nup 1', { status: 200, body: 'up 1', keepAlive: true });
  everySplit(t, 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nup 1\n', { status: 200, body: 'up 1\n', keepAlive: false }, true);
  everySplit(t, 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok', { status: 200, body: 'ok', keepAlive: true });
});

t.test('whether the connection stays open after the answer', async (t) => {
  const keep = (head: string, closed = false) => feed(`${head}\r\n\r\n`, [], limits(), closed).p.keepAlive;
  t.equal(keep('HTTP/1.1 200 OK\r\nContent-Length: 0'), true, 'HTTP/1.1 keeps it by default');
  t.equal(keep('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0'), false, 'Connection: close');
  t.equal(keep('HTTP/1.1 200 OK\r\nConnection: Keep-Alive, Close\r\nContent-Length: 0'), false, 'close among other tokens, any case');
  t.equal(keep('HTTP/1.0 200 OK\r\nContent-Length: 0'), false, 'HTTP/1.0 closes by default');
  t.equal(keep('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0'), true, 'HTTP/1.0 with keep-alive');
  t.equal(keep('HTTP/1.1 200 OK', true), false, 'a body read to the close');
  t.equal(keep('HTTP/1.1 200 OK\r\nTransfer-Encoding: identity', true), false, 'a Transfer-Encoding that is not chunked runs to the close');
  const extra = feed('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA');
  t.same([extra.done, extra.p.bodyBuffer().toString(), extra.p.keepAlive], [true, 'ok', false], 'bytes after the answer: the body as framed, the connection not reused');
});

t.test('headers: names in lower case, repeats joined, Transfer-Encoding over Content-Length', async (t) => {
  const { p } = feed('HTTP/1.1 302 Found\r\nLocation:  /real \r\nX-A: 1\r\nx-a: 2\r\nContent-Length: 0\r\n\r\n');
  t.equal(p.status, 302);
  t.equal(p.statusText, 'Found');
  t.equal(p.headers.get('location'), '/real', 'value trimmed');
  t.equal(p.headers.get('x-a'), '1, 2');
  const both = feed('HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n');
  t.same([both.done, both.p.bodyBuffer().toString()], [true, 'ok'], 'chunked wins (RFC 9112 6.3)');
  t.equal(both.p.keepAlive, false, 'and the connection is not reused: the two framings may mean a desync (RFC 9112 6.3)');
  const zeros = feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0000000000000000002\r\nok\r\n0000\r\n\r\n');
  t.same([zeros.done, zeros.p.bodyBuffer().toString()], [true, 'ok'], 'chunk sizes with leading zeros past 12 digits, as Go reads them');
  t.equal(feed('HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n').p.statusText, '', 'a status line without a reason');
  t.same([feed('HTTP/1.1 204 No Content\r\n\r\n').done, feed('HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n').done], [true, true], '204 and 304 have no body');
  t.equal(feed('HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok').done, true, 'a repeated equal Content-Length');
  // RFC 9112 5.2: a user agent reads obsolete line folding as a space, as Go's client does
  const folded = feed('HTTP/1.1 200 OK\r\nX-A: 1\r\n  2\r\n\t3 \r\nContent-Length: 2\r\n\r\nok').p;
  t.same([folded.headers.get('x-a'), folded.bodyBuffer().toString()], ['1 2 3', 'ok'], 'a folded header value');
  // single-valued headers: the first counts, as Go's Header.Get reads it
  const twice = feed('HTTP/1.1 302 Found\r\nLocation: /a\r\nContent-Type: text/plain\r\nlocation: /b\r\n  more\r\nContent-Type: text/html\r\n'
    + 'Content-Encoding: gzip\r\nContent-Encoding: br\r\nContent-Length: 0\r\n\r\n').p;
  t.same(['location', 'content-type', 'content-encoding'].map((h) => twice.headers.get(h)), ['/a', 'text/plain', 'gzip'], 'a repeated Location, Content-Type or Content-Encoding');
});

t.test('a body past its limit stops as the bytes arrive', async (t) => {
  t.throws(() => feed('HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n', [], limits(10)), BodyTooLargeError, 'a Content-Length past the limit, before any body byte');
  t.throws(() => feed(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n123456\r\n5\r\n12345`, [], limits(10)), BodyTooLargeError, 'chunks');
  t.throws(() => feed(`HTTP/1.1 200 OK\r\n\r\n${'x'.repeat(11)}`, [], limits(10)), BodyTooLargeError, 'a body to the close');
  t.equal(feed('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789', [], limits(10)).done, true, 'exactly the limit');
  let asked: string | undefined;
  feed('HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 0\r\n\r\n', [], { headerBytes: 1024, bodyBytes: (h) => { asked = h.get('content-encoding'); return 10; } });
  t.equal(asked, 'gzip', 'the limit is decided with the headers in hand');
});

t.test('malformed answers are errors that say what is wrong', async (t) => {
  const bad: [string, RegExp][] = [
    ['SSH-2.0-OpenSSH_9.2\r\n\r\n', /malformed status line "SSH-2.0-OpenSSH_9.2"/],
    ['HTTP/2 200\r\n\r\n', /malformed status line/],
    ['HTTP/1.1 99 Low\r\n\r\n', /malformed status line/],
    ['HTTP/1.1 200 OK\r\nno colon here\r\n\r\n', /malformed header line "no colon here"/],
    ['HTTP/1.1 200 OK\r\n folded\r\n\r\n', /malformed header line " folded"/],
    ['HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n', /malformed header line/],
    ['HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n', /malformed Content-Length "1, 2"/],
    ['HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', /malformed Content-Length/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /chunk size "zz"/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokX\r\n', /does not end with CRLF/],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n', /unsupported Transfer-Encoding "gzip, chunked"/],
    // read to the close it would hand the parser compressed bytes; Go's client refuses it too
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n', /unsupported Transfer-Encoding "gzip"/],
    ['HTTP/1.1 101 Switching Protocols\r\n\r\n', /switched protocols/],
    [`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${'1'.repeat(2000)}`, /chunk-size line is too long/],
  ];
  for (const [text, message] of bad) t.throws(() => feed(text), { name: 'HttpResponseError', message }, JSON.stringify(text.slice(0, 50)));
  t.throws(() => feed(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(2000)}`), { message: 'response headers larger than 1024 bytes' }, 'headers without end past the limit');
  t.throws(() => feed(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(2000)}\r\n\r\n`), { message: 'response headers larger than 1024 bytes' }, 'headers past the limit in one read');
  t.throws(() => feed(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n${'X-T: 1\r\n'.repeat(200)}`), { message: 'response trailers larger than 1024 bytes' });
  t.throws(() => feed('HTTP/1.1 100 Continue\r\n\r\n'.repeat(100)), { message: 'too many 1xx informational responses' },
    'an endless run of 1xx heads is cut at the header limit, as Go cuts it, not read until the timeout');
  t.ok(new HttpResponseError('x') instanceof Error);
});

t.test('a connection closed early ends only a body that runs to the close', async (t) => {
  const cut = feed('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', [], limits(), true);
  t.same([cut.done, cut.p.complete, cut.p.started], [false, false, true], 'Content-Length not reached');
  const chunked = feed('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n', [], limits(), true);
  t.equal(chunked.done, false, 'no last chunk');
  const nothing = new ResponseParser(limits());
  t.same([nothing.end(), nothing.started], [false, false], 'not a byte: the request may be sent again');
});

t.test('a body sent in tiny pieces holds about its own size, not a Buffer object a piece', async (t) => {
  // V8's collector, to measure what the parser holds after it ran
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const held = (make: () => ResponseParser): number => {
    gc();
    const before = process.memoryUsage();
    const p = make();
    gc();
    const after = process.memoryUsage();
    t.equal(p.complete, true);
    return after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers;
  };
  const size = 1 << 20;
  // a chunked body of 1-byte chunks, read in 64 kB pieces
  const chunked = Buffer.from(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${'1\r\nx\r\n'.repeat(size)}0\r\n\r\n`, 'latin1');
  const tiny = held(() => {
    const p = new ResponseParser(limits(size));
    for (let at = 0; at < chunked.length; at += 65536) p.push(chunked.subarray(at, at + 65536));
    return p;
  });
  t.ok(tiny < 4 * size, `1 MiB of 1-byte chunks holds ${(tiny / 1048576).toFixed(1)} MiB`);
  // a body trickled a byte a read
  const trickled = held(() => {
    const p = new ResponseParser(limits(size));
    p.push(Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${size}\r\n\r\n`));
    const byte = Buffer.from('x');
    for (let i = 0; i < size; i++) p.push(Buffer.from(byte));
    return p;
  });
  t.ok(trickled < 4 * size, `1 MiB a byte a read holds ${(trickled / 1048576).toFixed(1)} MiB`);
  const p = feed(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${'3\r\nab\n\r\n'.repeat(3)}800\r\n${'y'.repeat(2048)}\r\n1\r\nz\r\n0\r\n\r\n`).p;
  t.equal(p.bodyBuffer().toString(), `${'ab\n'.repeat(3)}${'y'.repeat(2048)}z`, 'small and large pieces in their order');
});

t.test('headers trickled a byte a read are copied about once, not once a byte', async (t) => {
  // what the parser copies: Buffer.concat and Buffer#copy, the ways a Buffer's bytes move
  let copied = 0;
  const concat = Buffer.concat;
  const copy = Buffer.prototype.copy;
  Buffer.concat = function (list: readonly Uint8Array[], length?: number) {
    const out = concat.call(Buffer, list, length);
    copied += out.length;
    return out;
  } as typeof Buffer.concat;
  Buffer.prototype.copy = function (this: Buffer, ...args: Parameters<Buffer['copy']>) {
    const n = copy.apply(this, args);
    copied += n;
    return n;
  };
  t.teardown(() => { Buffer.concat = concat; Buffer.prototype.copy = copy; });
  let head = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n';
  while (head.length < 60_000) head += `X-Pad: ${'p'.repeat(500)}\r\n`;
  const bytes = Buffer.from(`${head}\r\nok`, 'latin1');
  const p = new ResponseParser(limits(10, 64 * 1024));
  for (let i = 0; i < bytes.length; i++) p.push(bytes.subarray(i, i + 1));
  Buffer.concat = concat;
  Buffer.prototype.copy = copy;
  t.equal(p.bodyBuffer().toString(), 'ok');
  t.equal(p.headers.get('x-pad')?.split(', ').length, head.split('X-Pad').length - 1, 'every header line read');
  t.ok(copied < 4 * bytes.length, `${bytes.length} bytes of head, ${copied} copied`);
});
