// The one LevelDB of a data directory. Everything Gaugeway remembers lives here, each
// concern in its own sublevel; every stored key below the account-level sublevels starts
// with the account id (tenancy in the key).
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Level } from 'level';
import type { AbstractSublevel } from 'abstract-level';
import { GaugewayError } from '../errors.js';
import { makeDirectory } from '../durable-files.js';

export type Db = Level<string, string>;

// `level` is classic-level on Node (browser-level in browsers), and its typings cover only
// what both share. Gaugeway runs on Node and uses three of classic-level's own calls.
declare module 'level' {
  interface Level<KDefault, VDefault> {
    /** Compacts the keys from start to end, so LevelDB really frees what was deleted. */
    compactRange(start: KDefault, end: KDefault): Promise<void>;
    /** The bytes on disk of the keys from start to end (table files; LevelDB's estimate). */
    approximateSize(start: KDefault, end: KDefault): Promise<number>;
  }
  namespace Level {
    /** LevelDB's repair: rebuilds the manifest from the table and log files it can read. */
    function repair(location: string): Promise<void>;
  }
}

/** A keyspace of the one database whose keys are strings and whose values are V. */
export type Sublevel<V> = AbstractSublevel<Db, string | Buffer | Uint8Array, string, V>;

/**
 * LevelDB reads its table files through memory maps, one per table its table cache keeps
 * open, and every page a read or a compaction touches stays in the process's RSS until
 * the table leaves the cache. With the defaults (1,000 open files, 2 MB tables) that is
 * the whole database once it has been read through (up to 2 GB), so RSS grew with the
 * data. The smallest cache and tables LevelDB 1.20 accepts (it clips lower values): 74
 * files, that is 64 tables and 10 files of its own, of 1 MB: about 64 MB of table pages
 * at most, however large the database grows.
 */
const MAX_OPEN_FILES = 74;
const TABLE_FILE_BYTES = 1024 * 1024;

export interface OpenOptions {
  /** fsync each write; see docs/storage.md for what turning it off costs */
  sync: boolean;
}

export class Store {
  readonly db: Db;
  readonly sync: boolean;
  readonly location: string;
  /** every keyspace handed out, reopened with the database */
  private readonly sublevels: { open(): Promise<void> }[] = [];

  private constructor(db: Db, location: string, sync: boolean) {
    this.db = db;
    this.location = location;
    this.sync = sync;
  }

  static async open(location: string, opts: OpenOptions): Promise<Store> {
    makeDirectory(location, 0o700);
    refuseHeadlessDatabase(location);
    const db = new Level<string, string>(location, { valueEncoding: 'utf8', maxOpenFiles: MAX_OPEN_FILES, maxFileSize: TABLE_FILE_BYTES });
    try {
      await db.open();
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const code = cause?.code ?? (err as { code?: string }).code;
      if (code === 'LEVEL_LOCKED') {
        throw new GaugewayError('E_STORE_LOCKED', `the data directory ${location} is in use by another process (is gaugeway already running?)`);
      }
      const message = cause?.message ?? (err as Error).message;
      if (PERMISSION.test(message)) throw permissionProblem(location, message);
      throw new GaugewayError('E_STORE_CORRUPT',
        `cannot open the database in ${location}: ${message}. ` +
        `Nothing was changed. If LevelDB reports corruption, stop the service and run: gaugeway store repair --data-dir ${dirname(location)}`);
    }
    return new Store(db, location, opts.sync);
  }

  /** A JSON-valued keyspace of its own. */
  json<T>(name: string): Sublevel<T> {
    return this.track(this.db.sublevel<string, T>(name, { valueEncoding: 'json' }));
  }

  /** A binary-valued keyspace of its own (keys are strings, values Buffers). */
  binary(name: string): Sublevel<Buffer> {
    return this.track(this.db.sublevel<string, Buffer>(name, { valueEncoding: 'buffer' }));
  }

  private track<S extends { open(): Promise<void> }>(sublevel: S): S {
    this.sublevels.push(sublevel);
    return sublevel;
  }

  /**
   * Closes and opens the database again, with every keyspace: after a failed write
   * (a full disk) LevelDB refuses all writes until it is reopened. Reopening recovers
   * LevelDB's log, so everything written before the failure is there.
   */
  async reopen(): Promise<void> {
    await this.db.close();
    await this.db.open();
    for (const sub of this.sublevels) await sub.open();
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

const PERMISSION = /Permission denied|Operation not permitted/;

function permissionProblem(location: string, message: string): GaugewayError {
  return new GaugewayError('E_DATA_DIR',
    `cannot open the database in ${location}: ${message}. Nothing was changed. Its files must belong to the user gaugeway runs as ` +
    `(chown -R that user ${dirname(location)}); store repair does not help here`);
}

/**
 * What to tell an operator about an error LevelDB raised after the database opened, while
 * the service read what it holds at start (accounts, series, the chunk catalog, the WAL):
 * a damaged table or log file is met only then. Null for an error that is not LevelDB's.
 */
export function storeProblem(err: unknown, location: string): GaugewayError | null {
  const chain: { code?: unknown; message?: unknown }[] = [];
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined; e && typeof e === 'object' && chain.length < 5; e = e.cause as typeof e) chain.push(e);
  const level = chain.find((e) => e.code === 'LEVEL_CORRUPTION' || e.code === 'LEVEL_IO_ERROR' || /^(Corruption|IO error): /.test(String(e.message)));
  if (!level) return null;
  const message = String(level.message);
  if (PERMISSION.test(message)) return permissionProblem(location, message);
  return new GaugewayError('E_STORE_CORRUPT',
    `the database in ${location} is damaged: reading it at start failed with "${message}". ` +
    `Stop the service, keep a copy of ${dirname(location)}, and run: gaugeway store repair --data-dir ${dirname(location)}`);
}

/**
 * LevelDB takes a folder without CURRENT for a new database: it starts empty and deletes
 * the table files it finds. A folder holding database files but no CURRENT is damaged,
 * not new, so it is refused (repair rebuilds CURRENT and the manifest from those files).
 */
function refuseHeadlessDatabase(location: string): void {
  if (existsSync(join(location, 'CURRENT'))) return;
  const data = readdirSync(location).filter((f) => /^(MANIFEST-\d+|\d+\.(ldb|sst|log))$/.test(f));
  if (data.length === 0) return;
  // LevelDB creates a database by writing MANIFEST-000001 and then CURRENT; its first log
  // comes after. A kill -9 between the two (the first start) leaves that manifest alone: a
  // database that never held anything, which LevelDB creates again over it. Refused, the
  // service could not start again without `store repair`.
  if (data.length === 1 && data[0] === 'MANIFEST-000001') return;
  throw new GaugewayError('E_STORE_CORRUPT',
    `the database in ${location} has data files (${data.slice(0, 3).join(', ')}${data.length > 3 ? ', ...' : ''}) but no CURRENT file; ` +
    `opening it would start an empty database over them. Nothing was changed. Stop the service and run: gaugeway store repair --data-dir ${dirname(location)}`);
}
