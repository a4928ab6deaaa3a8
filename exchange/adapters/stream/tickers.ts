import type { Exchange } from "../../application/index.ts";
import type { MarketData } from "../marketdata/market-data.ts";
import { tickerView } from "../marketdata/ticker.ts";
import type { Envelope } from "./market-feed.ts";
import { ALL_TICKERS } from "./protocol.ts";

/**
 * The `@ticker` streams: at most once a second, each pair whose ticker changed (its price,
 * volume, book top or 24-hour window; the timestamp alone is no change) on `<PAIR>@ticker`, and
 * all of those together on `!ticker@arr`.
 */
export class TickerFeed {
  private readonly exchange: Exchange;
  private readonly marketData: MarketData;
  private readonly last = new Map<string, string>();

  constructor(exchange: Exchange, marketData: MarketData) {
    this.exchange = exchange;
    this.marketData = marketData;
  }

  /** The envelopes of one tick: `wanted(stream)` says whether anyone listens to a stream. */
  tick(wanted: (stream: string) => boolean, nowMs: number): Envelope[] {
    const all = wanted(ALL_TICKERS);
    const changed: unknown[] = [];
    const out: Envelope[] = [];
    for (const pair of this.exchange.reference.pairs.values()) {
      if (!pair.row.active) continue;
      const stream = `${pair.row.code}@ticker`;
      if (!all && !wanted(stream)) continue;
      const { timestamp, ...fields } = tickerView(this.marketData, pair);
      const key = JSON.stringify(fields);
      if (this.last.get(pair.row.code) === key) continue;
      this.last.set(pair.row.code, key);
      const data = { e: "ticker", E: nowMs, timestamp, ...fields };
      if (wanted(stream)) out.push({ stream, data });
      changed.push(data);
    }
    if (all && changed.length > 0) out.push({ stream: ALL_TICKERS, data: changed });
    return out;
  }
}
