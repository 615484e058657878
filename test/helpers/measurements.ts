// Shared helpers for measurement tests: a time base inside the raw retention, aligned to
// the hour, and a query shortcut.
import type { TestServer } from './server.js';

/** Two hours ago, floored to the hour: every tier can hold it, no window is "now". */
export function hourBase(): number {
  return Math.floor(Date.now() / 1000 / 3600) * 3600 - 7200;
}

export async function post(s: TestServer, body: unknown) {
  return s.request('POST', '/v1/measurements', { json: body });
}

export async function query(s: TestServer, name: string, params: string) {
  return s.get(`/v1/measurements/${name}?${params}`);
}
