// The one HTTP request a plugin makes: a POST that follows no redirect, gives up at the
// delivery's deadline, and reads at most ANSWER_BYTES of the answer. The answer only
// explains a failure, and a receiver that streams a gigabyte back (or never ends its body)
// must neither take the service's memory nor keep the delivery open past its timeout.

/** How much of a receiver's answer is kept: enough for an error message, no more. */
export const ANSWER_BYTES = 4096;

export interface PostRequest {
  headers: Record<string, string>;
  body: string;
}

export interface PostAnswer {
  status: number;
  /** the first ANSWER_BYTES of the answer's body, decoded as UTF-8 ('' when none could be read) */
  text: string;
}

export async function postBounded(url: string | URL, req: PostRequest, signal: AbortSignal): Promise<PostAnswer> {
  const res = await fetch(url, { method: 'POST', redirect: 'manual', headers: req.headers, body: req.body, signal });
  return { status: res.status, text: await readAtMost(res, ANSWER_BYTES) };
}

/** The first `max` bytes of a body; the rest is cancelled unread, which closes the connection. */
export async function readAtMost(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // a body cut short (reset, deadline) still tells what arrived
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = Buffer.concat(chunks, size).subarray(0, max);
  // a multi-byte character cut at the bound decodes as U+FFFD, never as a throw
  return new TextDecoder().decode(bytes);
}
