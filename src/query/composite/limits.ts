// Bounds on what one composite expression may ask for, so that a hostile or careless
// expression is a 400 before anything is read, never a slow or crashed service.

/** Characters in an expression. */
export const MAX_EXPRESSION_LENGTH = 8192;
/** Nesting of calls, sets and maps: the parser recurses once per level. */
export const MAX_DEPTH = 32;
/** Items written in one `[...]` set literal. */
export const MAX_SET_ITEMS = 100;
/** `series()` calls, each counted once per timeshift offset that encloses it. */
export const MAX_SERIES_CALLS = 100;
/** Offsets in one `timeshift()`. */
export const MAX_TIMESHIFT_OFFSETS = 16;
/** Largest shift in either direction: a little over a year (`"52w"`, `"365d"`). */
export const MAX_TIMESHIFT_SECONDS = 400 * 86400;
/** `window()` and `moving_average()` size, in points (librato-api-notes §1.2). */
export const MAX_WINDOW_SIZE = 64;
/** `top()` / `bottom()` count. */
export const MAX_RANK_COUNT = 10_000;
/** `series(..., {period})` in seconds: the largest query resolution. */
export const MAX_PERIOD = 604800;
/** Values one query may read or align (series x buckets): bounds memory and time. */
export const MAX_COMPOSITE_POINTS = 10_000_000;
