import { useQuery } from "@tanstack/react-query";
import { type ReactNode, useEffect, useState } from "react";
import { formatEther } from "viem";
import { useConnection, useReadContract, useWriteContract } from "wagmi";
import { useLocation } from "wouter";
import { RelativeTime } from "../components/time.tsx";
import { usePlatform } from "../context.ts";
import { formatAmount } from "../lib/format.ts";
import { type SpawnInput, validateSpawn } from "../spawn/validate.ts";
import { AgentSpawnerAbi } from "../wallet/abis.ts";
import { WithWallet } from "../wallet/guard.tsx";
import { TxStatus } from "../wallet/TxStatus.tsx";
import { useTxFlow } from "../wallet/tx.ts";

const EMPTY: SpawnInput = {
  name: "",
  symbol: "",
  totalSupply: "1000000000",
  poolSide: "STABLE",
  description: "",
  logoUri: "",
  website: "",
};

/** `value` once it has stopped changing for `ms`. */
function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export default function SpawnPage() {
  const { config, api } = usePlatform();
  const spawner = config.contracts.AgentSpawner as `0x${string}`;
  const [input, setInput] = useState<SpawnInput>(EMPTY);
  const [touched, setTouched] = useState<Partial<Record<keyof SpawnInput, boolean>>>({});
  const [, navigate] = useLocation();
  const connection = useConnection();
  const { writeContractAsync } = useWriteContract();
  const tx = useTxFlow();
  const { errors, totalSupplyWei } = validateSpawn(input);

  const fee = useReadContract({ address: spawner, abi: AgentSpawnerAbi, functionName: "spawnFee" });
  const nextSpawnAt = useReadContract({
    address: spawner,
    abi: AgentSpawnerAbi,
    functionName: "nextSpawnAt",
    args: connection.address ? [connection.address] : undefined,
    query: { enabled: Boolean(connection.address) },
  });
  // Taken symbols are found while typing: the spawner's own record is the truth (the API's list
  // is the same set, once indexed), so a symbol spawned a second ago is caught too.
  const symbol = useDebounced(input.symbol, 300);
  const taken = useReadContract({
    address: spawner,
    abi: AgentSpawnerAbi,
    functionName: "isSymbolTaken",
    args: [symbol],
    query: { enabled: /^[A-Z]{3,5}$/.test(symbol) },
  });
  const symbolTaken = symbol === input.symbol && taken.data === true;
  const recent = useQuery({
    queryKey: ["tokens", "recent-symbols"],
    queryFn: () => api.eco("/api/launchpad/tokens", { query: { sort: "recent", pageSize: 100 } }),
  });
  const takenByList = recent.data?.items.some((t) => t.symbol === input.symbol) ?? false;

  const cooldownUntil =
    nextSpawnAt.data && nextSpawnAt.data > BigInt(Math.floor(Date.now() / 1000)) ? Number(nextSpawnAt.data) : null;
  const set = (key: keyof SpawnInput) => (e: { target: { value: string } }) => {
    setInput({ ...input, [key]: key === "symbol" ? e.target.value.toUpperCase() : e.target.value });
    setTouched({ ...touched, [key]: true });
  };
  const show = (key: keyof SpawnInput) => (touched[key] ? errors[key] : undefined);
  const symbolError =
    show("symbol") ?? (symbolTaken || takenByList ? `${input.symbol} is taken: choose another symbol` : undefined);
  const ready =
    totalSupplyWei !== null && !symbolTaken && !takenByList && fee.data !== undefined && cooldownUntil === null;

  const submit = async () => {
    setTouched({ name: true, symbol: true, totalSupply: true, description: true, website: true, logoUri: true });
    if (!ready || totalSupplyWei === null || fee.data === undefined) return;
    const wanted = input.symbol;
    let address: string | null = null;
    const hash = await tx.run(
      [
        {
          label: `Spawn ${wanted}`,
          send: () =>
            writeContractAsync({
              address: spawner,
              abi: AgentSpawnerAbi,
              functionName: "spawn",
              args: [
                input.name.trim(),
                wanted,
                totalSupplyWei,
                input.poolSide === "STABLE" ? 0 : 1,
                { description: input.description, logoUri: input.logoUri, website: input.website },
              ],
              value: fee.data,
            }),
        },
      ],
      async () => {
        const list = await api.eco("/api/launchpad/tokens", { query: { sort: "recent", pageSize: 20 } });
        address = list.items.find((t) => t.symbol === wanted)?.address ?? null;
        return address !== null;
      },
    );
    if (hash && address) navigate(`/tokens/${address}`);
  };

  const field = (key: keyof SpawnInput, label: string, hint: string, control: ReactNode) => (
    <div className="field">
      <label htmlFor={`spawn-${key}`}>{label}</label>
      {control}
      <span id={`${key}-hint`} className={show(key) || (key === "symbol" && symbolError) ? "error-text" : "field-hint"}>
        {key === "symbol" ? (symbolError ?? hint) : (show(key) ?? hint)}
      </span>
    </div>
  );

  return (
    <>
      <h1>Spawn an agent token</h1>
      <p>
        A spawn creates the token, its pool, its worker and its agent NFT in one transaction from your wallet. The whole
        supply goes to the pool; you buy your stake on the curve like everyone else.
      </p>
      <form
        className="trade-form panel"
        aria-label="Spawn form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        {field(
          "name",
          "Name",
          "Up to 50 characters.",
          <input
            value={input.name}
            onChange={set("name")}
            aria-invalid={Boolean(show("name"))}
            id="spawn-name"
            aria-describedby="name-hint"
          />,
        )}
        {field(
          "symbol",
          "Symbol",
          "3 to 5 capital letters, unique on the chain.",
          <input
            value={input.symbol}
            onChange={set("symbol")}
            maxLength={5}
            autoCapitalize="characters"
            aria-invalid={Boolean(symbolError)}
            id="spawn-symbol"
            aria-describedby="symbol-hint"
          />,
        )}
        {field(
          "totalSupply",
          "Total supply",
          "Whole tokens (18 decimals), default 1,000,000,000.",
          <input
            inputMode="numeric"
            value={input.totalSupply}
            onChange={set("totalSupply")}
            aria-invalid={Boolean(show("totalSupply"))}
            id="spawn-totalSupply"
            aria-describedby="totalSupply-hint"
          />,
        )}
        {field(
          "poolSide",
          "Pool side",
          "The asset the token's pool pairs it with.",
          <select
            value={input.poolSide}
            onChange={set("poolSide")}
            id="spawn-poolSide"
            aria-describedby="poolSide-hint"
          >
            <option value="STABLE">Stable token</option>
            <option value="WRAPPED_NATIVE">Wrapped native (WETH)</option>
          </select>,
        )}
        {field(
          "description",
          "Description",
          "Optional, up to 512 bytes, stored on-chain.",
          <textarea
            rows={3}
            value={input.description}
            onChange={set("description")}
            id="spawn-description"
            aria-describedby="description-hint"
          />,
        )}
        {field(
          "logoUri",
          "Logo URI",
          "Optional: http(s):// or ipfs://.",
          <input value={input.logoUri} onChange={set("logoUri")} id="spawn-logoUri" aria-describedby="logoUri-hint" />,
        )}
        {field(
          "website",
          "Website",
          "Optional: http(s)://.",
          <input value={input.website} onChange={set("website")} id="spawn-website" aria-describedby="website-hint" />,
        )}
        <p>
          Spawn fee:{" "}
          <strong>
            {fee.data !== undefined
              ? `${formatAmount(formatEther(fee.data), 18)} ETH`
              : fee.error
                ? "unavailable (is the chain up?)"
                : "…"}
          </strong>
          , paid from your wallet and burned in full.
        </p>
        {cooldownUntil !== null && (
          <p className="error-text" role="alert">
            Your address spawned recently: it can spawn again <RelativeTime time={cooldownUntil} />.
          </p>
        )}
        <WithWallet what="spawn a token">
          {() => (
            <div>
              <button type="submit" disabled={tx.busy}>
                Spawn token
              </button>
            </div>
          )}
        </WithWallet>
        <TxStatus state={tx.state} />
      </form>
    </>
  );
}
