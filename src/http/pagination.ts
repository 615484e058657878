// offset / length / orderby / sort, and the {query: {found, length, offset, total}} envelope.
import { ApiError, fieldErrors } from '../errors.js';

export interface Page {
  offset: number;
  length: number;
  orderby: string;
  sort: 'asc' | 'desc';
}

export const MAX_PAGE_LENGTH = 100;

export function parsePage(query: Record<string, unknown>, orderable: readonly string[], defaultOrder = orderable[0]!): Page {
  const params = fieldErrors();
  // given twice, a parameter is named as such (taking either value would answer another question)
  const repeated = (name: string) => Array.isArray(query[name]) && (params[name] = ['must be given once']);
  const offset = integer(query.offset, 0);
  const length = integer(query.length, MAX_PAGE_LENGTH);
  if (!repeated('offset') && (offset === null || offset < 0)) params.offset = ['must be an integer from 0 to 9007199254740991'];
  if (!repeated('length') && (length === null || length < 1 || length > MAX_PAGE_LENGTH)) params.length = [`must be an integer from 1 to ${MAX_PAGE_LENGTH}`];
  const orderby = query.orderby === undefined ? defaultOrder : String(query.orderby);
  if (!repeated('orderby') && !orderable.includes(orderby)) params.orderby = [`must be one of: ${orderable.join(', ')}`];
  const sort = query.sort === undefined ? 'asc' : String(query.sort);
  if (!repeated('sort') && sort !== 'asc' && sort !== 'desc') params.sort = ['must be asc or desc'];
  if (Object.keys(params).length) throw new ApiError(400, { params });
  return { offset: offset!, length: length!, orderby, sort: sort as Page['sort'] };
}

function integer(v: unknown, fallback: number): number | null {
  if (v === undefined || v === '') return fallback;
  if (typeof v !== 'string' || !/^-?\d+$/.test(v)) return null;
  // past 2^53 the number read is not the one written (an offset echoed back changed)
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : null;
}

export interface Paged<T> {
  query: { found: number; length: number; offset: number; total: number };
  items: T[];
}

/**
 * Sorts `matching` by `page.orderby` (a field of the items) and cuts the page out.
 * `total` counts everything the account owns, `found` what matched the filter.
 */
export function paginate<T extends object>(matching: T[], total: number, page: Page, key: (item: T) => string | number = (i) => (i as Record<string, string | number>)[page.orderby]!): Paged<T> {
  const dir = page.sort === 'desc' ? -1 : 1;
  const sorted = [...matching].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return (x < y ? -1 : x > y ? 1 : 0) * dir;
  });
  return {
    query: { found: matching.length, length: page.length, offset: page.offset, total },
    items: sorted.slice(page.offset, page.offset + page.length),
  };
}
