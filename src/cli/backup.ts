// `gaugeway backup DIR` and `gaugeway restore DIR`.
// backup: a consistent copy of the data (a LevelDB snapshot: every write acknowledged
// before it started, nothing half-written) while the service runs and ingests, streamed
// through the admin socket; with the service stopped, read from the data dir itself. The
// CLI writes DIR as its own user: data.bin (store/snapshot.ts frames), the TLS files and
// manifest.json (records, bytes, SHA-256).
// restore: into a stopped service's data dir that holds no database, after verifying the
// backup whole. A marker file makes the service refuse to start until a restore that
// was interrupted is run again (which starts over) or the marker is removed.
import http from 'node:http';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, createReadStream, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { open, type FileHandle } from 'node:fs/promises';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/types.js';
import { GaugewayError } from '../errors.js';
import { makeDirectory } from '../durable-files.js';
import { adminSocketPath } from '../admin-socket.js';
import { FrameReader } from '../store/snapshot.js';
import { parse, configOption } from './args.js';
import { asDataDirOwner } from './data-dir.js';
import { serviceUnreachable } from './admin-client.js';

const BACKUP_USAGE = `usage:
  gaugeway backup DIR [--config FILE] [--data-dir DIR]
    writes a consistent copy of the service's data into DIR (new or empty), while the
    service runs (through its admin socket) or with it stopped. Keep DIR private: it
    holds the TLS keys and the token hashes.`;
const RESTORE_USAGE = `usage:
  gaugeway restore DIR [--config FILE] [--data-dir DIR]
    verifies the backup in DIR, then restores it into the data dir of a stopped service
    that has no database yet. An interrupted restore is started over by running it again.`;

export const RESTORE_MARKER = 'RESTORE-IN-PROGRESS';
const FORMAT = 'gaugeway-backup';

export interface BackupManifest {
  format: typeof FORMAT;
  version: 1;
  created_at: string;
  source: string;
  records: number;
  bytes: number;
  sha256: string;
  tls: string[];
}

type Out = (line: string) => void;

function configFrom(values: Record<string, unknown>): Config {
  return loadConfig({ file: values.config as string | undefined, flags: { dataDir: values['data-dir'] as string | undefined } });
}

export async function backupCommand(args: string[], out: Out = console.log): Promise<number> {
  const { values, positionals } = parse(args, { ...configOption, 'data-dir': { type: 'string' } }, BACKUP_USAGE);
  if (positionals.length !== 1) throw new GaugewayError('E_USAGE', BACKUP_USAGE);
  const config = configFrom(values);
  const dir = resolve(positionals[0]!);
  const created = !existsSync(dir);
  if (!created && readdirSync(dir).length) throw new GaugewayError('E_BACKUP', `${dir} is not empty: back up into a new or empty folder`);
  makeDirectory(dir, 0o700);
  chmodSync(dir, 0o700);
  try {
    await writeBackup(config, dir, out);
    return 0;
  } catch (err) {
    // a failed backup leaves nothing behind that could pass for one, nor a folder to empty
    if (created) rmSync(dir, { recursive: true, force: true });
    else for (const f of readdirSync(dir)) rmSync(join(dir, f), { recursive: true, force: true });
    throw err;
  }
}

