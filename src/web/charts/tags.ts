// Stream tags as a person types them: `region=us-*|eu-*, host=web-1` filters (values
// separated by `|` match any), and two lists of tag names: those to group by, and those
// the space's filter sets (`dynamic`), each tag on its own, as the API keeps them.
import type { StreamTag } from '../types.js';

export interface TagText { filters: string; groupBy: string; dynamic: string }

const names = (text: string): string[] => text.split(',').map((n) => n.trim()).filter(Boolean);

/** A tag's values: one without any (the API accepts that) matches every value. */
export const tagValues = (t: StreamTag): string[] => (t.values?.length ? t.values : ['*']);

const matchesAll = (t: StreamTag): boolean => tagValues(t).length === 1 && tagValues(t)[0] === '*';

export function parseStreamTags(text: TagText): StreamTag[] {
  const tags = new Map<string, StreamTag>();
  for (const part of text.filters.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const values = part.slice(eq + 1).split('|').map((v) => v.trim()).filter(Boolean);
    if (name) tags.set(name, { name, values: values.length ? values : ['*'] });
  }
  for (const name of names(text.groupBy)) tags.set(name, { ...(tags.get(name) ?? { name, values: ['*'] }), grouped: true });
  for (const name of names(text.dynamic)) tags.set(name, { ...(tags.get(name) ?? { name, values: ['*'] }), dynamic: true });
  return [...tags.values()].map((t) => ({ ...t, grouped: t.grouped ?? false }));
}

export function streamTagText(tags: readonly StreamTag[] | undefined): TagText {
  const list = tags ?? [];
  return {
    // a `*` tag that is grouped or dynamic is said by its name in those lists alone
    filters: list.filter((t) => !((t.grouped || t.dynamic) && matchesAll(t))).map((t) => `${t.name}=${tagValues(t).join('|')}`).join(', '),
    groupBy: list.filter((t) => t.grouped).map((t) => t.name).join(', '),
    dynamic: list.filter((t) => t.dynamic).map((t) => t.name).join(', '),
  };
}
