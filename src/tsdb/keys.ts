// The only place that knows byte layouts of keys. Fixed-width hex keeps numeric order
// equal to key order; every chunk and head key starts with the account id.

export type Tier = 0 | 60 | 900 | 3600;
export const TIERS: readonly Tier[] = [0, 60, 900, 3600];

/**
 * Where a chunk part is stored: under its tier, or under MINUTE_RAW, raw points that all
 * lie on whole minutes. Such points are their own 60 s rollup (one point a bucket, at the
 * bucket's start), so they are stored once and read by the raw and the 60 s tier both:
 * agents that report every 60 s, Librato's default period, no longer store every point
 * twice (docs/storage.md, "Parts on whole minutes").
 */
export const MINUTE_RAW = 1;
export type PartTier = Tier | typeof MINUTE_RAW;
/** Every place a part can be stored, for what walks them all (sealing, purges). */
export const PART_TIERS: readonly PartTier[] = [0, MINUTE_RAW, 60, 900, 3600];
const TIER_CHAR: Record<PartTier, string> = { 0: 'r', [MINUTE_RAW]: 'm', 60: 'a', 900: 'b', 3600: 'c' };
const TIER_OF_CHAR: Record<string, PartTier> = Object.fromEntries(PART_TIERS.map((t) => [TIER_CHAR[t], t]));

/**
 * Head windows (and raw and 60 s chunks) cover aligned windows of this many seconds,
 * a multiple of 3600 so that no rollup bucket straddles two of them.
 * GW_TEST_WINDOW_SECONDS shortens it for soak runs, so that window boundaries fall inside
 * one run (`npm run soak -- --window-seconds`). It must be a multiple of 900 s: then the
 * 900 s tier's window (16 windows) is a whole number of 900 s buckets and the 3600 s
 * tier's (64 windows) of 3600 s buckets, so no bucket starts before its chunk's window (a
 * chunk stores times as offsets from its window's start). Test use only: a data dir must
 * always be opened with the window it was written with.
 */
export const WINDOW = testWindow() ?? 21600;

function testWindow(): number | null {
  const raw = process.env.GW_TEST_WINDOW_SECONDS;
  if (raw === undefined || raw === '') return null;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 900 || n % 900 !== 0) throw new Error(`GW_TEST_WINDOW_SECONDS must be a multiple of 900 seconds, not ${raw}`);
  return n;
}

/** Window length per tier: coarser tiers group more time into one chunk (96-384 points). */
export const TIER_WINDOW: Record<PartTier, number> = { 0: WINDOW, [MINUTE_RAW]: WINDOW, 60: WINDOW, 900: 16 * WINDOW, 3600: 64 * WINDOW };

export function windowOf(t: number, tier: PartTier = 0): number {
  const w = TIER_WINDOW[tier];
  return Math.floor(t / w) * w;
}

export function hex8(n: number): string {
  return n.toString(16).padStart(8, '0');
}

export function hex12(n: number): string {
  return n.toString(16).padStart(12, '0');
}

/** `<account>!<tier><series><window><part>`: one chunk (or partial chunk) of points. */
export function chunkKey(account: number, tier: PartTier, series: number, window: number, part: number): string {
  return chunkKeyAt(chunkKeyPrefix(account, tier, series), window, part);
}

/** What every chunk key of one series in one tier starts with (a read builds it once a series). */
export function chunkKeyPrefix(account: number, tier: PartTier, series: number): string {
  return `${account}!${TIER_CHAR[tier]}${hex8(series)}`;
}

/** The chunk key of a window and part under a prefix from chunkKeyPrefix. */
export function chunkKeyAt(prefix: string, window: number, part: number): string {
  return `${prefix}${hex8(window)}${hex12(part)}`;
}

/** Every chunk key of one series in one tier. */
export function seriesRange(account: number, tier: PartTier, series: number): { gte: string; lt: string } {
  const p = chunkKeyPrefix(account, tier, series);
  return { gte: p, lt: p + '~' };
}

export interface ChunkKey {
  account: number;
  tier: PartTier;
  series: number;
  window: number;
  part: number;
}

export function parseChunkKey(key: string): ChunkKey {
  const bang = key.indexOf('!');
  const tier = TIER_OF_CHAR[key.charAt(bang + 1)]!;
  const rest = key.slice(bang + 2);
  return {
    account: Number(key.slice(0, bang)),
    tier,
    series: parseInt(rest.slice(0, 8), 16),
    window: parseInt(rest.slice(8, 16), 16),
    part: parseInt(rest.slice(16, 28), 16),
  };
}

/** Head snapshot of an open window: `<account>!<series><window>`. */
export function headKey(account: number, series: number, window: number): string {
  return `${account}!${hex8(series)}${hex8(window)}`;
}

export function parseHeadKey(key: string): { account: number; series: number; window: number } {
  const bang = key.indexOf('!');
  return { account: Number(key.slice(0, bang)), series: parseInt(key.slice(bang + 1, bang + 9), 16), window: parseInt(key.slice(bang + 9, bang + 17), 16) };
}

/** Series record: `<account>!<series>`. */
export function seriesKey(account: number, series: number): string {
  return `${account}!${hex8(series)}`;
}

/** WAL records are a log, ordered by sequence; the account is inside each record. */
export function walKey(seq: number): string {
  return hex12(seq);
}
