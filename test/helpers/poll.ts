// Waiting for something another process does (a client's flush, a background job),
// without timing assertions: poll until it holds or a generous limit passes.

export async function poll<T>(fn: () => Promise<T | undefined>, tries = 600, everyMs = 100): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error('timed out waiting for data');
}
