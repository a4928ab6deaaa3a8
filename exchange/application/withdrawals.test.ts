import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createKeyVault, generateApiKeyPair, parseServerKey } from "../adapters/auth/index.ts";
import { createCommitter, type Db, exchangeStore } from "../adapters/store/index.ts";
import { openDemoDb } from "../../support/exchange/demo-db.ts";
import { DomainError } from "../core/result.ts";
import { Exchange } from "./exchange.ts";

// A withdrawal's life after its debit, on the demo reference data (USDT: 6 decimals, daily limit
// 2,000,000, approval above 50,000): each change committed, a failure refunded to the unit, the
// ledger reconciled after every step.

describe("withdrawals: statuses, refunds, approval, daily limit, gate", () => {
  let dir: string;
  let db: Db;
  let exchange: Exchange;
  let userId: string;
  const address = `0x${"ab".repeat(20)}`;

  beforeAll(async () => {
    ({ dir, db } = await openDemoDb("exchange-withdrawals-"));
    exchange = await Exchange.open({
      store: exchangeStore(db),
      committer: createCommitter(db),
      vault: createKeyVault(parseServerKey("44".repeat(32))),
      generateKeyPair: generateApiKeyPair,
    });
    userId = (await exchange.createUser(0, null)).id;
    await exchange.deposit({ userId, currency: "USDT", amount: "3000000", reference: null });
  });

  afterAll(async () => {
    await exchange?.close();
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const usdt = () => exchange.balances(userId).find((b) => b.currency === "USDT")!;
  const balanced = async () => {
    for (const row of await exchange.reconcile())
      assert.ok(
        row.balanced,
        JSON.stringify(row, (_k, v) => (typeof v === "bigint" ? String(v) : v)),
      );
  };
  const withdraw = async (amount: string) =>
    (await exchange.withdraw({ userId, currency: "USDT", amount, address })).withdrawal;

  it("pending -> sent -> completed; a repeat of a move answers the row; no move back", async () => {
    const w = await withdraw("100");
    assert.equal(w.status, "pending");
    assert.equal(w.approvalRequired, false);
    const sent = await exchange.markWithdrawalSent(w.id, "0x01");
    assert.equal(sent.status, "sent");
    assert.equal(sent.txHash, "0x01");
    assert.deepEqual(await exchange.markWithdrawalSent(w.id, "0x01"), sent);
    // A replacement (or a resend after a drop) carries it now.
    assert.equal((await exchange.markWithdrawalSent(w.id, "0x02")).txHash, "0x02");
    const done = await exchange.markWithdrawalCompleted(w.id, "0x02");
    assert.equal(done.status, "completed");
    assert.ok(done.completedAt !== null && done.sentAt !== null);
    assert.deepEqual(await exchange.withdrawal(w.id), done, "as committed");
    await assert.rejects(exchange.markWithdrawalFailed(w.id, "late"), { code: "WITHDRAWAL_NOT_PENDING" });
    await assert.rejects(exchange.markWithdrawalSent(w.id, "0x03"), { code: "WITHDRAWAL_NOT_PENDING" });
    await balanced();
  });

  it("a failed withdrawal returns amount and fee to available, once", async () => {
    const before = usdt();
    const w = await withdraw("250.5");
    assert.ok(w.fee > 0n, "the demo charges a USDT withdrawal fee");
    assert.equal(usdt().available, before.available - 250_500_000n);
    await exchange.markWithdrawalSent(w.id, "0x04");
    const failed = await exchange.markWithdrawalFailed(w.id, "reverted on-chain", "0x04");
    assert.equal(failed.status, "failed");
    assert.equal(failed.failureReason, "reverted on-chain");
    assert.deepEqual(usdt(), before);
    // A second failure is answered as it is and refunds nothing more.
    assert.deepEqual(await exchange.markWithdrawalFailed(w.id, "again"), failed);
    assert.deepEqual(usdt(), before);
    await balanced();
  });

  it("above the approval threshold waits for an operator: approve once, reject refunds", async () => {
    const a = await withdraw("50000.000001");
    assert.equal(a.approvalRequired, true);
    assert.equal((await withdraw("50000")).approvalRequired, false, "at the threshold is not above it");
    const awaiting = await exchange.withdrawalsByStatus(["pending"], 100);
    assert.ok(awaiting.some((w) => w.id === a.id));
    const approved = await exchange.approveWithdrawal(a.id);
    assert.ok(approved.approvedAt !== null);
    await assert.rejects(exchange.approveWithdrawal(a.id), { code: "WITHDRAWAL_NOT_PENDING" });
    await assert.rejects(
      exchange.rejectWithdrawal(a.id, null),
      { code: "WITHDRAWAL_NOT_PENDING" },
      "approved: the sender owns it",
    );
    const before = usdt();
    const b = await withdraw("60000");
    const rejected = await exchange.rejectWithdrawal(b.id, "risk");
    assert.equal(rejected.status, "failed");
    assert.equal(rejected.failureReason, "rejected by an operator: risk");
    assert.deepEqual(usdt(), before);
    await assert.rejects(exchange.approveWithdrawal("not-a-uuid"), { code: "NOT_FOUND" });
    await balanced();
  });

  it("refuses past the daily limit (failed ones not counted), holding nothing", async () => {
    // 100 + 50,000.000001 + 50,000 withdrawn so far (the failed 250.5 and 60,000 do not count).
    const used = 100_100_000_001n;
    const room = 2_000_000_000_000n - used;
    const before = usdt();
    await assert.rejects(
      exchange.withdraw({ userId, currency: "USDT", amount: "1000000.000001", address }),
      (error: unknown) => error instanceof DomainError && error.code === "ABOVE_MAX_WITHDRAW",
    );
    await withdraw("1000000");
    const rest = room - 1_000_000_000_000n;
    const text = (units: bigint) => `${units / 1_000_000n}.${String(units % 1_000_000n).padStart(6, "0")}`;
    await assert.rejects(withdraw(text(rest + 1n)), { code: "DAILY_LIMIT_EXCEEDED" });
    assert.equal(usdt().available, before.available - 1_000_000_000_000n, "the refused one held nothing");
    const exact = await withdraw(text(rest));
    assert.equal(exact.amount, rest, "up to the limit exactly");
  });

  it("runs the gateway's check before anything is held, and reports what it can send", async () => {
    const before = usdt();
    exchange.setWithdrawalGate({
      check: ({ address: to }) => {
        if (to !== address) throw new DomainError("INVALID_PARAM", "address: refused by the gate");
      },
      sends: (currency) => currency === "USDT",
      confirmationsOf: (id) => (id === "x" ? 3 : undefined),
      waitingReasonOf: (id) => (id === "y" ? "the hot wallet is short" : undefined),
    });
    await assert.rejects(exchange.withdraw({ userId, currency: "USDT", amount: "10", address: "0xabc" }), {
      code: "INVALID_PARAM",
    });
    assert.deepEqual(usdt(), before);
    assert.equal(exchange.canWithdraw("USDT"), true);
    assert.equal(exchange.canWithdraw("ETH"), false);
    assert.equal(exchange.withdrawalConfirmations("x"), 3);
    assert.equal(exchange.withdrawalWaitingReason("y"), "the hot wallet is short");
    assert.equal(exchange.withdrawalWaitingReason("x"), undefined);
    exchange.setWithdrawalGate(undefined);
    assert.equal(exchange.canWithdraw("ETH"), true);
  });
});
