/**
 * The newest block a Ponder app reports as indexed on every chain it follows (its `/status`,
 * the lowest across chains), or -1 before it has indexed any or when it does not answer.
 */
export async function indexedBlock(baseUrl: string, timeoutMs = 2_000): Promise<number> {
  const response = await fetch(`${baseUrl}/status`, { signal: AbortSignal.timeout(timeoutMs) }).catch(() => undefined);
  if (!response?.ok) return -1;
  const status = (await response.json()) as Record<string, { block?: { number: number } }>;
  const numbers = Object.values(status).map((chain) => chain.block?.number ?? -1);
  return numbers.length ? Math.min(...numbers) : -1;
}
