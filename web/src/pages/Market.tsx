import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState } from "react";
import { Link } from "wouter";
import type { ExchangeData } from "../api/clients.ts";
import { CandleChart } from "../components/CandleChart.tsx";
import { IntervalPicker } from "../components/IntervalPicker.tsx";
import { LiveBadge } from "../components/live.tsx";
import { Empty, ErrorState, Loading, QueryState } from "../components/states.tsx";
import { RelativeTime } from "../components/time.tsx";
import { usePlatform } from "../context.ts";
import {
  applyTrade,
  bucketStart,
  type Candle,
  INTERVAL_LABELS,
  type Interval,
  intervalSeconds,
} from "../lib/candles.ts";
import { compareDecimal, fromScaled, isZeroDecimal, toScaled } from "../lib/decimal.ts";
import { type SocketStatus, openExchangeSocket } from "../lib/exchange-socket.ts";
import { formatAmount, formatCompact, formatPrice } from "../lib/format.ts";
import { type ChangeView, changeView } from "../lib/market-change.ts";
import { TradingPanel } from "../trading/TradingPanel.tsx";
import { type DepthDiff, groupLevels, type Level, LocalBook } from "../lib/orderbook.ts";

type Deals = ExchangeData<"/api/deals">;

/** "2026-04-29T12:00:00" without offset, as /api/ohlc takes it. */
function isoNoOffset(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}

interface WsTrade {
  t: number;
  id: string;
  p: string;
  q: string;
  side: "buy" | "sell";
  T: number;
}

/** Price steps to group the book by, from the pair's price precision up. */
function groupingSteps(digitsPrice: number): string[] {
  return [0, 1, 2, 3].map((k) => fromScaled(10n ** BigInt(k), digitsPrice)).filter((s) => s !== "0");
}

