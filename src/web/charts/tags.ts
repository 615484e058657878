// Stream tags as a person types them: `region=us-*|eu-*, host=web-1` filters (values
// separated by `|` match any), a separate list of tag names to group by, and a switch
// that lets the space's filter set every tag (`dynamic`).
import type { StreamTag } from '../types.js';

export interface TagText { filters: string; groupBy: string; dynamic: boolean }

export function parseStreamTags(text: TagText): StreamTag[] {
  const tags = new Map<string, StreamTag>();
  for (const part of text.filters.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const values = part.slice(eq + 1).split('|').map((v) => v.trim()).filter(Boolean);
    if (name) tags.set(name, { name, values: values.length ? values : ['*'] });
  }
  for (const name of text.groupBy.split(',').map((n) => n.trim()).filter(Boolean)) {
    const tag = tags.get(name) ?? { name, values: ['*'] };
    tags.set(name, { ...tag, grouped: true });
  }
  return [...tags.values()].map((t) => ({ ...t, grouped: t.grouped ?? false, ...(text.dynamic ? { dynamic: true } : {}) }));
}

export function streamTagText(tags: readonly StreamTag[] | undefined): TagText {
  const list = tags ?? [];
  return {
    filters: list.filter((t) => !(t.grouped && t.values.length === 1 && t.values[0] === '*')).map((t) => `${t.name}=${t.values.join('|')}`).join(', '),
    groupBy: list.filter((t) => t.grouped).map((t) => t.name).join(', '),
    dynamic: list.some((t) => t.dynamic),
  };
}
