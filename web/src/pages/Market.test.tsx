// @vitest-environment happy-dom
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeExchange, renderWith } from "../account/test-support.tsx";
import MarketPage, { keepStreamedTrades } from "./Market.tsx";

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
