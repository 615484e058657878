// Numeric ids in paths. Anything that is not one names no resource: 404, as a missing id.
import { notFound } from '../errors.js';

export function pathId(raw: string | undefined, what: string): number {
  if (!raw || !/^\d{1,12}$/.test(raw)) throw notFound(what);
  return Number(raw);
}
