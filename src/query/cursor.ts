// The opaque `next` cursor of series pagination: the sort key of the last series
// returned, base64url-encoded, so a page boundary survives series added meanwhile.
import { paramError } from '../errors.js';

export function encodeCursor(afterKey: string): string {
  return Buffer.from(JSON.stringify({ a: afterKey }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string {
  if (cursor.length > 4096) throw paramError('cursor', 'is invalid');
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { a?: unknown };
    if (typeof v.a === 'string') return v.a;
  } catch { /* below */ }
  throw paramError('cursor', 'is invalid');
}