function Book({ bids, asks, step }: { bids: Level[]; asks: Level[]; step: string }) {
  const side = (levels: Level[], name: "bids" | "asks") => (
    <div className="table-wrap">
      <table>
        <caption className="muted">{name === "bids" ? "Bids (buyers)" : "Asks (sellers)"}</caption>
        <thead>
          <tr>
            <th scope="col" className="num">
              Price
            </th>
            <th scope="col" className="num">
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {groupLevels(levels, step, name, 15).map(([price, amount]) => (
            <tr key={price}>
              <td className={`num ${name === "bids" ? "buy-text" : "sell-text"}`}>{formatPrice(price, 8)}</td>
              <td className="num">{formatAmount(amount, 6)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
  if (bids.length === 0 && asks.length === 0) return <Empty>The book is empty.</Empty>;
  return (
    <div className="book">
      {side(bids, "bids")}
      {side(asks, "asks")}
    </div>
  );
}

/**
 * The pair must be one the exchange lists before anything about it is asked: an unknown pair in
 * the URL shows the pair list and says so, with no query or stream for it.
 */
export default function MarketPage({ pair }: { pair: string }) {
  const { api } = usePlatform();
  const pairs = useQuery({
    queryKey: ["pairs"],
    queryFn: () => api.exchange("/api/currencies/pairs"),
    staleTime: 60_000,
  });
  const pairSpec = pairs.data?.find((p) => p.code === pair);
  const title = `Market ${pair.replace("_", "/")}`;
  if (pairSpec)
    return (
      <PairScreen
        key={pair}
        pair={pair}
        digitsPrice={pairSpec.digitsPrice}
        digitsAmount={pairSpec.digitsAmount}
        title={title}
      />
    );
  return (
    <>
      <h1>{title}</h1>
      <PairsTable pair={pair} />
      {pairs.data ? (
        <div className="state empty">
          <p>
            The exchange has no pair {pair}. Pick one above, e.g. <Link href="/market/ETH_USDT">ETH/USDT</Link>.
          </p>
        </div>
      ) : (
        <QueryState query={pairs} loading="Loading pairs…">
          {() => null}
        </QueryState>
      )}
    </>
  );
}

type PairSummary = ExchangeData<"/api/summary">[number];
type Ticker = ExchangeData<"/api/tickers">;

/**
 * The summary rows with the ticker's pair brought up to it: last price, 24 h change and volume,
 * and the 24 h high and low widened to the last price (none without a trade in the window, as
 * the server says). The same rows when the ticker has no trade (price 0) or nothing differs.
 */
export function withTicker(rows: PairSummary[], ticker: Ticker): PairSummary[] {
  const index = rows.findIndex((r) => r.trading_pairs === ticker.currencyPairCode);
  const row = rows[index];
  if (row === undefined || isZeroDecimal(ticker.price)) return rows;
  const last = ticker.price;
  const inWindow = !isZeroDecimal(ticker.volume24h);
  const updated: PairSummary = {
    ...row,
    last_price: last,
    price_change_percent_24h: ticker.priceChangePercentage24h,
    base_volume: ticker.volume24h,
    highest_price_24h: inWindow ? widened(row.highest_price_24h, last, 1) : null,
    lowest_price_24h: inWindow ? widened(row.lowest_price_24h, last, -1) : null,
  };
  const same = (Object.keys(row) as (keyof PairSummary)[]).every((key) => row[key] === updated[key]);
  return same ? rows : rows.map((r, i) => (i === index ? updated : r));
}

/** `bound` moved out to `price` when `price` lies beyond it (direction 1: above, -1: below). */
const widened = (bound: string | null, price: string, direction: 1 | -1) =>
  bound === null || compareDecimal(price, bound) * direction > 0 ? price : bound;

/** The 24 h high is null when the pair has no trade in the window (its last may be older). */
const pairChange = (r: PairSummary) =>
  changeView(r.price_change_percent_24h, r.last_price !== null && r.highest_price_24h !== null);

function ChangeCell({ change }: { change: ChangeView }) {
  return <td className={change.className ? `num ${change.className}` : "num"}>{change.text}</td>;
}

/**
 * Every pair with its 24 h strip, the current one marked. Prices to 8 significant digits, as the
 * header, the book and the trades show them: at 6, 12345.67 read 12,345.6 here and 12,345.67 above.
 */
function PairsTable({ pair }: { pair: string }) {
  const { api } = usePlatform();
  const summary = useQuery({
    queryKey: ["summary"],
    queryFn: () => api.exchange("/api/summary"),
    refetchInterval: 10_000,
  });
  return (
    <section aria-labelledby="pairs-heading">
      <h2 id="pairs-heading">Pairs</h2>
      <QueryState query={summary} loading="Loading pairs…">
        {(rows) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Pair</th>
                  <th scope="col" className="num">
                    Last
                  </th>
                  <th scope="col" className="num">
                    24h change
                  </th>
                  <th scope="col" className="num">
                    24h high
                  </th>
                  <th scope="col" className="num">
                    24h low
                  </th>
                  <th scope="col" className="num">
                    24h volume
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.trading_pairs} aria-current={r.trading_pairs === pair ? "page" : undefined}>
                    <td>
                      <Link href={`/market/${r.trading_pairs}`}>{r.trading_pairs.replace("_", "/")}</Link>
                    </td>
                    <td className="num">{r.last_price === null ? "—" : formatPrice(r.last_price, 8)}</td>
                    <ChangeCell change={pairChange(r)} />
                    <td className="num">{r.highest_price_24h === null ? "—" : formatPrice(r.highest_price_24h, 8)}</td>
                    <td className="num">{r.lowest_price_24h === null ? "—" : formatPrice(r.lowest_price_24h, 8)}</td>
                    <td className="num">{formatCompact(r.base_volume)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryState>
    </section>
  );
}

function PairScreen({
  pair,
  digitsPrice,
  digitsAmount,
  title,
}: {
  pair: string;
  digitsPrice: number;
  digitsAmount: number;
  title: string;
}) {
  const { api, config } = usePlatform();
  const queryClient = useQueryClient();
  const [interval, setChartInterval] = useState<Interval>("minute");
  const [status, setStatus] = useState<SocketStatus>("connecting");
  const [bookVersion, setBookVersion] = useState(0);
  const [bookError, setBookError] = useState<unknown>(null);
  const [stepIndex, setStepIndex] = useState(0);
  const book = useRef(new LocalBook());
  const intervalRef = useRef(interval);
  intervalRef.current = interval;

  const ticker = useQuery({
    queryKey: ["ticker", pair],
    queryFn: () => api.exchange("/api/tickers", { currencyPairCode: pair }),
  });
  const candles = useQuery({
    queryKey: ["ohlc", pair, interval],
    queryFn: async (): Promise<Candle[]> => {
      const end = Math.floor(Date.now() / 1000) + 60;
      const rows = await api.exchange("/api/ohlc", {
        currencyPairCode: pair,
        interval,
        start: isoNoOffset(end - intervalSeconds(interval) * 300),
        end: isoNoOffset(end),
      });
      return rows.map((r) => ({
        time: bucketStart(Math.floor(Date.parse(`${r.date}Z`) / 1000), interval),
        open: r.open,
        max: r.max,
        min: r.min,
        close: r.close,
        volume: r.volume,
        volumeBase: r.volumeBase,
      }));
    },
  });
  const deals = useQuery({
    queryKey: ["deals", pair],
    queryFn: async () =>
      keepStreamedTrades(
        await api.exchange("/api/deals", { currencyPairCode: pair, pageSize: 30 }),
        queryClient.getQueryData<Deals>(["deals", pair]),
      ),
  });

  const steps = useMemo(() => groupingSteps(digitsPrice), [digitsPrice]);

  useEffect(() => {
    const local = book.current;
    local.reset();
    let cancelled = false;
    // The README's recipe: diffs buffer while the snapshot loads; a gap starts over.
    const resync = async () => {
      local.reset();
      try {
        const snapshot = await api.exchange("/api/depth", { currencyPairCode: pair, limit: 200 });
        if (cancelled) return;
        const result = local.applySnapshot({
          lastUpdateId: snapshot.lastUpdateId,
          bids: snapshot.bids as unknown as Level[],
          asks: snapshot.asks as unknown as Level[],
        });
        setBookError(null);
        setBookVersion((v) => v + 1);
        if (result === "gap") void resync();
      } catch (error) {
        if (!cancelled) setBookError(error);
      }
    };
    const close = openExchangeSocket({
      url: config.exchangeWsUrl,
      streams: [`${pair}@trade`, `${pair}@depth`, `${pair}@ticker`],
      onStatus: setStatus,
      onOpen: () => {
        void resync();
        void queryClient.invalidateQueries({ queryKey: ["deals", pair] });
        void queryClient.invalidateQueries({ queryKey: ["ohlc", pair] });
      },
      onEvent: (stream, data) => {
        if (stream.endsWith("@depth")) {
          const result = local.applyDiff(data as DepthDiff);
          if (result === "gap") void resync();
          else if (result === "applied") setBookVersion((v) => v + 1);
        } else if (stream.endsWith("@trade")) {
          const trade = data as WsTrade;
          queryClient.setQueryData<Deals>(["deals", pair], (old) =>
            old && !old.some((d) => d.id === trade.id)
              ? [
                  {
                    id: trade.id,
                    dealDateUtc: new Date(trade.T).toISOString(),
                    currencyPairCode: pair,
                    volume: trade.q,
                    price: trade.p,
                    isBuy: trade.side === "buy",
                    isUserBuyer: null,
                  },
                  ...old,
                ].slice(0, 50)
              : old,
          );
          const quote = fromScaled((toScaled(trade.p, 18) * toScaled(trade.q, 18)) / 10n ** 18n, 18);
          queryClient.setQueryData<Candle[]>(["ohlc", pair, intervalRef.current], (old) =>
            old
              ? applyTrade(
                  old,
                  { time: Math.floor(trade.T / 1000), price: trade.p, amount: trade.q, quoteAmount: quote },
                  intervalRef.current,
                )
              : old,
          );
        } else if (stream.endsWith("@ticker")) {
          queryClient.setQueryData(["ticker", pair], data);
          // The pairs table reads /api/summary every 10 s: its row of this pair follows the
          // header's ticker meanwhile, so the two never show different last prices.
          queryClient.setQueryData<PairSummary[]>(["summary"], (old) => old && withTicker(old, data as Ticker));
        }
      },
    });
    return () => {
      cancelled = true;
      close();
    };
  }, [pair, api, config.exchangeWsUrl, queryClient]);

  const t = ticker.data;
  // The ticker says 0 for a price it does not have (never traded, no bid, no ask).
  const priceOrDash = (price: string) => (isZeroDecimal(price) ? "—" : formatPrice(price, 8));
  const tickerChange =
    t && changeView(t.priceChangePercentage24h, !isZeroDecimal(t.price) && !isZeroDecimal(t.volume24h));
  return (
    <>
      <h1>
        {title} <LiveBadge status={status} />
      </h1>
      <PairsTable pair={pair} />
      {t && (
        <dl className="stats">
          <div>
            <dt>Last price</dt>
            <dd>{priceOrDash(t.price)}</dd>
          </div>
          <div>
            <dt>24h change</dt>
            <dd className={tickerChange?.className}>{tickerChange?.text}</dd>
          </div>
          <div>
            <dt>Bid · ask</dt>
            <dd>
              {priceOrDash(t.bidPrice)} · {priceOrDash(t.askPrice)}
            </dd>
          </div>
          <div>
            <dt>24h volume</dt>
            <dd>{formatCompact(t.volume24h)}</dd>
          </div>
        </dl>
      )}
      <TradingPanel pair={{ code: pair, digitsPrice, digitsAmount }} />
      <section aria-labelledby="market-chart-heading">
        <h2 id="market-chart-heading">Chart</h2>
        <IntervalPicker value={interval} onChange={setChartInterval} />
        <QueryState query={candles} loading="Loading candles…">
          {(data) =>
            data.length === 0 ? (
              <Empty>No trade in this range yet.</Empty>
            ) : (
              <CandleChart
                candles={data}
                label={`${pair} candles, ${INTERVAL_LABELS[interval]}`}
                digitsPrice={digitsPrice}
              />
            )
          }
        </QueryState>
      </section>
      <div className="grid two">
        <section aria-labelledby="book-heading">
          <div className="section-head">
            <h2 id="book-heading">Order book</h2>
            <label className="inline">
              Group by
              <select value={stepIndex} onChange={(e) => setStepIndex(Number(e.target.value))}>
                {steps.map((s, i) => (
                  <option key={s} value={i}>
                    {s}
                  </option>
                ))}
              </select>
            </label>
          </div>
          {bookError ? (
            <ErrorState error={bookError} onRetry={() => setBookVersion((v) => v + 1)} />
          ) : book.current.state !== "synced" && bookVersion === 0 ? (
            <Loading label="Loading the book…" />
          ) : (
            <Book
              key={bookVersion}
              bids={book.current.levels("bids")}
              asks={book.current.levels("asks")}
              step={steps[stepIndex] ?? steps[0] ?? "0.01"}
            />
          )}
        </section>
        <section aria-labelledby="deals-heading">
          <h2 id="deals-heading">Recent trades</h2>
          <QueryState query={deals}>
            {(rows) =>
              rows.length === 0 ? (
                <Empty>No trade yet.</Empty>
              ) : (
                <div className="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">When</th>
                        <th scope="col">Side</th>
                        <th scope="col" className="num">
                          Price
                        </th>
                        <th scope="col" className="num">
                          Amount
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {rows.map((d) => (
                        <tr key={d.id}>
                          <td>
                            <RelativeTime time={Math.floor(Date.parse(d.dealDateUtc) / 1000)} clock="wall" />
                          </td>
                          <td className={d.isBuy ? "buy-text" : "sell-text"}>{d.isBuy ? "buy" : "sell"}</td>
                          <td className="num">{formatPrice(d.price, 8)}</td>
                          <td className="num">{formatAmount(d.volume, 6)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              )
            }
          </QueryState>
        </section>
      </div>
    </>
  );
}

/**
 * A page of deals fetched while the stream was delivering trades may have been read before the
 * newest of them: replacing the list with it would drop a trade the stream already showed (the
 * socket's open refetches while trades arrive). Trades held that the page lacks and that are no
 * older than its newest are kept above it, newest first.
 */
export function keepStreamedTrades(page: Deals, held: Deals | undefined): Deals {
  if (!held || held.length === 0) return page;
  const inPage = new Set(page.map((deal) => deal.id));
  const newest = page.length === 0 ? Number.NEGATIVE_INFINITY : Date.parse(page[0]!.dealDateUtc);
  const later = held.filter((deal) => !inPage.has(deal.id) && Date.parse(deal.dealDateUtc) >= newest);
  return later.length === 0 ? page : [...later, ...page].slice(0, 50);
}
