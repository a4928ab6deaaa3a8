// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Balances } from "./Balances.tsx";
import { Deposit } from "./Deposit.tsx";
import { fakeExchange, ME, renderWith, type Route } from "./test-support.tsx";
import { Withdraw } from "./Withdraw.tsx";
import { WithdrawalHistory } from "./WithdrawalHistory.tsx";

const ADDRESS = "0x976EA74026E726554dB657fA54763abd0C3a0aa9";
const PUBLIC = {
  "/api/currencies": ["USDT", "ETH"],
  "/api/marketdata/getaggregator/asset": {
    USDT: {
      name: "Tether USD",
      can_deposit: true,
      can_withdraw: true,
      min_withdraw: "5",
      max_withdraw: "1000000",
      decimals: 6,
    },
    ETH: { name: "Ether", can_deposit: true, can_withdraw: true, min_withdraw: "0.005", max_withdraw: "1000" },
  },
};
const page = (items: unknown[]) => JSON.stringify({ items, pageNumber: 1, pageSize: 20, totalItems: items.length });

const withdrawal = (id: string, extra: Record<string, unknown>) => ({
  id,
  clientWithdrawalId: null,
  currencyCode: "USDT",
  amount: 10,
  fee: 1,
  sent: 9,
  address: ADDRESS,
  txHash: null,
  approvalRequired: false,
  approvedAt: null,
  failureReason: null,
  createdAt: new Date().toISOString(),
  ...extra,
});
const WITHDRAWALS = [
  withdrawal("short", {
    status: "pending",
    waitingReason: "the hot wallet holds 0 of the 9000000 base units of USDT to send; waiting for a sweep or a top-up",
  }),
  withdrawal("big", { status: "pending", approvalRequired: true }),
  withdrawal("deepening", { status: "sent", txHash: `0x${"ab".repeat(32)}`, confirmations: 1 }),
  withdrawal("reverted", { status: "failed", failureReason: "reverted on-chain" }),
];

const routes: Route = (r) => {
  if (r.path === "/api/balances")
    return [
      200,
      '[{"currencyCode":"USDT","available":1234.567891,"locked":0.5,"total":1235.067891},{"currencyCode":"ETH","available":123456789.123456789123456789,"locked":0,"total":123456789.123456789123456789}]',
    ];
  if (r.path === "/api/deposits/address")
    return [
      200,
      JSON.stringify({ currencyCode: r.query.get("currencyCode"), chainId: 31337, address: ADDRESS, confirmations: 2 }),
    ];
  if (r.path === "/api/deposits")
    return [
      200,
      page([
        {
          id: "d1",
          currencyCode: "USDT",
          amount: 10,
          fee: 0,
          credited: 0,
          status: "pending",
          confirmations: 1,
          requiredConfirmations: 2,
          txHash: `0x${"c".repeat(64)}`,
          createdAt: new Date().toISOString(),
        },
        {
          id: "d2",
          currencyCode: "USDT",
          amount: 5,
          fee: 0,
          credited: 5,
          reference: null,
          createdAt: new Date().toISOString(),
        },
      ]),
    ];
  if (r.path === "/api/withdrawals" && r.method === "GET") return [200, page(WITHDRAWALS)];
  if (r.path === "/api/currencies/user/commissions")
    return [
      200,
      JSON.stringify([
        {
          commissionId: "c",
          currencyCode: "USDT",
          currencyPairCode: null,
          percent: 0.001,
          minimum: 1,
          commissionCurrencyCode: "USDT",
          commissionTypeCode: "2",
        },
      ]),
    ];
  if (r.path === "/api/withdrawals" && r.method === "POST")
    return [
      201,
      JSON.stringify({
        id: "w",
        clientWithdrawalId: (r.body as { clientWithdrawalId: string }).clientWithdrawalId,
        currencyCode: "USDT",
        amount: 12.5,
        fee: 1,
        sent: 11.5,
        address: ADDRESS,
        status: "pending",
        createdAt: new Date().toISOString(),
      }),
    ];
  return undefined;
};

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the web account's wallet", () => {
  it("shows balances as exact decimals, with the session cookie", async () => {
    const { sent, api } = fakeExchange(routes, PUBLIC);
    render(renderWith(<Balances userId={ME.userId} />, api));
    // Available and total: 27 significant digits, which no double holds.
    expect(await screen.findAllByText("123,456,789.123456789123456789")).toHaveLength(2);
    expect(screen.getByText("1,234.567891")).toBeTruthy();
    expect(sent[0]?.credentials).toBe("include");
  });

  it("shows the deposit address with a QR code and the pending deposit's confirmations", async () => {
    const { sent, api } = fakeExchange(routes, PUBLIC);
    render(renderWith(<Deposit userId={ME.userId} />, api));
    expect(await screen.findByText(ADDRESS)).toBeTruthy();
    expect(await screen.findByRole("img", { name: "QR code of the USDT deposit address" })).toBeTruthy();
    expect(await screen.findByText("pending 1/2")).toBeTruthy();
    expect(screen.getByText("credited")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Currency to deposit"), { target: { value: "ETH" } });
    await waitFor(() => expect(sent.some((s) => s.query.get("currencyCode") === "ETH")).toBe(true));
  });

  it("validates a withdrawal exactly, shows the fee, and posts it with CSRF and a fresh clientWithdrawalId", async () => {
    const { sent, api } = fakeExchange(routes, PUBLIC);
    render(renderWith(<Withdraw userId={ME.userId} csrf={ME.csrfToken} />, api));
    await screen.findByRole("option", { name: "USDT" });
    const amount = screen.getByLabelText("Amount");
    const address = screen.getByLabelText("Destination address");
    fireEvent.change(address, { target: { value: ADDRESS } });
    fireEvent.change(amount, { target: { value: "12.1234567" } });
    fireEvent.click(screen.getByRole("button", { name: "Withdraw" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Amount: At most 6 decimals");
    fireEvent.change(amount, { target: { value: "4" } });
    fireEvent.click(screen.getByRole("button", { name: "Withdraw" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Amount: at least 5");
    fireEvent.change(address, { target: { value: ADDRESS.toLowerCase().replace("a", "A") } });
    fireEvent.change(amount, { target: { value: "12.5" } });
    await screen.findByText(/1 USDT on this amount, 11.5 USDT sent/);
    fireEvent.click(screen.getByRole("button", { name: "Withdraw" }));
    expect((await screen.findByRole("alert")).textContent).toMatch(/^Address: not an address/);
    expect(sent.some((s) => s.method === "POST")).toBe(false);

    fireEvent.change(address, { target: { value: ADDRESS } });
    fireEvent.click(screen.getByRole("button", { name: "Withdraw" }));
    await screen.findByText(/Withdrawal of 12.5 USDT accepted/);
    const post = sent.find((s) => s.method === "POST")!;
    expect(post.headers["x-csrf-token"]).toBe("csrf-token");
    expect(post.body).toMatchObject({ currencyCode: "USDT", amount: "12.5", address: ADDRESS });
    expect((post.body as { clientWithdrawalId: string }).clientWithdrawalId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("says what each withdrawal waits for, or why it failed", async () => {
    const { api } = fakeExchange(routes, PUBLIC);
    render(renderWith(<WithdrawalHistory userId={ME.userId} />, api));
    expect(await screen.findByText(/^the hot wallet holds 0 of the 9000000 base units of USDT/)).toBeTruthy();
    expect(screen.getByText("awaiting an operator's approval")).toBeTruthy();
    expect(screen.getByText("1 confirmation")).toBeTruthy();
    expect(screen.getByText("reverted on-chain")).toBeTruthy();
  });
});
