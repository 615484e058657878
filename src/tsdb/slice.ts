// Long jobs on the request thread (checkpoint encoding, compaction) run in slices: they
// give the event loop back after a few milliseconds of work, so a request never waits
// behind them for longer than that.

/** Yields to the event loop once `budgetMs` of work has passed since the last yield. */
export class TimeSlice {
  private since = performance.now();

  constructor(private readonly budgetMs = 4) {}

  async pause(): Promise<void> {
    if (performance.now() - this.since < this.budgetMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.since = performance.now();
  }
}

/** One holder at a time: compaction and the retention pass both rewrite chunk parts. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
