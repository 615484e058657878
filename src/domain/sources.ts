// The legacy sources of API 1.0: a source is a value of the `source` tag. Its display
// name is the only thing stored about it (PUT creates the record); which sources exist
// comes from the series themselves (query/sources.ts puts the two together).
import type { Store } from '../store/db.js';
import type { CommitQueue } from '../store/commit.js';
import { Collection } from '../store/collection.js';
import { paramError } from '../errors.js';
import { displayNameProblem, SOURCE, SOURCE_MESSAGE } from './names.js';

export interface SourceRecord {
  name: string;
  display_name: string | null;
}

/** The stored form of a source name: tag values are lower-cased. */
export function sourceKey(raw: string): string {
  if (!SOURCE.test(raw)) throw paramError('name', SOURCE_MESSAGE);
  return raw.toLowerCase();
}

export class Sources {
  private readonly records: Collection<SourceRecord>;

  constructor(store: Store, private readonly commit: CommitQueue) {
    this.records = new Collection<SourceRecord>(store, 'sources');
  }

  get(accountId: number, name: string): Promise<SourceRecord | undefined> {
    return this.records.get(accountId, sourceKey(name));
  }

  list(accountId: number): Promise<SourceRecord[]> {
    return this.records.list(accountId);
  }

  /** Creates or updates; returns whether it was created. */
  async put(accountId: number, rawName: string, displayName: string | null): Promise<boolean> {
    const name = sourceKey(rawName);
    // `all` names the summary across sources in reads: no measurement may use it, so a record would name nothing
    if (name === 'all') throw paramError('name', 'all is reserved');
    const problem = displayNameProblem(displayName);
    if (problem) throw paramError('display_name', problem);
    const existing = await this.records.get(accountId, name);
    await this.commit.write([this.records.put(accountId, name, { name, display_name: displayName })]);
    return existing === undefined;
  }
}
