import autocannon from "autocannon";

// One endpoint under load. autocannon runs in a thread of its own (its option workers: 1): the server is in this
// process, and a load generator sharing its event loop would measure itself as much as the server.
// With 2 cores, that is one core for the server's thread and one for the load.

export interface LoadResult {
  readonly name: string;
  readonly path: string;
  readonly requestsPerSecond: number;
  readonly p99Ms: number;
  readonly requests: number;
}

export async function load(
  baseUrl: string,
  name: string,
  path: string,
  opts: { durationS: number; connections: number },
): Promise<LoadResult> {
  const result = await autocannon({
    url: `${baseUrl}${path}`,
    connections: opts.connections,
    duration: opts.durationS,
    workers: 1,
    // Lets the JIT and the caches settle before anything counts.
    warmup: { connections: opts.connections, duration: 1 },
  } as autocannon.Options);
  // Every answer must be a 200: a 429 or an error would make a fast-looking number meaningless.
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0)
    throw new Error(
      `${path}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts under load`,
    );
  if (result.requests.total === 0) throw new Error(`${path}: no request completed`);
  return {
    name,
    path,
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
  };
}
