/** `data` in snappy's block format (bench/snappy.js). */
export function snappyCompress(data: Buffer): Buffer;
