import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { AgentsOverview } from "../agents/Overview.tsx";
import { LiveBadge } from "../components/live.tsx";
import { Pager } from "../components/Pager.tsx";
import { Empty, QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { usePlatform } from "../context.ts";
import { useEventStream } from "../lib/event-stream.ts";
import { formatAmount, formatCompact, formatPrice, shortAddress } from "../lib/format.ts";
import { launchpadStreamUrl, type SpawnEvent, type SwapEvent } from "../lib/streams.ts";

const SORTS = [
  ["recent", "Recent"],
  ["volume", "Volume"],
  ["tvl", "TVL"],
  ["holders", "Holders"],
] as const;
type Sort = (typeof SORTS)[number][0];
const PAGE_SIZE = 20;

interface TickerEntry {
  key: string;
  tokenAddress: string;
  side: "buy" | "sell";
  tokenAmount: string;
  price: string;
  timestamp: number;
}

export function LaunchpadPage() {
  const { api, config } = usePlatform();
  const queryClient = useQueryClient();
  const [sort, setSort] = useState<Sort>("recent");
  const [boosted, setBoosted] = useState<"" | "true" | "false">("");
  const [poolSide, setPoolSide] = useState<"" | "STABLE" | "WRAPPED_NATIVE">("");
  const [page, setPage] = useState(1);
  const [ticker, setTicker] = useState<TickerEntry[]>([]);
  const [symbols, setSymbols] = useState<Record<string, string>>({});

  const tokens = useQuery({
    queryKey: ["tokens", sort, boosted, poolSide, page],
    queryFn: () =>
      api.eco("/api/launchpad/tokens", {
        query: {
          sort,
          page,
          pageSize: PAGE_SIZE,
          ...(boosted ? { boosted: boosted === "true" } : {}),
          ...(poolSide ? { poolSide } : {}),
        },
      }),
    placeholderData: keepPreviousData,
  });
  const known = { ...symbols, ...Object.fromEntries((tokens.data?.items ?? []).map((t) => [t.address, t.symbol])) };

  const status = useEventStream(
    launchpadStreamUrl(config.ecosystemApiUrl, ["spawn", "swap"]),
    {
      spawn: (data) => {
        const spawn = data as SpawnEvent;
        setSymbols((s) => ({ ...s, [spawn.token.address]: spawn.token.symbol }));
        void queryClient.invalidateQueries({ queryKey: ["tokens"] });
        void queryClient.invalidateQueries({ queryKey: ["overview"] });
      },
      swap: (data) => {
        const swap = data as SwapEvent;
        setTicker((entries) =>
          [
            {
              key: `${swap.txHash}-${swap.logIndex}`,
              tokenAddress: swap.tokenAddress,
              side: swap.side,
              tokenAmount: swap.tokenAmount,
              price: swap.price,
              timestamp: swap.timestamp,
            },
            ...entries.filter((e) => e.key !== `${swap.txHash}-${swap.logIndex}`),
          ].slice(0, 12),
        );
      },
    },
    () => void queryClient.invalidateQueries({ queryKey: ["tokens"] }),
  );

  return (
    <>
      <h1>Launchpad</h1>
      <section aria-labelledby="ticker-heading" className="ticker">
        <h2
          id="ticker-heading"
          className="muted"
          style={{ display: "inline", fontSize: "0.9rem", marginRight: "1rem" }}
        >
          Live trades <LiveBadge status={status} />
        </h2>
        {ticker.length === 0 ? (
          <span className="muted">Waiting for the next trade on any pool…</span>
        ) : (
          <ol aria-live="polite">
            {ticker.map((t) => (
              <li key={t.key}>
                <span className={t.side === "buy" ? "buy-text" : "sell-text"}>{t.side}</span>{" "}
                <Link href={`/tokens/${t.tokenAddress}`}>{known[t.tokenAddress] ?? shortAddress(t.tokenAddress)}</Link>{" "}
                {formatAmount(t.tokenAmount, 0)} @ {formatPrice(t.price)} <RelativeTime time={t.timestamp} />
              </li>
            ))}
          </ol>
        )}
      </section>

      <AgentsOverview title="Overview" />

      <section aria-labelledby="tokens-heading">
        <div className="row">
          <h2 id="tokens-heading">Agent tokens</h2>
          <Link href="/spawn">Spawn a token</Link>
        </div>
        <div className="toolbar">
          <label>
            Sort by
            <select
              value={sort}
              onChange={(e) => {
                setSort(e.target.value as Sort);
                setPage(1);
              }}
            >
              {SORTS.map(([value, text]) => (
                <option key={value} value={value}>
                  {text}
                </option>
              ))}
            </select>
          </label>
          <label>
            Boosted
            <select
              value={boosted}
              onChange={(e) => {
                setBoosted(e.target.value as typeof boosted);
                setPage(1);
              }}
            >
              <option value="">All tokens</option>
              <option value="true">Boosted only</option>
              <option value="false">Not boosted</option>
            </select>
          </label>
          <label>
            Pool side filter
            <select
              value={poolSide}
              onChange={(e) => {
                setPoolSide(e.target.value as typeof poolSide);
                setPage(1);
              }}
            >
              <option value="">Both sides</option>
              <option value="STABLE">Stable</option>
              <option value="WRAPPED_NATIVE">Wrapped native</option>
            </select>
          </label>
        </div>
        <QueryState query={tokens} loading="Loading tokens…">
          {(data) =>
            data.items.length === 0 ? (
              <Empty>
                No token matches. <Link href="/spawn">Spawn the first one</Link>.
              </Empty>
            ) : (
              <>
                <div className="table-wrap">
                  <table aria-labelledby="tokens-heading">
                    <thead>
                      <tr>
                        <th scope="col">Token</th>
                        <th scope="col">Spawned</th>
                        <th scope="col" className="num">
                          TVL (stable)
                        </th>
                        <th scope="col" className="num">
                          Volume 24h (stable)
                        </th>
                        <th scope="col" className="num">
                          Holders
                        </th>
                        <th scope="col">Worker</th>
                        <th scope="col">Boost</th>
                      </tr>
                    </thead>
                    <tbody>
                      {data.items.map((t) => (
                        <tr key={t.address}>
                          <td>
                            <Link href={`/tokens/${t.address}`}>
                              <strong>{t.symbol}</strong> {t.name}
                            </Link>
                          </td>
                          <td>
                            <RelativeTime time={t.spawnedAt} />
                          </td>
                          <td className="num">{formatCompact(t.tvlStable)}</td>
                          <td className="num">{formatCompact(t.volume24hStable)}</td>
                          <td className="num">{t.holders}</td>
                          <td>
                            <span className={`badge ${t.workerStatus}`}>{t.workerStatus}</span>
                          </td>
                          <td>
                            {t.boosted ? (
                              <span className="badge boost">boosted</span>
                            ) : (
                              <span className="muted">—</span>
                            )}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager
                  page={page}
                  pageSize={PAGE_SIZE}
                  totalItems={data.totalItems}
                  noun="tokens"
                  label="Token pages"
                  onPage={setPage}
                />
              </>
            )
          }
        </QueryState>
      </section>
    </>
  );
}
