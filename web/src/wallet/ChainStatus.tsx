import type { ReactNode } from "react";
import { useBlock } from "wagmi";
import { ChainClockContext } from "../components/time.tsx";
import { usePlatform } from "../context.ts";

/** How often the page asks the chain for its head, and how long a silent chain counts as down. */
const CHECK_EVERY_MS = 10_000;

/**
 * Whether the platform's chain answers (its RPC, from config.json). Reads come from the indexer
 * and keep working while the chain is away; what needs the chain (quotes, trades, votes, spawns)
 * waits for it.
 */
export function useChainDown(): boolean {
  return useChainHead().isError;
}

/**
 * The platform's chain's newest block (whatever chain the wallet is on), polled every 10 s: one
 * query for the health banner and the chain clock alike.
 */
function useChainHead() {
  const { config } = usePlatform();
  return useBlock({
    chainId: config.chainId,
    query: { refetchInterval: CHECK_EVERY_MS, retry: 1, retryDelay: 1_000 },
  });
}

/** A banner on every page while the chain does not answer; it goes away by itself when it does. */
export function ChainDownBanner() {
  const { config } = usePlatform();
  if (!useChainDown()) return null;
  return (
    <div className="banner" role="alert">
      <strong>The chain is not answering</strong> ({config.rpcUrl}). What this page shows comes from the indexer and may
      be behind; trading, voting, boosting and spawning wait until the chain is back. This page checks again every{" "}
      {CHECK_EVERY_MS / 1000} s.
    </div>
  );
}

/**
 * The chain's clock for every RelativeTime below: the newest block's time against this browser's
 * clock when it arrived, re-read with the health check.
 */
export function ChainClock({ children }: { children: ReactNode }) {
  const head = useChainHead();
  const leadMs = head.data ? Math.max(0, Number(head.data.timestamp) * 1000 - head.dataUpdatedAt) : 0;
  return <ChainClockContext value={leadMs}>{children}</ChainClockContext>;
}
