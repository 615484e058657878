// The legacy sources list: every value of the `source` tag in the account's series, plus
// sources given a display name with PUT before any series named them.
import type { SeriesStore } from '../tsdb/engine.js';
import { sourceKey, type SourceRecord, type Sources } from '../domain/sources.js';

export interface SourcesDeps {
  engine: SeriesStore;
  sources: Sources;
}

/** All the account's sources; `filter` matches name or display name, without regard to case. */
export async function listSources(deps: SourcesDeps, account: number, filter = ''): Promise<SourceRecord[]> {
  const byName = new Map<string, SourceRecord>();
  for (const name of deps.engine.tagValues(account, 'source')) byName.set(name, { name, display_name: null });
  for (const r of await deps.sources.list(account)) byName.set(r.name, r);
  const f = filter.toLowerCase();
  return [...byName.values()].filter((s) => !f || s.name.includes(f) || (s.display_name ?? '').toLowerCase().includes(f));
}

/** One source: known from its series or from a stored record, else undefined. */
export async function findSource(deps: SourcesDeps, account: number, rawName: string): Promise<SourceRecord | undefined> {
  const name = sourceKey(rawName);
  const stored = await deps.sources.get(account, name);
  if (stored) return stored;
  return deps.engine.tagValues(account, 'source').has(name) ? { name, display_name: null } : undefined;
}
