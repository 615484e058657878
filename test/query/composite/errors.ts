// The one message of a composite 400, for asserting on it.
import { ApiError } from '../../../src/errors.js';

export function composeMessage(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) {
      const compose = err.body.params?.compose;
      if (Array.isArray(compose) && compose.length === 1) return compose[0]!;
    }
    throw err;
  }
  throw new Error('expected a 400 on compose, got no error');
}

export async function composeMessageAsync(f: () => Promise<unknown>): Promise<string> {
  try {
    await f();
  } catch (err) {
    return composeMessage(() => { throw err; });
  }
  throw new Error('expected a 400 on compose, got no error');
}
