/**
 * `work`, or a rejection with `error()` after `ms`. The work itself is not cancelled (a database
 * cannot always interrupt a query): the caller stops waiting, and a given-up rejection is left to
 * settle unobserved. The timer does not keep the process alive.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(error()), ms);
    timer.unref?.();
  });
  work.catch(() => {});
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
