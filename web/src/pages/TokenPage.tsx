import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { erc20Abi } from "viem";
import { useReadContract } from "wagmi";
import { Link } from "wouter";
import type { EcosystemData } from "../api/clients.ts";
import { ApiError } from "../api/errors.ts";
import { CopyableAddress, ShortAddress } from "../components/address.tsx";
import { CandleChart } from "../components/CandleChart.tsx";
import { IntervalPicker } from "../components/IntervalPicker.tsx";
import { LiveBadge } from "../components/live.tsx";
import { ErrorState, Loading, QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { usePlatform } from "../context.ts";
import { applyTrade, type Candle, INTERVAL_LABELS, type Interval, intervalSeconds } from "../lib/candles.ts";
import { useEventStream } from "../lib/event-stream.ts";
import { formatAmount, formatCompact, formatPrice, formatShare } from "../lib/format.ts";
import { CHANGE_WINDOWS, priceChanges } from "../lib/price-change.ts";
import { launchpadStreamUrl, type SwapEvent } from "../lib/streams.ts";
import { throttle } from "../lib/throttle.ts";
import { BoostPanel } from "../token/BoostPanel.tsx";
import { ProposalsPanel } from "../token/ProposalsPanel.tsx";
import { TradePanel } from "../token/TradePanel.tsx";
import { WorkerPanel } from "../token/WorkerPanel.tsx";
import { WithWallet } from "../wallet/guard.tsx";

type Trades = EcosystemData<"/api/launchpad/tokens/{id}/trades">;
type Trade = Trades["items"][number];

function nowSeconds() {
  return Math.floor(Date.now() / 1000);
}

function toCandles(rows: EcosystemData<"/api/launchpad/tokens/{id}/candles">): Candle[] {
  return rows.map((r) => ({
    time: r.time,
    open: r.open,
    max: r.max,
    min: r.min,
    close: r.close,
    volume: r.volume,
    volumeBase: r.volumeBase,
  }));
}

export default function TokenPage({ address }: { address: string }) {
  const { api, config } = usePlatform();
  const queryClient = useQueryClient();
  const id = address.toLowerCase();
  const [interval, setChartInterval] = useState<Interval>("minutes5");

  const detail = useQuery({
    queryKey: ["token", id],
    queryFn: () => api.eco("/api/launchpad/tokens/{id}", { path: { id } }),
  });
  const pool = useQuery({
    queryKey: ["pool", id],
    queryFn: () => api.eco("/api/launchpad/tokens/{id}/pool", { path: { id } }),
    enabled: detail.isSuccess,
  });
  const candles = useQuery({
    queryKey: ["candles", id, interval],
    queryFn: async () => {
      const end = nowSeconds() + 60;
      const start = end - intervalSeconds(interval) * 300;
      return toCandles(
        await api.eco("/api/launchpad/tokens/{id}/candles", {
          path: { id },
          query: { interval, start: String(start), end: String(end) },
        }),
      );
    },
    enabled: detail.isSuccess,
  });
  const day = useQuery({
    queryKey: ["candles-24h", id],
    queryFn: async () => {
      const end = nowSeconds() + 60;
      return toCandles(
        await api.eco("/api/launchpad/tokens/{id}/candles", {
          path: { id },
          query: { interval: "minute", start: String(end - 86_400 - 3600), end: String(end) },
        }),
      );
    },
    enabled: detail.isSuccess,
  });
  const trades = useQuery({
    queryKey: ["trades", id],
    queryFn: () => api.eco("/api/launchpad/tokens/{id}/trades", { path: { id }, query: { pageSize: 25 } }),
    enabled: detail.isSuccess,
  });
  const holders = useQuery({
    queryKey: ["holders", id],
    queryFn: () => api.eco("/api/launchpad/tokens/{id}/holders", { path: { id }, query: { pageSize: 10 } }),
    enabled: detail.isSuccess,
  });
  const pairSymbol = useReadContract({
    address: pool.data?.pairAsset as `0x${string}` | undefined,
    abi: erc20Abi,
    functionName: "symbol",
    query: { enabled: Boolean(pool.data) },
  }).data;

  // What a swap changes beyond its own row and candle (reserves, holders, TVL and volume) is
  // re-read at most every 2 s, however fast the pool trades.
  const refreshAfterSwaps = useMemo(
    () =>
      throttle(() => {
        void queryClient.invalidateQueries({ queryKey: ["pool", id] });
        void queryClient.invalidateQueries({ queryKey: ["holders", id] });
        void queryClient.invalidateQueries({ queryKey: ["token", id] });
      }, 2_000),
    [queryClient, id],
  );
  useEffect(() => refreshAfterSwaps.cancel, [refreshAfterSwaps]);

  const streamStatus = useEventStream(
    detail.isSuccess ? launchpadStreamUrl(config.ecosystemApiUrl, ["swap", "vote", "boost"], id) : null,
    {
      swap: (data) => {
        const swap = data as SwapEvent;
        queryClient.setQueryData<Trades>(["trades", id], (old) => {
          if (!old || old.items.some((t) => t.txHash === swap.txHash && t.logIndex === swap.logIndex)) return old;
          const row: Trade = {
            txHash: swap.txHash,
            logIndex: swap.logIndex,
            blockNumber: swap.blockNumber,
            timestamp: swap.timestamp,
            trader: swap.trader,
            side: swap.side,
            tokenAmount: swap.tokenAmount,
            pairAmount: swap.pairAmount,
            price: swap.price,
          };
          return { ...old, items: [row, ...old.items].slice(0, 50), totalItems: old.totalItems + 1 };
        });
        const live = {
          time: swap.timestamp,
          price: swap.price,
          amount: swap.tokenAmount,
          quoteAmount: swap.pairAmount,
        };
        queryClient.setQueryData<Candle[]>(["candles", id, interval], (old) => old && applyTrade(old, live, interval));
        queryClient.setQueryData<Candle[]>(["candles-24h", id], (old) => old && applyTrade(old, live, "minute"));
        refreshAfterSwaps();
      },
      vote: () => void queryClient.invalidateQueries({ queryKey: ["proposals", id] }),
      boost: () => void queryClient.invalidateQueries({ queryKey: ["token", id] }),
    },
    () => void queryClient.invalidateQueries(),
  );

  if (detail.error) {
    const unknown = detail.error instanceof ApiError && (detail.error.status === 404 || detail.error.status === 400);
    return (
      <>
        <h1>{unknown ? "Unknown token" : "Token"}</h1>
        {unknown ? (
          <div className="state empty">
            <p>
              No agent token lives at <code>{address}</code>
              {detail.error instanceof ApiError && detail.error.status === 400
                ? " (that is not a token address or NFT id)"
                : ""}
              .
            </p>
            <p>
              <Link href="/">Back to the launchpad</Link>
            </p>
          </div>
        ) : (
          <ErrorState error={detail.error} onRetry={() => void detail.refetch()} />
        )}
      </>
    );
  }
  if (!detail.data) return <Loading label="Loading the token…" />;
  const { token, worker, metadata, boost } = detail.data;
  const side = detail.data.pool.side;
  const pairName = pairSymbol ?? (side === "STABLE" ? "stable" : "WETH");
  const changes = day.data
    ? priceChanges(day.data, Math.max(nowSeconds(), trades.data?.items[0]?.timestamp ?? 0))
    : null;

  // A trade is indexed once the trades list (newest first) holds its hash.
  const isIndexed = async (hash: string) => {
    const page = await api.eco("/api/launchpad/tokens/{id}/trades", { path: { id }, query: { pageSize: 10 } });
    return page.items.some((t) => t.txHash.toLowerCase() === hash.toLowerCase());
  };

  return (
    <>
      <h1>
        {token.name} <span className="muted">({token.symbol})</span>
      </h1>
      <p>
        <CopyableAddress address={token.address} label="token address" />
      </p>
      <p className="muted">
        Created by <ShortAddress address={token.owner} />, spawned <RelativeTime time={token.spawnedAt} />. Pool side{" "}
        {side === "STABLE" ? "stable" : "wrapped native"} ({pairName}), fee {detail.data.pool.feeTier / 10_000}%.{" "}
        {boost.active ? (
          <span className="badge boost">
            Boosted (tier {boost.tier}) until <RelativeTime time={boost.expiresAt} />
          </span>
        ) : boost.expiresAt ? (
          <>
            Boost expired <RelativeTime time={boost.expiresAt} />.
          </>
        ) : (
          "Never boosted."
        )}
      </p>
      {metadata.description && <p>{metadata.description}</p>}
      {metadata.website && /^https?:\/\//.test(metadata.website) && (
        <p>
          <a href={metadata.website} rel="noopener noreferrer nofollow" target="_blank">
            {metadata.website}
          </a>
        </p>
      )}

      <dl className="stats">
        <div>
          <dt>Price ({pairName})</dt>
          <dd>{pool.data?.price ? formatPrice(pool.data.price) : "—"}</dd>
        </div>
        {CHANGE_WINDOWS.map(([name]) => (
          <div key={name}>
            <dt>Change {name}</dt>
            <dd
              className={
                changes?.[name]?.startsWith("-") ? "sell-text" : changes?.[name]?.startsWith("+") ? "buy-text" : ""
              }
            >
              {changes ? (changes[name] ?? "—") : "…"}
            </dd>
          </div>
        ))}
        <div>
          <dt>TVL ({pairName})</dt>
          <dd>{formatCompact(detail.data.pool.tvl)}</dd>
        </div>
        <div>
          <dt>Volume 24h ({pairName})</dt>
          <dd>{formatCompact(detail.data.pool.volume24h)}</dd>
        </div>
        <div>
          <dt>Holders</dt>
          <dd>{holders.data ? holders.data.totalItems : "…"}</dd>
        </div>
        <div>
          <dt>Total supply</dt>
          <dd>{formatCompact(token.totalSupply)}</dd>
        </div>
      </dl>

      <section aria-labelledby="chart-heading">
        <div className="row">
          <h2 id="chart-heading">Price chart</h2>
          <LiveBadge status={streamStatus} />
        </div>
        <IntervalPicker value={interval} onChange={setChartInterval} />
        <QueryState query={candles} loading="Loading candles…">
          {(data) =>
            data.length === 0 ? (
              <p className="state empty">No trade in this range yet.</p>
            ) : (
              <CandleChart candles={data} label={`${token.symbol} price candles, ${INTERVAL_LABELS[interval]}`} />
            )
          }
        </QueryState>
      </section>

      <div className="grid two">
        <section aria-labelledby="trade-heading" className="panel">
          <h2 id="trade-heading">Trade</h2>
          {pool.data ? (
            <WithWallet what="trade on the pool">
              {(account) => (
                <TradePanel
                  account={account}
                  token={token.address as `0x${string}`}
                  symbol={token.symbol}
                  pool={pool.data.address as `0x${string}`}
                  pairAsset={pool.data.pairAsset as `0x${string}`}
                  pairSymbol={pairName}
                  isIndexed={isIndexed}
                  onDone={() => void queryClient.invalidateQueries({ queryKey: ["trades", id] })}
                />
              )}
            </WithWallet>
          ) : (
            <Loading label="Loading the pool…" />
          )}
        </section>
        <section aria-labelledby="boost-heading" className="panel">
          <h2 id="boost-heading">Boost</h2>
          <p className="muted">
            {boost.active
              ? `Boosted at tier ${boost.tier}; buying more extends it.`
              : "Not boosted. A boost lists the token as boosted."}
          </p>
          <WithWallet what="boost this token">
            {() => (
              <BoostPanel
                agentNftId={worker.agentNftId}
                onDone={async () => {
                  const fresh = await api.eco("/api/launchpad/tokens/{id}", { path: { id } });
                  const done = fresh.boost.active && fresh.boost.expiresAt !== boost.expiresAt;
                  if (done) queryClient.setQueryData(["token", id], fresh);
                  return done;
                }}
              />
            )}
          </WithWallet>
        </section>
      </div>

      <section aria-labelledby="trades-heading">
        <h2 id="trades-heading">Trades</h2>
        <QueryState query={trades}>
          {(data) =>
            data.items.length === 0 ? (
              <p className="state empty">No trade yet. Be the first to buy.</p>
            ) : (
              <div className="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Side</th>
                      <th scope="col" className="num">
                        {token.symbol}
                      </th>
                      <th scope="col" className="num">
                        {pairName}
                      </th>
                      <th scope="col" className="num">
                        Price
                      </th>
                      <th scope="col">Trader</th>
                      <th scope="col">Transaction</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((t) => (
                      <tr key={`${t.txHash}-${t.logIndex}`}>
                        <td>
                          <RelativeTime time={t.timestamp} />
                        </td>
                        <td className={t.side === "buy" ? "buy-text" : "sell-text"}>{t.side}</td>
                        <td className="num">{formatAmount(t.tokenAmount, 2)}</td>
                        <td className="num">{formatAmount(t.pairAmount, 6)}</td>
                        <td className="num">{formatPrice(t.price)}</td>
                        <td>
                          <ShortAddress address={t.trader} />
                        </td>
                        <td>
                          <code title={t.txHash}>{t.txHash.slice(0, 10)}…</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </QueryState>
      </section>

      <section aria-labelledby="holders-heading">
        <h2 id="holders-heading">Top holders</h2>
        <QueryState query={holders}>
          {(data) => (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Holder</th>
                    <th scope="col" className="num">
                      Balance
                    </th>
                    <th scope="col" className="num">
                      Share
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((h) => (
                    <tr key={h.address}>
                      <td>
                        <ShortAddress address={h.address} />{" "}
                        {h.label && (
                          <span className="badge">
                            {h.label === "pool" ? "pool" : h.label === "creator" ? "creator" : "burn"}
                          </span>
                        )}
                      </td>
                      <td className="num">{formatAmount(h.balance, 2)}</td>
                      <td className="num">{formatShare(h.share)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </QueryState>
      </section>

      <WorkerPanel tokenId={id} agentNftId={worker.agentNftId} />
      <ProposalsPanel tokenAddress={id} workerId={worker.id} />
    </>
  );
}
