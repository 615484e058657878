// How much one query may read and answer. The read bound is checked before anything is
// read, from series x buckets. An answer's measurements become objects and then one JSON
// text, about 0.4-0.6 KB a measurement at the peak: a 2-day raw read of 100 series with
// summary_function=all (17 M measurements) took the server to 3.6 GB and ended in a 500
// when the text passed V8's longest string. Counted as the answer is built, so a sparse
// series read at a fine resolution is refused only when its points are really there.
import type { ReadOptions } from '../tsdb/engine.js';

/** Upper bound of series x buckets one query may read (memory and time guard). */
export const MAX_QUERY_POINTS = 20_000_000;

/** `limits.answer_measurements`'s default. */
export const MAX_ANSWER_MEASUREMENTS = 1_000_000;

/**
 * What a `summary_function=all` measurement counts as: its seven numbers make about four
 * times a plain one's text (1,000,000 of them: 173 against 44 MB, and the server's peak
 * 1.1 GB against 0.56 GB above its resting size).
 */
export const ALL_SUMMARY_WEIGHT = 4;

export interface QueryOptions {
  /** how its reads are admitted (the request's signal) */
  reads?: ReadOptions;
  /** measurements (source-based: records) the answer may hold, over all its series */
  maxAnswer?: number;
}

/** Counts what an answer holds; `refuse` makes the error (from a message saying how much) once it holds too much. */
export class AnswerSize {
  private held = 0;

  constructor(private readonly limit: number, private readonly refuse: (message: string) => Error) {}

  add(measurements: number): void {
    this.held += measurements;
    if (this.held > this.limit) {
      throw this.refuse(`the answer would hold more than ${this.limit} measurements (limits.answer_measurements)`);
    }
  }
}
