import type { Exchange } from "../../application/index.ts";
import type { MarketData } from "../marketdata/market-data.ts";
import { envelopeText, Hub } from "./hub.ts";
import { type Envelope, MarketFeed } from "./market-feed.ts";
import { TickerFeed } from "./tickers.ts";
import { wsFrame } from "./ws-server.ts";

/**
 * The exchange's side of the streams: every committed batch becomes envelopes (market-feed.ts),
 * tickers once a second (tickers.ts), and each envelope goes to this process's hub and to any
 * other sink that wants it (NATS, for gateways in other processes).
 */

/** Another destination of the envelopes (NATS), which says which streams it takes now. */
export interface StreamSink {
  wants(stream: string): boolean;
  /** An envelope serialised once, as clients receive it. */
  send(stream: string, text: string): void;
}

export interface ExchangeStreams {
  readonly hub: Hub;
  readonly feed: MarketFeed;
  addSink(sink: StreamSink): void;
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
  const sinks: StreamSink[] = [];
  // Built only when someone here or a sink wants it.
  const wanted = (stream: string) => hub.has(stream) || sinks.some((sink) => sink.wants(stream));
  const publish = (envelopes: readonly Envelope[]) => {
    for (const { stream, data } of envelopes) {
      if (!wanted(stream)) continue;
      const text = envelopeText(stream, data);
      hub.publishText(stream, text);
      for (const sink of sinks) if (sink.wants(stream)) sink.send(stream, text);
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
