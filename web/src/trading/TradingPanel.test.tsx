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
    fireEvent.click(within(form).getByLabelText(/^Post-only/));
    fireEvent.click(within(form).getByRole("button", { name: "Place buy order" }));
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
    fireEvent.click(within(form).getByRole("button", { name: "Place buy order" }));
    await waitFor(() => expect(form.textContent).toMatch(/INSUFFICIENT_BALANCE/));
    expect(form.textContent).toMatch(/Not enough USDT available/);
  });
});
