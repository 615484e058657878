// Serialises the writes of one account to one kind of resource, so that a check
// ("is this name taken?", "does the space still exist?") and the write that depends on
// it cannot interleave with another request's. Reads do not take the lock.

export class AccountLock {
  private readonly tails = new Map<number, Promise<unknown>>();

  run<T>(accountId: number, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(accountId) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.catch(() => undefined);
    this.tails.set(accountId, tail);
    void tail.then(() => {
      if (this.tails.get(accountId) === tail) this.tails.delete(accountId);
    });
    return result;
  }
}
