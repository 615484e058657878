// Prometheus's duration and size notations, as operators write them in prometheus.yml:
// `1h30m`, `15s`, `500ms`, `0`; `10MB`, `512KiB`, `0`.

const DURATION = /^(?:([0-9]+)y)?(?:([0-9]+)w)?(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?(?:([0-9]+)ms)?$/;
const MS = { y: 365 * 86_400_000, w: 7 * 86_400_000, d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
const UNITS = ['y', 'w', 'd', 'h', 'm', 's', 'ms'] as const;

export const DURATION_MESSAGE = 'must be a duration such as 15s, 1m30s, 2h or 500ms (units y w d h m s ms, largest first)';

/** Milliseconds of a Prometheus duration, or null if `text` is not one. */
export function parseDuration(text: string): number | null {
  if (text === '0') return 0;
  const m = text === '' ? null : DURATION.exec(text);
  if (!m) return null;
  let ms = 0;
  UNITS.forEach((unit, i) => {
    if (m[i + 1] !== undefined) ms += Number(m[i + 1]) * MS[unit];
  });
  return Number.isSafeInteger(ms) ? ms : null;
}

/**
 * The canonical spelling, as Prometheus prints it (and puts in `__scrape_interval__`):
 * 90000 -> `1m30s`. Years and weeks only when they divide evenly, so 90d stays `90d`.
 */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = ms;
  let out = '';
  for (const unit of UNITS) {
    const size = MS[unit];
    if ((unit === 'y' || unit === 'w') && rest % size !== 0) continue;
    const n = Math.floor(rest / size);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * size;
    }
  }
  return out;
}

const SIZE = /^([0-9]+(?:\.[0-9]+)?)(B|KB|MB|GB|TB|PB|EB|KiB|MiB|GiB|TiB|PiB|EiB)$/;
const POWERS: Record<string, number> = { B: 0, K: 1, M: 2, G: 3, T: 4, P: 5, E: 6 };

export const SIZE_MESSAGE = 'must be a size such as 512KB, 10MB or 1GB (units B KB MB GB TB PB EB, powers of 1024), or 0 for no limit';

/** Bytes of a Prometheus size (`10MB` = 10 x 1024 x 1024; `KiB` spellings too), or null. */
export function parseSize(value: string | number): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (value === '0') return 0;
  const m = SIZE.exec(value);
  if (!m) return null;
  const bytes = Math.floor(Number(m[1]) * 1024 ** POWERS[m[2]![0]!]!);
  return Number.isSafeInteger(bytes) ? bytes : null;
}
