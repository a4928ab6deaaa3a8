import { useState } from "react";
import { formatEther } from "viem";
import { useReadContracts, useWriteContract } from "wagmi";
import { usePlatform } from "../context.ts";
import { formatAmount } from "../lib/format.ts";
import { BoosterAbi } from "../wallet/abis.ts";
import { TxStatus } from "../wallet/TxStatus.tsx";
import { useTxFlow } from "../wallet/tx.ts";

const TIERS = [1, 2, 3] as const;

/** Buy a boost for the token: the tier's price (native token) is read from the Booster and paid exactly. */
export function BoostPanel({ agentNftId, onDone }: { agentNftId: number; onDone: (hash: string) => Promise<boolean> }) {
  const { config } = usePlatform();
  const booster = config.contracts.Booster as `0x${string}`;
  const [tier, setTier] = useState<number>(1);
  const { writeContractAsync } = useWriteContract();
  const tx = useTxFlow();
  const tiers = useReadContracts({
    contracts: TIERS.map(
      (t) => ({ address: booster, abi: BoosterAbi, functionName: "tierConfig", args: [t] }) as const,
    ),
  });
  const configs = TIERS.map((t, i) => ({ tier: t, config: tiers.data?.[i]?.result })).filter((t) => t.config?.enabled);
  const chosen = configs.find((t) => t.tier === tier) ?? configs[0];

  if (tiers.isPending) return <p className="muted">Reading boost tiers…</p>;
  if (configs.length === 0) return <p className="muted">No boost tier is on sale.</p>;
  return (
    <div className="row">
      <label>
        Boost tier
        <select value={chosen?.tier} onChange={(e) => setTier(Number(e.target.value))}>
          {configs.map((t) => (
            <option key={t.tier} value={t.tier}>
              Tier {t.tier}: {formatAmount(formatEther(t.config!.price), 6)} ETH for{" "}
              {Math.round(Number(t.config!.duration) / 3600)} h
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        disabled={tx.busy || !chosen}
        onClick={() =>
          void tx.run(
            [
              {
                label: `Boost (tier ${chosen!.tier})`,
                send: () =>
                  writeContractAsync({
                    address: booster,
                    abi: BoosterAbi,
                    functionName: "boost",
                    args: [BigInt(agentNftId), chosen!.tier],
                    value: chosen!.config!.price,
                  }),
              },
            ],
            (hash) => onDone(hash),
          )
        }
      >
        Boost
      </button>
      <TxStatus state={tx.state} />
    </div>
  );
}
