import { useQuery } from "@tanstack/react-query";
import { usePlatform } from "../context.ts";

export interface TokenRef {
  agentNftId: number;
  address: string;
  symbol: string;
}

/**
 * NFT id -> token, from the worker list (one worker per token): action-log entries name their
 * token by NFT id only, and people read symbols. The first 100 workers (the API's page limit)
 * cover the demo and a young launchpad; an id beyond them is shown as `#id`, linked all the same
 * (token and worker routes take the NFT id as well as the address).
 */
export function useTokenDirectory(): Map<number, TokenRef> {
  const { api } = usePlatform();
  const query = useQuery({
    queryKey: ["token-directory"],
    queryFn: () => api.eco("/api/agents/workers", { query: { pageSize: 100 } }),
    staleTime: 60_000,
  });
  const map = new Map<number, TokenRef>();
  for (const w of query.data?.items ?? [])
    map.set(w.agentNftId, { agentNftId: w.agentNftId, address: w.tokenAddress, symbol: w.tokenSymbol });
  return map;
}
