// @vitest-environment happy-dom
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeExchange, renderWith } from "../account/test-support.tsx";
import MarketPage, { keepStreamedTrades, withTicker } from "./Market.tsx";

const summaryRow = (pair: string, fields: object) => ({
  trading_pairs: pair,
  base_currency: pair.split("_")[0],
  quote_currency: "USDT",
  last_price: null,
  lowest_ask: null,
  highest_bid: null,
  base_volume: "0",
  quote_volume: "0",
  price_change_percent_24h: "0",
  highest_price_24h: null,
  lowest_price_24h: null,
  ...fields,
});
const SUMMARY = [
  summaryRow("ALPHA_USDT", { last_price: "0.5011", price_change_percent_24h: "0.04", highest_price_24h: "0.5013" }),
  summaryRow("BETA_USDT", { last_price: "0.2501", price_change_percent_24h: "-0.08", highest_price_24h: "0.2503" }),
  // Traded once, longer than 24 h ago: a last price, nothing in the window.
  summaryRow("GAMMA_USDT", { last_price: "0.3" }),
  summaryRow("DELTA_USDT", {}),
];
/** The exchange's ticker of a pair that never traded: zeros for what it does not have. */
const NEVER_TRADED = {
  timestamp: 1,
  currencyPairCode: "DELTA_USDT",
  price: "0",
  price24hAgo: "0",
  priceChangePercentage24h: "0",
  volume24h: "0",
  bidPrice: "0",
  askPrice: "0",
};

