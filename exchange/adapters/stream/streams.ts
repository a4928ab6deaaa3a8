import type { Exchange } from "../../application/index.ts";
import type { MarketData } from "../marketdata/market-data.ts";
import { envelopeText, Hub } from "./hub.ts";
import { type Envelope, MarketFeed } from "./market-feed.ts";
import { TickerFeed } from "./tickers.ts";
import { wsFrame } from "./ws-server.ts";

/**
 * The exchange's side of the streams: every committed batch becomes envelopes (market-feed.ts),
 * tickers once a second (tickers.ts), and each envelope goes to this process's hub and to any
 * other sink (NATS, for gateways in other processes).
 */

export interface ExchangeStreams {
  readonly hub: Hub;
  readonly feed: MarketFeed;
  /** Adds a sink that sees every envelope (serialised once, as clients receive it). */
  addSink(sink: (stream: string, text: string) => void): void;
  close(): void;
}

export function startExchangeStreams(
  exchange: Exchange,
  marketData: MarketData,
  {
    tickerIntervalMs = 1_000,
    flushMs = 5,
    now = Date.now,
  }: { tickerIntervalMs?: number; flushMs?: number; now?: () => number } = {},
): ExchangeStreams {
  const hub = new Hub({}, { encode: wsFrame, flushMs });
  const feed = new MarketFeed(exchange);
  const tickers = new TickerFeed(exchange, marketData);
  const sinks: ((stream: string, text: string) => void)[] = [];
  // Built only when someone here or a sink may want it.
  const wanted = (stream: string) => sinks.length > 0 || hub.has(stream);
  const publish = (envelopes: readonly Envelope[]) => {
    for (const { stream, data } of envelopes) {
      if (!wanted(stream)) continue;
      const text = envelopeText(stream, data);
      hub.publishText(stream, text);
      for (const sink of sinks) sink(stream, text);
    }
  };
  exchange.onCommitted((units) => publish(feed.batch(units, now(), wanted)));
  exchange.onReload(async () => feed.resetUpdateIds());
  const timer = setInterval(() => publish(tickers.tick(wanted, now())), tickerIntervalMs);
  timer.unref();
  return {
    hub,
    feed,
    addSink: (sink) => void sinks.push(sink),
    close: () => clearInterval(timer),
  };
}
