import assert from "node:assert/strict";
import { describe, it } from "vitest";
import fc from "fast-check";
import { MAX_STORED_UNITS } from "../money/decimal.ts";
import { NO_FEE } from "./commissions.ts";
import { applyEntry, balanceOf, createLedger, feesCollected, recountSupply, supplyOf } from "./state.ts";
import { rate, USD } from "../../../support/exchange/pair-and-fees.ts";
import { deposit, refundWithdrawal, withdraw } from "./wallet.ts";

function funded(amount: bigint) {
  const ledger = createLedger();
  const entry = deposit(ledger, { depositId: "d1", userId: "alice", currency: USD, amount, fee: NO_FEE });
  assert.ok(entry.ok);
  applyEntry(ledger, entry.value);
  return ledger;
}

describe("deposit", () => {
  it("credits the amount less the deposit fee and books the fee", () => {
    const ledger = createLedger();
    const entry = deposit(ledger, {
      depositId: "d1",
      userId: "alice",
      currency: USD,
      amount: 1_000n,
      fee: { rate: rate(1n, 2), minimum: 0n },
    });
    assert.ok(entry.ok);
    applyEntry(ledger, entry.value);
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 990n, locked: 0n });
    assert.equal(feesCollected(ledger, "USD"), 10n);
  });

  it("refuses a non-positive amount", () => {
    const entry = deposit(createLedger(), { depositId: "d1", userId: "alice", currency: USD, amount: 0n, fee: NO_FEE });
    assert.ok(!entry.ok && entry.code === "INVALID_AMOUNT");
  });

  it("refuses a credit that would take the currency's holdings past what numeric(78, 0) stores", () => {
    const ledger = funded(MAX_STORED_UNITS - 10n);
    const over = deposit(ledger, { depositId: "d2", userId: "bob", currency: USD, amount: 11n, fee: NO_FEE });
    assert.ok(!over.ok && over.code === "OUT_OF_RANGE", JSON.stringify(over));
    const exact = deposit(ledger, { depositId: "d3", userId: "bob", currency: USD, amount: 10n, fee: NO_FEE });
    assert.ok(exact.ok);
  });

  it("keeps every balance and fee total within storage whatever deposits and withdrawals arrive (seed pinned)", () => {
    const seed = 20261123;
    console.log(`# ledger storage-bound property seed ${seed}`);
    const amount = fc.oneof(
      fc.bigInt({ min: 1n, max: 10n ** 6n }),
      fc.bigInt({ min: 1n, max: MAX_STORED_UNITS }),
      fc.constant(MAX_STORED_UNITS),
    );
    const step = fc.record({
      withdraw: fc.boolean(),
      user: fc.constantFrom("alice", "bob", "carol"),
      amount,
      feePpm: fc.bigInt({ min: 0n, max: 10_000n }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const ledger = createLedger();
        steps.forEach((s, i) => {
          const fee = { rate: rate(s.feePpm, 6), minimum: 0n };
          const request = { userId: s.user, currency: USD, amount: s.amount, fee };
          const entry = s.withdraw
            ? withdraw(ledger, { ...request, withdrawalId: `w${i}` })
            : deposit(ledger, { ...request, depositId: `d${i}` });
          if (entry.ok) applyEntry(ledger, entry.value);
          let total = feesCollected(ledger, "USD");
          for (const user of ["alice", "bob", "carol"]) {
            const { available, locked } = balanceOf(ledger, user, "USD");
            total += available + locked;
          }
          assert.ok(total <= MAX_STORED_UNITS, `holdings ${total} past the bound after step ${i}`);
          assert.equal(supplyOf(ledger, "USD"), total, "supply is what the exchange holds");
        });
        const supply = supplyOf(ledger, "USD");
        recountSupply(ledger);
        assert.equal(supplyOf(ledger, "USD"), supply, "recounting from balances gives the same supply");
      }),
      { seed, numRuns: 300 },
    );
  });
});

