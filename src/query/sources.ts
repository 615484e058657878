// The legacy sources list: every value of the `source` tag in the account's series, plus
// sources given a display name with PUT before any series named them.
import type { SeriesStore } from '../tsdb/engine.js';
import { sourceKey, type SourceRecord, type Sources } from '../domain/sources.js';

export interface SourcesDeps {
  engine: SeriesStore;
  sources: Sources;
}

/** All the account's sources: those its series name, and those given a display name. */
export async function listSources(deps: SourcesDeps, account: number): Promise<SourceRecord[]> {
  const byName = new Map<string, SourceRecord>();
  for (const name of deps.engine.tagValues(account, 'source')) byName.set(name, { name, display_name: null });
  for (const r of await deps.sources.list(account)) byName.set(r.name, r);
  return [...byName.values()];
}

/** The `name` search of GET /v1/sources: a case-insensitive substring of the name or the display name. */
export function sourceMatches(s: SourceRecord, filter: string): boolean {
  const f = filter.toLowerCase();
  return !f || s.name.includes(f) || (s.display_name ?? '').toLowerCase().includes(f);
}

/** One source: known from its series or from a stored record, else undefined. */
export async function findSource(deps: SourcesDeps, account: number, rawName: string): Promise<SourceRecord | undefined> {
  const name = sourceKey(rawName);
  const stored = await deps.sources.get(account, name);
  if (stored) return stored;
  return deps.engine.tagValues(account, 'source').has(name) ? { name, display_name: null } : undefined;
}
