// Online backups: every key and value of the database as LevelDB sees it at one moment.
// A LevelDB iterator reads from an implicit snapshot taken when it is created, so every
// write acknowledged before the backup started is in it and nothing written later (or
// half-written) is, while the service keeps accepting writes. The stream is a sequence
// of frames: [key length u32 BE][key][value length u32 BE][value], raw bytes of every
// sublevel, so a restore rebuilds the database byte for byte.
import type { Db } from './db.js';

/** Frames are gathered into chunks of about this many bytes. */
const CHUNK_BYTES = 256 * 1024;

export async function* snapshotFrames(db: Db): AsyncGenerator<Buffer> {
  const it = db.iterator<Buffer, Buffer>({ keyEncoding: 'buffer', valueEncoding: 'buffer' });
  let parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const [key, value] of it) {
      const head = Buffer.allocUnsafe(4);
      head.writeUInt32BE(key.length);
      const mid = Buffer.allocUnsafe(4);
      mid.writeUInt32BE(value.length);
      parts.push(head, key, mid, value);
      size += 8 + key.length + value.length;
      if (size >= CHUNK_BYTES) {
        yield Buffer.concat(parts, size);
        parts = [];
        size = 0;
      }
    }
    if (size) yield Buffer.concat(parts, size);
  } finally {
    await it.close();
  }
}

/** Splits a frame stream back into records; throws on a torn or malformed stream. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);
  records = 0;

  /** Feeds bytes; returns the complete [key, value] records they finish. */
  push(chunk: Buffer): [Buffer, Buffer][] {
    const buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const out: [Buffer, Buffer][] = [];
    let at = 0;
    for (;;) {
      if (buf.length - at < 4) break;
      const kl = buf.readUInt32BE(at);
      if (buf.length - at < 8 + kl) break;
      const vl = buf.readUInt32BE(at + 4 + kl);
      if (buf.length - at < 8 + kl + vl) break;
      out.push([buf.subarray(at + 4, at + 4 + kl), buf.subarray(at + 8 + kl, at + 8 + kl + vl)]);
      at += 8 + kl + vl;
    }
    this.pending = Buffer.from(buf.subarray(at));
    this.records += out.length;
    return out;
  }

  /** Whether the stream ended on a record boundary. */
  get complete(): boolean {
    return this.pending.length === 0;
  }
}
