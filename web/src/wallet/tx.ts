import { useState } from "react";
import type { Hash } from "viem";
import { useConfig } from "wagmi";
import { waitForTransactionReceipt } from "wagmi/actions";
import { walletErrorText } from "./errors.ts";

/**
 * A write from the user's wallet, followed to the end: each step is signed in the wallet, then
 * mined; the last is then waited for in the index (the API shows it), so the page the user lands
 * on already has it.
 */

export type TxPhase = "idle" | "signing" | "mining" | "indexing" | "done" | "failed";

export interface TxState {
  phase: TxPhase;
  message: string;
  hash?: Hash;
}

export interface TxStep {
  /** What the wallet is asked to sign, e.g. "Approve USDT". */
  label: string;
  send: () => Promise<Hash>;
}

export function useTxFlow() {
  const config = useConfig();
  const [state, setState] = useState<TxState>({ phase: "idle", message: "" });

  async function run(
    steps: TxStep[],
    indexed?: (hash: Hash, blockNumber: bigint) => Promise<boolean>,
  ): Promise<Hash | null> {
    let hash: Hash | undefined;
    let blockNumber = 0n;
    try {
      for (const step of steps) {
        setState({ phase: "signing", message: `${step.label}: confirm in your wallet…` });
        hash = await step.send();
        setState({ phase: "mining", message: `${step.label}: waiting for the transaction to be mined…`, hash });
        const receipt = await waitForTransactionReceipt(config, { hash, pollingInterval: 250 });
        if (receipt.status !== "success") throw new Error(`${step.label}: the transaction reverted (${hash})`);
        blockNumber = receipt.blockNumber;
      }
      if (hash && indexed) {
        setState({ phase: "indexing", message: `Mined in block ${blockNumber}; waiting for the indexer…`, hash });
        const deadline = Date.now() + 60_000;
        while (!(await indexed(hash, blockNumber).catch(() => false))) {
          if (Date.now() > deadline) {
            setState({
              phase: "done",
              message: `Mined in block ${blockNumber}; the indexer has not shown it yet.`,
              hash,
            });
            return hash;
          }
          await new Promise((resolve) => setTimeout(resolve, 400));
        }
      }
      setState({ phase: "done", message: `Done: mined in block ${blockNumber}.`, hash });
      return hash ?? null;
    } catch (error) {
      setState({ phase: "failed", message: walletErrorText(error), hash });
      return null;
    }
  }

  const busy = state.phase === "signing" || state.phase === "mining" || state.phase === "indexing";
  return { state, run, busy, reset: () => setState({ phase: "idle", message: "" }) };
}
