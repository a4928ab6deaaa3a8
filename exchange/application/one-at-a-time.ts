// Commands on the same key (a fee hold's id) run one after another: each starts only when the
// previous one has finished (answered, committed or failed), so a settle never races the hold it
// settles, nor a release. Commands on different keys run as before. Memory keeps only keys with a
// command running or waiting.

export class OneAtATime {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `command` once every earlier command on `key` has finished, whatever their outcome. */
  run<T>(key: string, command: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key);
    const result = before === undefined ? command() : before.then(command, command);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a command running or waiting (tests). */
  get size(): number {
    return this.tails.size;
  }
}
