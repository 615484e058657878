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
import { chmodSync, copyFileSync, createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/types.js';
import { GaugewayError } from '../errors.js';
import { adminSocketPath } from '../admin-socket.js';
import { FrameReader } from '../store/snapshot.js';
import { parse, configOption } from './args.js';
import { enterStoppedDataDir } from './data-dir.js';

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
  if (existsSync(dir) && readdirSync(dir).length) throw new GaugewayError('E_BACKUP', `${dir} is not empty: back up into a new or empty folder`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const started = Date.now();
  const { frames, via, close } = await openSnapshot(config);
  out(`backing up ${config.data_dir} (${via}) into ${dir}`);
  const hash = createHash('sha256');
  const reader = new FrameReader();
  const file = createWriteStream(join(dir, 'data.bin'), { mode: 0o600 });
  let bytes = 0;
  let reported = Date.now();
  try {
    for await (const chunk of frames) {
      hash.update(chunk);
      reader.push(chunk);
      bytes += chunk.length;
      if (!file.write(chunk)) await once(file, 'drain');
      if (Date.now() - reported > 2000) {
        out(`  ${reader.records} records, ${(bytes / 1048576).toFixed(1)} MiB`);
        reported = Date.now();
      }
    }
  } finally {
    file.end();
    await once(file, 'close');
    await close();
  }
  if (!reader.complete) throw new GaugewayError('E_BACKUP', 'the snapshot stream ended inside a record: the backup is incomplete, run it again');
  const tls = copyTls(join(config.data_dir, 'tls'), join(dir, 'tls'));
  const manifest: BackupManifest = {
    format: FORMAT, version: 1, created_at: new Date(started).toISOString(), source: config.data_dir,
    records: reader.records, bytes, sha256: hash.digest('hex'), tls,
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
  out(`backup done: ${manifest.records} records, ${(bytes / 1048576).toFixed(1)} MiB, ${tls.length} TLS files, ${((Date.now() - started) / 1000).toFixed(1)} s; sha256 ${manifest.sha256}`);
  return 0;
}

/** The snapshot stream: from the running service's admin socket, else from the data dir. */
async function openSnapshot(config: Config): Promise<{ frames: AsyncIterable<Buffer>; via: string; close: () => Promise<void> }> {
  const socket = adminSocketPath(config.data_dir);
  if (existsSync(socket)) {
    const res = await new Promise<http.IncomingMessage | null>((resolveRes) => {
      const req = http.request({ socketPath: socket, path: '/backup', method: 'GET' }, resolveRes);
      req.on('error', () => resolveRes(null));
      req.end();
    });
    if (res && res.statusCode === 200) return { frames: res, via: 'the running service, through its admin socket', close: async () => {} };
    res?.resume();
  }
  const location = enterStoppedDataDir(config);
  const [{ Store }, { snapshotFrames }] = await Promise.all([import('../store/db.js'), import('../store/snapshot.js')]);
  let store;
  try {
    store = await Store.open(location, { sync: true });
  } catch (err) {
    if (err instanceof GaugewayError && err.code === 'E_STORE_LOCKED') {
      throw new GaugewayError('E_NOT_RUNNING', `the service holds ${config.data_dir} but its admin socket ${socket} does not answer; run the backup as the service user or root`);
    }
    throw err;
  }
  const opened = store;
  return { frames: snapshotFrames(opened.db), via: 'the data dir, service stopped', close: () => opened.close() };
}

function copyTls(from: string, to: string): string[] {
  if (!existsSync(from)) return [];
  const files = readdirSync(from).filter((f) => f.endsWith('.pem'));
  if (files.length) mkdirSync(to, { recursive: true, mode: 0o700 });
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
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
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