async function writeBackup(config: Config, dir: string, out: Out): Promise<void> {
  const started = Date.now();
  // Opened before the snapshot, by the CLI's own user: read from a stopped service's data
  // dir as root, the snapshot is taken as the data dir's owner, who may not write here.
  const file = await open(join(dir, 'data.bin'), 'wx', 0o600);
  let copied: Copied;
  try {
    const service = await snapshotFromService(config);
    if (service) {
      out(`backing up ${config.data_dir} (the running service, through its admin socket) into ${dir}`);
      copied = await copyFrames(service, file, out);
    } else {
      copied = await snapshotFromDataDir(config, (frames) => {
        out(`backing up ${config.data_dir} (the data dir, service stopped) into ${dir}`);
        return copyFrames(frames, file, out);
      });
    }
  } finally {
    await file.close(); // (once the stream has closed it, this does nothing)
  }
  const tls = copyTls(join(config.data_dir, 'tls'), join(dir, 'tls'));
  const manifest: BackupManifest = {
    format: FORMAT, version: 1, created_at: new Date(started).toISOString(), source: config.data_dir,
    records: copied.records, bytes: copied.bytes, sha256: copied.sha256, tls,
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
  out(`backup done: ${manifest.records} records, ${(copied.bytes / 1048576).toFixed(1)} MiB, ${tls.length} TLS files, ${((Date.now() - started) / 1000).toFixed(1)} s; sha256 ${manifest.sha256}`);
}

interface Copied { records: number; bytes: number; sha256: string }

/** Writes the snapshot's frames to `file`, counting and hashing them; progress every two seconds. */
async function copyFrames(frames: AsyncIterable<Buffer>, file: FileHandle, out: Out): Promise<Copied> {
  const hash = createHash('sha256');
  const reader = new FrameReader();
  let bytes = 0;
  let reported = Date.now();
  await pipeline(frames, async function* (chunks: AsyncIterable<Buffer>) {
    for await (const chunk of chunks) {
      hash.update(chunk);
      reader.push(chunk);
      bytes += chunk.length;
      if (Date.now() - reported > 2000) {
        out(`  ${reader.records} records, ${(bytes / 1048576).toFixed(1)} MiB`);
        reported = Date.now();
      }
      yield chunk;
    }
  }, file.createWriteStream());
  if (!reader.complete) throw new GaugewayError('E_BACKUP', 'the snapshot stream ended inside a record: the backup is incomplete, run it again');
  return { records: reader.records, bytes, sha256: hash.digest('hex') };
}

/** The running service's snapshot stream through its admin socket, or null when it does not answer. */
async function snapshotFromService(config: Config): Promise<http.IncomingMessage | null> {
  const socket = adminSocketPath(config.data_dir);
  if (!existsSync(socket)) return null;
  const res = await new Promise<http.IncomingMessage | null>((resolveRes) => {
    const req = http.request({ socketPath: socket, path: '/backup', method: 'GET' }, resolveRes);
    req.on('error', () => resolveRes(null));
    req.end();
  });
  if (res && res.statusCode === 200) return res;
  res?.resume();
  return null;
}

/** Runs `copy` on a snapshot of the stopped service's database, opened as the data dir's owner. */
async function snapshotFromDataDir<T>(config: Config, copy: (frames: AsyncIterable<Buffer>) => Promise<T>): Promise<T> {
  // loaded as the CLI's user: the data dir's owner need not be able to read the code
  const [{ Store }, { snapshotFrames }] = await Promise.all([import('../store/db.js'), import('../store/snapshot.js')]);
  return asDataDirOwner(config, async (location) => {
    let store;
    try {
      store = await Store.open(location, { sync: true });
    } catch (err) {
      if (err instanceof GaugewayError && err.code === 'E_STORE_LOCKED') throw serviceUnreachable(config);
      throw err;
    }
    try {
      return await copy(snapshotFrames(store.db));
    } finally {
      await store.close();
    }
  });
}

function copyTls(from: string, to: string): string[] {
  if (!existsSync(from)) return [];
  const files = readdirSync(from).filter((f) => f.endsWith('.pem'));
  if (files.length) makeDirectory(to, 0o700);
  for (const f of files) {
    copyFileSync(join(from, f), join(to, f));
    chmodSync(join(to, f), 0o600);
  }
  return files;
}

/** Reads and checks a backup folder whole: manifest, checksum, every record. */
export async function verifyBackup(dir: string): Promise<BackupManifest> {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as BackupManifest;
  } catch (err) {
    throw new GaugewayError('E_BACKUP', `${dir} holds no readable manifest.json (${(err as Error).message}): not a Gaugeway backup, or an unfinished one`);
  }
  if (manifest.format !== FORMAT || manifest.version !== 1) throw new GaugewayError('E_BACKUP', `${dir}/manifest.json is not a Gaugeway backup of a version this release reads`);
  const hash = createHash('sha256');
  const reader = new FrameReader();
  let bytes = 0;
  for await (const chunk of createReadStream(join(dir, 'data.bin'))) {
    const b = chunk as Buffer;
    hash.update(b);
    reader.push(b);
    bytes += b.length;
  }
  const problems: string[] = [];
  if (bytes !== manifest.bytes) problems.push(`data.bin has ${bytes} bytes, the manifest says ${manifest.bytes}`);
  if (hash.digest('hex') !== manifest.sha256) problems.push('the SHA-256 of data.bin does not match the manifest');
  if (!reader.complete || reader.records !== manifest.records) problems.push(`data.bin holds ${reader.records} whole records, the manifest says ${manifest.records}`);
  for (const f of manifest.tls) if (!existsSync(join(dir, 'tls', f))) problems.push(`tls/${f} is missing`);
  if (problems.length) throw new GaugewayError('E_BACKUP', `the backup in ${dir} is damaged, nothing was restored: ${problems.join('; ')}`);
  return manifest;
}