beforeEach(() => {
  // The page's market stream: it never opens here, so the page keeps what the REST answers said.
  vi.stubGlobal(
    "WebSocket",
    class {
      close() {}
    },
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** The 24h change cell of a pair's row in the pairs table. */
async function changeCell(pair: string) {
  const link = await screen.findByRole("link", { name: pair.replace("_", "/") });
  return within(link.closest("tr")!).getAllByRole("cell")[2]!;
}

describe("the market page's 24 h change", () => {
  it('reads "—" uncoloured for a pair with no trade in the window, green up and red down otherwise', async () => {
    const { api } = fakeExchange(() => undefined, { "/api/currencies/pairs": [], "/api/summary": SUMMARY });
    render(renderWith(<MarketPage pair="NOPE_USDT" />, api, "/market/NOPE_USDT"));
    const cells = await Promise.all(["ALPHA_USDT", "BETA_USDT", "GAMMA_USDT", "DELTA_USDT"].map(changeCell));
    expect(cells.map((c) => [c.textContent, c.className])).toEqual([
      ["0.04%", "num buy-text"],
      ["-0.08%", "num sell-text"],
      ["—", "num muted"],
      ["—", "num muted"],
    ]);
  });

  it("says nothing of a price the header does not have for a pair that never traded", async () => {
    const { api } = fakeExchange(() => [200, JSON.stringify({ account: null })], {
      "/api/currencies/pairs": [{ code: "DELTA_USDT", digitsPrice: 6, digitsAmount: 2 }],
      "/api/summary": SUMMARY,
      "/api/tickers": NEVER_TRADED,
      "/api/ohlc": [],
      "/api/deals": [],
    });
    render(renderWith(<MarketPage pair="DELTA_USDT" />, api, "/market/DELTA_USDT"));
    const stats = (await screen.findByText("Last price")).closest("dl")!;
    const stat = (name: string) => within(stats).getByText(name).nextElementSibling as HTMLElement;
    expect(stat("Last price").textContent).toBe("—");
    expect([stat("24h change").textContent, stat("24h change").className]).toEqual(["—", "muted"]);
    expect(stat("Bid · ask").textContent).toBe("— · —");
  });
});

describe("the pairs table and the header", () => {
  it("show the same last price: the table's row follows the @ticker stream between summary reads", async () => {
    const sockets: { receive: (body: unknown) => void }[] = [];
    vi.stubGlobal(
      "WebSocket",
      class {
        onopen: (() => void) | null = null;
        onmessage: ((message: { data: string }) => void) | null = null;
        constructor() {
          sockets.push(this);
          queueMicrotask(() => this.onopen?.());
        }
        send() {}
        close() {}
        receive(body: unknown) {
          this.onmessage?.({ data: JSON.stringify(body) });
        }
      },
    );
    const ticker = (price: string, volume24h: string) => ({
      timestamp: 2,
      currencyPairCode: "BETA_USDT",
      price,
      price24hAgo: "0.2503",
      priceChangePercentage24h: "4.99",
      volume24h,
      bidPrice: "0",
      askPrice: "0",
    });
    const { api } = fakeExchange(() => [200, JSON.stringify({ account: null })], {
      "/api/currencies/pairs": [{ code: "BETA_USDT", digitsPrice: 4, digitsAmount: 2 }],
      "/api/summary": SUMMARY,
      "/api/tickers": ticker("0.2501", "10"),
      "/api/ohlc": [],
      "/api/deals": [],
      "/api/depth": { lastUpdateId: 1, bids: [], asks: [] },
    });
    render(renderWith(<MarketPage pair="BETA_USDT" />, api, "/market/BETA_USDT"));
    const stats = (await screen.findByText("Last price")).closest("dl")!;
    const headerLast = () => within(stats).getByText("Last price").nextElementSibling!.textContent;
    const row = async () =>
      within((await screen.findByRole("link", { name: "BETA/USDT" })).closest("tr")!)
        .getAllByRole("cell")
        .map((c) => c.textContent);
    expect([headerLast(), (await row())[1]]).toEqual(["0.2501", "0.2501"]);
    await waitFor(() => expect(sockets).toHaveLength(1));
    // A trade at 123.4567 (far above: 8 significant digits on both, where 6 read 123.456).
    sockets[0]!.receive({ stream: "BETA_USDT@ticker", data: ticker("123.4567", "12") });
    await waitFor(() => expect(headerLast()).toBe("123.4567"));
    expect(await row()).toEqual(["BETA/USDT", "123.4567", "4.99%", "123.4567", "123.4567", "12"]);
  });
});

describe("withTicker", () => {
  const ticker = (fields: object) => ({
    timestamp: 2,
    currencyPairCode: "ALPHA_USDT",
    price: "0.5",
    price24hAgo: "0.5",
    priceChangePercentage24h: "0",
    volume24h: "0",
    bidPrice: "0",
    askPrice: "0",
    ...fields,
  });
  const rows = [
    summaryRow("ALPHA_USDT", { last_price: "0.5011", highest_price_24h: "0.5013", lowest_price_24h: "0.5001" }),
    summaryRow("BETA_USDT", { last_price: "0.2501" }),
  ];
  it("brings the pair's last price, change and volume up to the ticker, widening the 24 h high and low", () => {
    const lower = withTicker(rows, ticker({ price: "0.4999", priceChangePercentage24h: "-0.24", volume24h: "7" }));
    expect(lower[0]).toEqual({
      ...rows[0],
      last_price: "0.4999",
      price_change_percent_24h: "-0.24",
      base_volume: "7",
      lowest_price_24h: "0.4999",
    });
    expect(lower[1]).toBe(rows[1]);
    const inside = withTicker(rows, ticker({ price: "0.5012", volume24h: "7" }));
    expect([inside[0]!.highest_price_24h, inside[0]!.lowest_price_24h]).toEqual(["0.5013", "0.5001"]);
    const higher = withTicker(rows, ticker({ price: "0.51", volume24h: "7" }));
    expect(higher[0]!.highest_price_24h).toBe("0.51");
  });
  it("keeps the rows when the ticker has no trade, another pair, or nothing new", () => {
    expect(withTicker(rows, ticker({ price: "0" }))).toBe(rows);
    expect(withTicker(rows, ticker({ currencyPairCode: "NOPE_USDT" }))).toBe(rows);
    const once = withTicker(rows, ticker({ price: "0.52", volume24h: "3" }));
    expect(withTicker(once, ticker({ price: "0.52", volume24h: "3" }))).toBe(once);
  });
  it("says no 24 h high or low when the last trade left the window (zero volume), as the server", () => {
    const old = withTicker(rows, ticker({ price: "0.5011", volume24h: "0" }));
    expect([old[0]!.highest_price_24h, old[0]!.lowest_price_24h, old[0]!.base_volume]).toEqual([null, null, "0"]);
  });
});

describe("keepStreamedTrades", () => {
  const deal = (id: string, at: string) => ({
    id,
    dealDateUtc: at,
    currencyPairCode: "ETH_USDT",
    volume: "1",
    price: "3000",
    isBuy: true,
    isUserBuyer: null,
  });
  const page = [deal("b", "2026-11-27T10:00:02.000001Z"), deal("a", "2026-11-27T10:00:01Z")];

  it("keeps a streamed trade newer than a page read before it, above the page", () => {
    const streamed = deal("c", "2026-11-27T10:00:03.000Z");
    expect(keepStreamedTrades(page, [streamed, ...page]).map((d) => d.id)).toEqual(["c", "b", "a"]);
  });

  it("takes the page as it is when it holds every trade, or nothing was held", () => {
    expect(keepStreamedTrades(page, page)).toBe(page);
    expect(keepStreamedTrades(page, undefined)).toBe(page);
  });

  it("lets the page drop what it no longer lists when that is older than its newest", () => {
    const old = deal("z", "2026-11-27T09:00:00Z");
    expect(keepStreamedTrades(page, [old]).map((d) => d.id)).toEqual(["b", "a"]);
  });
});
