import { createPublicClient, http } from "viem";

/**
 * Raw JSON-RPC calls (node control such as evm_mine, or a liveness probe) through viem's client
 * rather than hand-written fetch: one transport, one error type. Retries are off so a node that
 * is not up yet fails at once and the caller's wait loop decides.
 */
export async function rpcRequest<T = unknown>(
  url: string,
  method: string,
  params: readonly unknown[] = [],
  { timeoutMs = 10_000 } = {},
): Promise<T> {
  const client = createPublicClient({ transport: http(url, { retryCount: 0, timeout: timeoutMs }) });
  return (await client.request({ method, params } as never)) as T;
}