describe("withdraw", () => {
  it("debits the amount, keeps the fee and sends the rest out", () => {
    const ledger = funded(1_000n);
    const entry = withdraw(ledger, {
      withdrawalId: "w1",
      userId: "alice",
      currency: USD,
      amount: 600n,
      fee: { rate: rate(1n, 2), minimum: 10n },
    });
    assert.ok(entry.ok);
    const external = entry.value.postings.find((posting) => posting.account.kind === "external");
    assert.equal(external?.delta, 590n);
    applyEntry(ledger, entry.value);
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 400n, locked: 0n });
    assert.equal(feesCollected(ledger, "USD"), 10n);
  });

  it("refuses more than is available, and an amount the fee would swallow", () => {
    const ledger = funded(1_000n);
    const tooMuch = withdraw(ledger, {
      withdrawalId: "w1",
      userId: "alice",
      currency: USD,
      amount: 1_001n,
      fee: NO_FEE,
    });
    assert.ok(!tooMuch.ok && tooMuch.code === "INSUFFICIENT_FUNDS");
    const belowFee = withdraw(ledger, {
      withdrawalId: "w2",
      userId: "alice",
      currency: USD,
      amount: 10n,
      fee: { rate: rate(0n, 0), minimum: 10n },
    });
    assert.ok(!belowFee.ok && belowFee.code === "AMOUNT_BELOW_FEE");
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 1_000n, locked: 0n });
  });
});

describe("applyEntry", () => {
  it("throws on an entry that does not balance or would go negative, and changes nothing", () => {
    const ledger = funded(100n);
    assert.throws(
      () =>
        applyEntry(ledger, {
          kind: "deposit",
          ref: "bad",
          postings: [{ account: { kind: "available", userId: "alice" }, currency: "USD", delta: 5n }],
        }),
      /sum to 5/,
    );
    assert.throws(
      () =>
        applyEntry(ledger, {
          kind: "withdrawal",
          ref: "bad",
          postings: [
            { account: { kind: "available", userId: "alice" }, currency: "USD", delta: -101n },
            { account: { kind: "external" }, currency: "USD", delta: 101n },
          ],
        }),
      /would go negative/,
    );
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 100n, locked: 0n });
  });
});

describe("refundWithdrawal", () => {
  const fee = { rate: rate(1n, 2), minimum: 3n };

  it("returns the amount and the fee to available, exactly undoing the withdrawal", () => {
    const ledger = funded(1_000n);
    const before = {
      balance: balanceOf(ledger, "alice", "USD"),
      fees: feesCollected(ledger, "USD"),
      supply: supplyOf(ledger, "USD"),
    };
    const entry = withdraw(ledger, { withdrawalId: "w1", userId: "alice", currency: USD, amount: 701n, fee });
    assert.ok(entry.ok);
    applyEntry(ledger, entry.value);
    // 1% of 701 is 7.01: the fee rounds up to 8 units.
    assert.equal(feesCollected(ledger, "USD"), 8n);
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 299n, locked: 0n });
    const refund = refundWithdrawal(ledger, {
      withdrawalId: "w1",
      userId: "alice",
      currency: "USD",
      amount: 701n,
      fee: 8n,
    });
    assert.ok(refund.ok);
    assert.equal(refund.value.kind, "withdrawal-refund");
    assert.equal(
      refund.value.postings.reduce((sum, p) => sum + p.delta, 0n),
      0n,
      "balanced",
    );
    applyEntry(ledger, refund.value);
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), before.balance);
    assert.equal(feesCollected(ledger, "USD"), before.fees);
    assert.equal(supplyOf(ledger, "USD"), before.supply);
  });

  it("refuses amounts that cannot be a withdrawal's, and a fee the fee total does not hold", () => {
    const ledger = funded(100n);
    const req = { withdrawalId: "w", userId: "alice", currency: "USD" };
    assert.ok(!refundWithdrawal(ledger, { ...req, amount: 0n, fee: 0n }).ok);
    assert.ok(!refundWithdrawal(ledger, { ...req, amount: 5n, fee: 5n }).ok);
    assert.ok(!refundWithdrawal(ledger, { ...req, amount: 5n, fee: -1n }).ok);
    const noFees = refundWithdrawal(ledger, { ...req, amount: 50n, fee: 1n });
    assert.ok(!noFees.ok && noFees.code === "INVALID_AMOUNT");
    const zeroFee = refundWithdrawal(ledger, { ...req, amount: 50n, fee: 0n });
    assert.ok(zeroFee.ok);
    assert.equal(zeroFee.value.postings.length, 2, "a zero fee posting is left out");
  });
});
