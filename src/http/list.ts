// The list endpoints whose only filter is a `name` substring and whose only `orderby`
// is `name` (spaces, annotation streams; notes §10): one page of them.
import { paginate, parsePage, type Paged } from './pagination.js';
import { queryOne } from './request.js';
import type { Ctx } from './state.js';

/** Case-insensitive search and order by name; ties keep the order of `all`. */
export async function pageByName<T extends object>(ctx: Ctx, load: () => Promise<T[]>, name: (item: T) => string): Promise<Paged<T>> {
  const page = parsePage(ctx.query, ['name']);
  const all = await load();
  const filter = (queryOne(ctx, 'name') ?? '').toLowerCase();
  const matching = filter ? all.filter((item) => name(item).toLowerCase().includes(filter)) : all;
  return paginate(matching, all.length, page, (item) => name(item).toLowerCase());
}