/** Frozen: abstract-level copies batch options into every operation, and V8 copies a frozen object much faster (store/commit.ts). */
const RESTORE_BATCH = Object.freeze({ keyEncoding: 'buffer', valueEncoding: 'buffer', sync: true } as const);

export async function restoreCommand(args: string[], out: Out = console.log): Promise<number> {
  const { values, positionals } = parse(args, { ...configOption, 'data-dir': { type: 'string' } }, RESTORE_USAGE);
  if (positionals.length !== 1) throw new GaugewayError('E_USAGE', RESTORE_USAGE);
  const config = configFrom(values);
  const dir = resolve(positionals[0]!);
  const manifest = await verifyBackup(dir);
  out(`verified ${dir}: ${manifest.records} records from ${manifest.source}, taken ${manifest.created_at}`);
  const dataDir = config.data_dir;
  const location = join(dataDir, 'db');
  const marker = join(dataDir, RESTORE_MARKER);
  if (existsSync(location) && readdirSync(location).length && !existsSync(marker)) {
    throw new GaugewayError('E_BACKUP', `${dataDir} already holds a database: restore into a new data dir (--data-dir), or move that one away first`);
  }
  makeDirectory(dataDir, 0o700);
  // a database left by an interrupted restore is ours to replace
  if (existsSync(marker)) rmSync(location, { recursive: true, force: true });
  writeFileSync(marker, `restore of ${dir} (${manifest.created_at}) started ${new Date().toISOString()}\n`, { mode: 0o600 });
  const { Store } = await import('../store/db.js');
  // (a live service holds LevelDB's lock: opening fails, and nothing was written but the marker)
  const store = await Store.open(location, { sync: true });
  const reader = new FrameReader();
  try {
    for await (const chunk of createReadStream(join(dir, 'data.bin'), { highWaterMark: 1 << 20 })) {
      const records = reader.push(chunk as Buffer);
      if (records.length === 0) continue;
      // batches of about a megabyte, each synced: the marker goes only after all are on disk
      await store.db.batch<Buffer, Buffer>(records.map(([key, value]) => ({ type: 'put', key, value })), RESTORE_BATCH);
    }
  } finally {
    await store.close();
  }
  copyTls(join(dir, 'tls'), join(dataDir, 'tls'));
  rmSync(marker);
  out(`restored ${reader.records} records into ${dataDir}; start the service`);
  return 0;
}

/** serve refuses a data dir whose restore did not finish. */
export function restoreMarkerProblem(dataDir: string): string | null {
  const marker = join(dataDir, RESTORE_MARKER);
  if (!existsSync(marker)) return null;
  return `a restore into ${dataDir} did not finish (${readFileSync(marker, 'utf8').trim()}): run gaugeway restore again, which starts over, or remove ${marker} and the db folder`;
}
