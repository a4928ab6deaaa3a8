// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeExchange, ME, renderWith, type Route, type Sent } from "../account/test-support.tsx";
import { TradingPanel } from "./TradingPanel.tsx";

const PAIR = { code: "ETH_USDT", digitsAmount: 4, digitsPrice: 2 };
const ORDER_ID = "22222222-2222-4222-8222-222222222222";
const order = (fields: object) => ({
  id: ORDER_ID,
  clientOrderId: null,
  currencyPairCode: "ETH_USDT",
  isBid: true,
  type: "limit",
  timeInForce: "GTC",
  postOnly: true,
  selfTradePrevention: "cancel_resting",
  price: 2990.97,
  amount: 0.1234,
  quoteAmount: null,
  filledAmount: 0,
  filledQuoteAmount: 0,
  remainingAmount: 0.1234,
  status: "open",
  reason: null,
  createdAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
  ...fields,
});
const page = (items: unknown[]) => JSON.stringify({ items, pageNumber: 1, pageSize: 50, totalItems: items.length });

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the trading panel", () => {
  it("offers a sign-in link without a session", async () => {
    const { api } = fakeExchange((r) => (r.path === "/api/auth/session" ? [200, '{"account":null}'] : undefined));
    render(renderWith(<TradingPanel pair={PAIR} />, api, "/market/ETH_USDT"));
    const link = await screen.findByRole("link", { name: "Sign in to trade" });
    expect(link.getAttribute("href")).toBe("/account");
    expect(screen.queryByRole("form", { name: "Order form" })).toBeNull();
  });

  it("places a limit order rounded down to the pair's digits, lists it open, cancels it", async () => {
    let open: unknown[] = [];
    const route: Route = (r: Sent) => {
      if (r.path === "/api/auth/session") return [200, JSON.stringify({ account: ME })];
      if (r.path === "/api/orders" && r.method === "GET")
        return [200, page(r.query.get("status") === "open" ? open : [])];
      if (r.path === "/api/orders" && r.method === "POST") {
        open = [order({})];
        return [201, JSON.stringify(order({}))];
      }
      if (r.path === `/api/orders/${ORDER_ID}` && r.method === "DELETE") {
        open = [];
        return [200, JSON.stringify(order({ status: "cancelled", reason: "USER_CANCEL" }))];
      }
      return undefined;
    };
    const { sent, api } = fakeExchange(route);
    render(renderWith(<TradingPanel pair={PAIR} />, api, "/market/ETH_USDT"));
    const form = await screen.findByRole("form", { name: "Order form" });
    fireEvent.change(within(form).getByLabelText(/^Price/), { target: { value: "2990.979" } });
    fireEvent.change(within(form).getByLabelText(/^Amount/), { target: { value: "0.123456" } });
    // Both fields say, before the submit, what is sent instead of what was typed.
    const described = (label: RegExp) => {
      const input = within(form).getByLabelText(label);
      return document.getElementById(input.getAttribute("aria-describedby")!)!;
    };
    expect(described(/^Price/).textContent).toBe(
      "Sent as 2990.97: this pair takes 2 decimals (rounded down, so a buy never pays more than typed)",
    );
    expect(described(/^Amount/).textContent).toBe(
      "Sent as 0.1234: this pair takes 4 decimals (rounded down, so never more than typed)",
    );
    expect(described(/^Amount/).getAttribute("aria-live")).toBe("polite");
    const button = within(form).getByRole("button", { name: "Place buy order" });
    expect(document.getElementById(button.getAttribute("aria-describedby")!)!.textContent).toBe(
      "Total 369.085698 USDT (price × amount as sent)",
    );
    fireEvent.click(within(form).getByLabelText(/^Post-only/));
    fireEvent.click(button);
    await within(form).findByRole("status");
    const post = sent.find((s) => s.method === "POST")!;
    expect(post.headers["x-csrf-token"]).toBe(ME.csrfToken);
    expect(post.body).toEqual({
      isBid: true,
      currencyPairCode: "ETH_USDT",
      type: "limit",
      amount: "0.1234",
      price: "2990.97",
      timeInForce: "GTC",
      postOnly: true,
    });
    const table = await screen.findByRole("table", { name: "Open orders" });
    expect(within(table).getByText("2990.97")).toBeTruthy();
    fireEvent.click(within(table).getByRole("button", { name: `Cancel order ${ORDER_ID}` }));
    await screen.findByText("No open order on ETH/USDT.");
    const cancel = sent.find((s) => s.method === "DELETE")!;
    expect(cancel.headers["x-csrf-token"]).toBe(ME.csrfToken);
  });

  it("lists closed orders with their status, and a filled one's fills on demand", async () => {
    const filled = order({ status: "filled", filledAmount: 0.1234, remainingAmount: 0, postOnly: false });
    const fill = {
      dealId: "33333333-3333-4333-8333-333333333333",
      tradeId: 7,
      price: 2990.97,
      amount: 0.1234,
      quoteAmount: 369.085698,
      isMaker: true,
      fee: 0.000123,
      feeCurrencyCode: "ETH",
      dealDateUtc: new Date().toISOString(),
    };
    const { api } = fakeExchange((r) => {
      if (r.path === "/api/auth/session") return [200, JSON.stringify({ account: ME })];
      if (r.path === "/api/orders" && r.method === "GET")
        return [200, page(r.query.get("status") === "history" ? [filled] : [])];
      if (r.path === `/api/orders/${ORDER_ID}`) return [200, JSON.stringify({ ...filled, fills: [fill] })];
      return undefined;
    });
    render(renderWith(<TradingPanel pair={PAIR} />, api, "/market/ETH_USDT"));
    const history = await screen.findByRole("table", { name: "Order history" });
    const [, row] = within(history).getAllByRole("row");
    expect(within(row!).getByText("filled")).toBeTruthy();
    expect(within(row!).getByText("buy").className).toBe("buy-text");
    const toggle = within(row!).getByRole("button", { name: "Fills" });
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(toggle);
    const fills = await screen.findByRole("table", { name: `Fills of order ${ORDER_ID}` });
    expect(within(fills).getByText("maker")).toBeTruthy();
    expect(within(fills).getByText("0.000123 ETH")).toBeTruthy();
    fireEvent.click(within(history).getByRole("button", { name: "Hide fills" }));
    expect(screen.queryByRole("table", { name: `Fills of order ${ORDER_ID}` })).toBeNull();
    expect(screen.getByText("No open order on ETH/USDT.")).toBeTruthy();
  });

  it("shows the exchange's code and message when it refuses an order, and refuses bad input itself", async () => {
    const { sent, api } = fakeExchange((r) => {
      if (r.path === "/api/auth/session") return [200, JSON.stringify({ account: ME })];
      if (r.path === "/api/orders" && r.method === "GET") return [200, page([])];
      if (r.path === "/api/orders" && r.method === "POST")
        return [400, JSON.stringify({ code: "INSUFFICIENT_BALANCE", message: "Not enough USDT available" })];
      return undefined;
    });
    render(renderWith(<TradingPanel pair={PAIR} />, api, "/market/ETH_USDT"));
    const form = await screen.findByRole("form", { name: "Order form" });
    fireEvent.change(within(form).getByLabelText(/^Price/), { target: { value: "0.001" } });
    fireEvent.change(within(form).getByLabelText(/^Amount/), { target: { value: "1" } });
    fireEvent.click(within(form).getByRole("button", { name: "Place buy order" }));
    expect((await within(form).findByRole("alert")).textContent).toBe("Price: at least 0.01 (2 decimals)");
    expect(sent.some((s) => s.method === "POST")).toBe(false);
    fireEvent.change(within(form).getByLabelText(/^Price/), { target: { value: "100" } });
    // Nothing is rounded: no hint beside either field.
    for (const label of [/^Price/, /^Amount/]) {
      const input = within(form).getByLabelText(label);
      expect(document.getElementById(input.getAttribute("aria-describedby")!)!.textContent).toBe("");
    }
    fireEvent.click(within(form).getByRole("button", { name: "Place buy order" }));
    await waitFor(() => expect(form.textContent).toMatch(/INSUFFICIENT_BALANCE/));
    expect(form.textContent).toMatch(/Not enough USDT available/);
  });

  it("logs into the /ws user stream with a session ticket and re-reads the orders on its events", async () => {
    const sockets: FakeSocket[] = [];
    class FakeSocket {
      readonly url: string;
      readonly sent: string[] = [];
      onopen: (() => void) | null = null;
      onmessage: ((message: { data: string }) => void) | null = null;
      onclose: (() => void) | null = null;
      constructor(url: string) {
        this.url = url;
        sockets.push(this);
        queueMicrotask(() => this.onopen?.());
      }
      send(text: string) {
        this.sent.push(text);
      }
      close() {}
      receive(body: unknown) {
        this.onmessage?.({ data: JSON.stringify(body) });
      }
    }
    vi.stubGlobal("WebSocket", FakeSocket);
    const { sent, api } = fakeExchange((r) => {
      if (r.path === "/api/auth/session") return [200, JSON.stringify({ account: ME })];
      if (r.path === "/api/account/ws-ticket") return [200, JSON.stringify({ ticket: "t-1", expiresAt: 0 })];
      if (r.path === "/api/orders" && r.method === "GET") return [200, page([])];
      return undefined;
    });
    render(renderWith(<TradingPanel pair={PAIR} />, api, "/market/ETH_USDT"));
    await screen.findByText("refreshed every 2 s");
    await waitFor(() => expect(sockets[0]?.sent).toHaveLength(1));
    expect(sockets[0]!.url).toBe("ws://exchange.test/ws");
    expect(JSON.parse(sockets[0]!.sent[0]!)).toEqual({ method: "LOGIN", params: { ticket: "t-1" }, id: "login" });
    sockets[0]!.receive({ result: { stream: "user", userId: ME.userId }, id: "login" });
    await screen.findByText("live");
    const reads = () => sent.filter((s) => s.path === "/api/orders" && s.method === "GET").length;
    const before = reads();
    sockets[0]!.receive({ stream: "user", data: { e: "order", id: ORDER_ID } });
    await waitFor(() => expect(reads()).toBeGreaterThan(before));
  });
});
