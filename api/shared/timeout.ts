/**
 * A promise that settles as `work` does, or rejects with `message` after `ms`. The work itself
 * is not cancelled (an embedded database cannot interrupt a query): the caller stops waiting,
 * and callers that poll never start a second read while one is waited for.
 */
export function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref?.();
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
