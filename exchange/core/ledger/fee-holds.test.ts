import assert from "node:assert/strict";
import { describe, it } from "vitest";
import fc from "fast-check";
import { AGT, testPair, USD } from "../../../support/exchange/pair-and-fees.ts";
import { NO_FEE } from "./commissions.ts";
import { feeHoldStep, holdFee, releaseFee, settleFee, type FeeHoldStatus } from "./fee-holds.ts";
import { holdForOrder, releaseHold } from "./orders.ts";
import {
  applyEntry,
  balanceOf,
  burnedTotal,
  createLedger,
  feeHoldKey,
  feesCollected,
  holdOf,
  recountSupply,
  supplyOf,
} from "./state.ts";
import type { LedgerState } from "./types.ts";
import { deposit, withdraw } from "./wallet.ts";

function funded(amount: bigint): LedgerState {
  const ledger = createLedger();
  const entry = deposit(ledger, { depositId: "d1", userId: "alice", currency: USD, amount, fee: NO_FEE });
  assert.ok(entry.ok);
  applyEntry(ledger, entry.value);
  return ledger;
}

function apply(ledger: LedgerState, result: ReturnType<typeof holdFee>): void {
  assert.ok(result.ok, result.ok ? "" : result.message);
  applyEntry(ledger, result.value);
}

describe("fee holds", () => {
  it("hold locks the fee; settle burns it and lowers supply; the hold is gone", () => {
    const ledger = funded(1_000n);
    apply(ledger, holdFee(ledger, { holdId: "h1", userId: "alice", currency: "USD", amount: 300n }));
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 700n, locked: 300n });
    assert.equal(holdOf(ledger, feeHoldKey("h1"))?.amount, 300n);
    assert.equal(supplyOf(ledger, "USD"), 1_000n);
    const settle = settleFee(ledger, "h1");
    assert.ok(settle.ok);
    assert.deepEqual(
      settle.value.postings.map((p) => [p.account.kind, p.delta]),
      [
        ["fee-hold", -300n],
        ["burned", 300n],
      ],
    );
    applyEntry(ledger, settle.value);
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 700n, locked: 0n });
    assert.equal(burnedTotal(ledger, "USD"), 300n);
    assert.equal(supplyOf(ledger, "USD"), 700n);
    assert.equal(holdOf(ledger, feeHoldKey("h1")), undefined);
    const again = settleFee(ledger, "h1");
    assert.ok(!again.ok && again.code === "NO_OPEN_HOLD");
    const release = releaseFee(ledger, "h1");
    assert.ok(!release.ok && release.code === "NO_OPEN_HOLD");
  });

  it("release returns the fee to available", () => {
    const ledger = funded(1_000n);
    apply(ledger, holdFee(ledger, { holdId: "h1", userId: "alice", currency: "USD", amount: 1_000n }));
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 0n, locked: 1_000n });
    apply(ledger, releaseFee(ledger, "h1"));
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 1_000n, locked: 0n });
    assert.equal(burnedTotal(ledger, "USD"), 0n);
    assert.equal(supplyOf(ledger, "USD"), 1_000n);
    const again = releaseFee(ledger, "h1");
    assert.ok(!again.ok && again.code === "NO_OPEN_HOLD");
  });

  it("refuses more than is available, a non-positive amount and an id already holding", () => {
    const ledger = funded(100n);
    const tooMuch = holdFee(ledger, { holdId: "h1", userId: "alice", currency: "USD", amount: 101n });
    assert.ok(!tooMuch.ok && tooMuch.code === "INSUFFICIENT_FUNDS");
    assert.match(tooMuch.message, /needs 101 USD units, 100 available/);
    const zero = holdFee(ledger, { holdId: "h1", userId: "alice", currency: "USD", amount: 0n });
    assert.ok(!zero.ok && zero.code === "INVALID_AMOUNT");
    apply(ledger, holdFee(ledger, { holdId: "h1", userId: "alice", currency: "USD", amount: 10n }));
    const twice = holdFee(ledger, { holdId: "h1", userId: "alice", currency: "USD", amount: 10n });
    assert.ok(!twice.ok && twice.code === "DUPLICATE_HOLD_ID");
    assert.deepEqual(balanceOf(ledger, "alice", "USD"), { available: 90n, locked: 10n });
  });

  it("keeps fee holds apart from order holds of the same id text", () => {
    const ledger = funded(1_000n);
    apply(ledger, holdFee(ledger, { holdId: "x", userId: "alice", currency: "USD", amount: 100n }));
    // An order id is a UUID in the exchange; even one spelled "x" does not meet the fee hold.
    const order = holdForOrder(ledger, testPair(), {
      orderId: "x",
      userId: "alice",
      isBid: true,
      type: "limit",
      price: 1,
      amount: 1,
    });
    assert.ok(order.ok);
    applyEntry(ledger, order.value);
    assert.equal(balanceOf(ledger, "alice", "USD").locked, 200n);
    apply(ledger, settleFee(ledger, "x"));
    assert.equal(holdOf(ledger, "x")?.amount, 100n, "the order's hold is untouched");
  });

  it("refuses an entry that would take burned negative", () => {
    const ledger = funded(100n);
    assert.throws(
      () =>
        applyEntry(ledger, {
          kind: "fee-release",
          ref: "bad",
          postings: [
            { account: { kind: "burned" }, currency: "USD", delta: -1n },
            { account: { kind: "available", userId: "alice" }, currency: "USD", delta: 1n },
          ],
        }),
      /burned USD would go negative/,
    );
  });

  it("feeHoldStep resolves a hold once: apply while held, repeat the same ending, refuse the other", () => {
    const table: [FeeHoldStatus, "settle" | "release", string][] = [
      ["held", "settle", "apply"],
      ["held", "release", "apply"],
      ["settled", "settle", "repeat"],
      ["settled", "release", "conflict"],
      ["released", "release", "repeat"],
      ["released", "settle", "conflict"],
    ];
    for (const [status, action, expected] of table) assert.equal(feeHoldStep(status, action), expected);
  });
});

// An adversary interleaves deposits, withdrawals, order holds and releases with fee holds (ids
// reused with the same or other fields, amounts beyond the balance), settles and releases (twice,
// crossed, of unknown ids), driving the core as the application does: a hold's stored status
// (the fee_holds table) answers repeats through feeHoldStep, the ledger moves the money. It also
// calls settleFee/releaseFee directly on resolved holds, bypassing that table, which must find
// nothing to move. After every step: no balance, hold or total is negative; locked balances are
// the sum of their holds; per currency, available + locked + fees + burned = deposits - withdrawals
// sent; burned is exactly the sum of settled holds; each hold was resolved at most once.

const USERS = ["u1", "u2", "u3"];
const CURRENCIES = [AGT, USD];
const HOLD_IDS = ["h0", "h1", "h2", "h3", "h4", "h5"];
const pair = testPair();

type Step =
  | { kind: "deposit"; user: string; currency: number; amount: bigint }
  | { kind: "withdraw"; user: string; currency: number; amount: bigint }
  | { kind: "order-hold"; user: string; isBid: boolean; price: number; amount: number }
  | { kind: "order-release"; order: number }
  | { kind: "fee-hold"; hold: number; user: string; currency: number; amount: bigint }
  | { kind: "settle" | "release" | "raw-settle" | "raw-release"; hold: number };

const user = fc.constantFrom(...USERS);
const currency = fc.nat(CURRENCIES.length - 1);
const hold = fc.nat(HOLD_IDS.length - 1);
const steps: fc.Arbitrary<Step[]> = fc.array(
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant("deposit" as const), user, currency, amount: fc.bigInt(1n, 10_000n) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("withdraw" as const), user, currency, amount: fc.bigInt(1n, 5_000n) }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("order-hold" as const),
        user,
        isBid: fc.boolean(),
        price: fc.integer({ min: 1, max: 20 }),
        amount: fc.integer({ min: 1, max: 20 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("order-release" as const), order: fc.nat(30) }) },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant("fee-hold" as const),
        hold,
        user,
        currency,
        // Up to well past any balance, so holds beyond the balance are tried often.
        amount: fc.bigInt(1n, 20_000n),
      }),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constantFrom("settle" as const, "release" as const, "raw-settle" as const, "raw-release" as const),
        hold,
      }),
    },
  ),
  { maxLength: 60 },
);

interface StoredHold {
  readonly userId: string;
  readonly currency: string;
  readonly amount: bigint;
  status: FeeHoldStatus;
  resolutions: number;
}

describe("fee holds against an adversary (property)", () => {
  it("never loses, creates or double-charges money (seed pinned)", () => {
    const seed = Number(process.env.FC_SEED ?? 20260517);
    const numRuns = Number(process.env.FC_RUNS ?? 300);
    console.log(`# fee-hold adversary property test: FC_SEED=${seed} FC_RUNS=${numRuns}`);
    fc.assert(
      fc.property(steps, (script) => {
        const ledger = createLedger();
        const table = new Map<string, StoredHold>();
        const orders: string[] = [];
        const deposited = new Map<string, bigint>();
        const sent = new Map<string, bigint>();
        const add = (into: Map<string, bigint>, code: string, amount: bigint) =>
          into.set(code, (into.get(code) ?? 0n) + amount);

        script.forEach((step, i) => {
          switch (step.kind) {
            case "deposit": {
              const entry = deposit(ledger, {
                depositId: `d${i}`,
                userId: step.user,
                currency: CURRENCIES[step.currency]!,
                amount: step.amount,
                fee: { rate: { numerator: 1n, scale: 2 }, minimum: 0n },
              });
              assert.ok(entry.ok);
              applyEntry(ledger, entry.value);
              add(deposited, CURRENCIES[step.currency]!.code, step.amount);
              break;
            }
            case "withdraw": {
              const entry = withdraw(ledger, {
                withdrawalId: `w${i}`,
                userId: step.user,
                currency: CURRENCIES[step.currency]!,
                amount: step.amount,
                fee: { rate: { numerator: 1n, scale: 2 }, minimum: 1n },
              });
              if (!entry.ok) break;
              applyEntry(ledger, entry.value);
              const out = entry.value.postings.find((p) => p.account.kind === "external")!;
              add(sent, out.currency, out.delta);
              break;
            }
            case "order-hold": {
              const orderId = `o${i}`;
              const entry = holdForOrder(ledger, pair, {
                orderId,
                userId: step.user,
                isBid: step.isBid,
                type: "limit",
                price: step.price,
                amount: step.amount,
              });
              if (!entry.ok) {
                assert.equal(entry.code, "INSUFFICIENT_FUNDS");
                break;
              }
              applyEntry(ledger, entry.value);
              orders.push(orderId);
              break;
            }
            case "order-release": {
              const orderId = orders[step.order % Math.max(orders.length, 1)];
              const entry = orderId === undefined ? null : releaseHold(ledger, orderId);
              if (entry !== null) applyEntry(ledger, entry);
              break;
            }
            case "fee-hold": {
              const holdId = HOLD_IDS[step.hold]!;
              const code = CURRENCIES[step.currency]!.code;
              const stored = table.get(holdId);
              if (stored !== undefined) {
                // A repeat answers the stored hold (or conflicts) and moves nothing: the table is
                // what keeps a resolved id from holding again. The ledger itself refuses a second
                // hold while the first is open.
                if (stored.status === "held") {
                  const twice = holdFee(ledger, { holdId, userId: step.user, currency: code, amount: step.amount });
                  assert.ok(!twice.ok && twice.code === "DUPLICATE_HOLD_ID");
                }
                break;
              }
              const available = balanceOf(ledger, step.user, code).available;
              const entry = holdFee(ledger, { holdId, userId: step.user, currency: code, amount: step.amount });
              if (!entry.ok) {
                assert.equal(entry.code, "INSUFFICIENT_FUNDS");
                assert.ok(step.amount > available, "refused only beyond the balance");
                break;
              }
              assert.ok(step.amount <= available);
              applyEntry(ledger, entry.value);
              table.set(holdId, {
                userId: step.user,
                currency: code,
                amount: step.amount,
                status: "held",
                resolutions: 0,
              });
              break;
            }
            case "settle":
            case "release": {
              const holdId = HOLD_IDS[step.hold]!;
              const stored = table.get(holdId);
              if (stored === undefined) {
                assert.ok(!(step.kind === "settle" ? settleFee : releaseFee)(ledger, holdId).ok, "unknown hold");
                break;
              }
              const next = feeHoldStep(stored.status, step.kind);
              if (next !== "apply") {
                assert.equal(next === "repeat", (stored.status === "settled") === (step.kind === "settle"));
                break;
              }
              const entry = (step.kind === "settle" ? settleFee : releaseFee)(ledger, holdId);
              assert.ok(entry.ok, "an open hold can be resolved");
              applyEntry(ledger, entry.value);
              stored.status = step.kind === "settle" ? "settled" : "released";
              stored.resolutions++;
              break;
            }
            case "raw-settle":
            case "raw-release": {
              // Straight at the ledger, without the table: only an open hold has anything to move.
              const holdId = HOLD_IDS[step.hold]!;
              const stored = table.get(holdId);
              const entry = (step.kind === "raw-settle" ? settleFee : releaseFee)(ledger, holdId);
              assert.equal(entry.ok, stored?.status === "held", `${step.kind} ${holdId} of ${stored?.status}`);
              if (entry.ok) {
                applyEntry(ledger, entry.value);
                stored!.status = step.kind === "raw-settle" ? "settled" : "released";
                stored!.resolutions++;
              }
              break;
            }
          }
          checkInvariants(ledger, table, deposited, sent, i);
        });
        const supply = CURRENCIES.map((c) => supplyOf(ledger, c.code));
        recountSupply(ledger);
        assert.deepEqual(
          CURRENCIES.map((c) => supplyOf(ledger, c.code)),
          supply,
          "recounting supply from balances and fees gives the same (burned is outside it)",
        );
      }),
      { seed, numRuns },
    );
  });
});

function checkInvariants(
  ledger: LedgerState,
  table: Map<string, StoredHold>,
  deposited: Map<string, bigint>,
  sent: Map<string, bigint>,
  step: number,
): void {
  const lockedByHolds = new Map<string, bigint>();
  for (const [key, held] of ledger.holds) {
    assert.ok(held.amount > 0n, `hold ${key} is positive`);
    const account = `${held.userId}/${held.currency}`;
    lockedByHolds.set(account, (lockedByHolds.get(account) ?? 0n) + held.amount);
  }
  for (const [holdId, stored] of table) {
    assert.ok(stored.resolutions <= 1, `hold ${holdId} resolved ${stored.resolutions} times`);
    assert.equal(
      holdOf(ledger, feeHoldKey(holdId))?.amount,
      stored.status === "held" ? stored.amount : undefined,
      `the ledger holds ${holdId} exactly while it is held`,
    );
  }
  for (const { code } of CURRENCIES) {
    let holdings = 0n;
    for (const userId of USERS) {
      const { available, locked } = balanceOf(ledger, userId, code);
      assert.ok(available >= 0n && locked >= 0n, `step ${step}: ${userId} ${code} negative`);
      assert.equal(locked, lockedByHolds.get(`${userId}/${code}`) ?? 0n, `step ${step}: ${userId} ${code} locked`);
      holdings += available + locked;
    }
    const fees = feesCollected(ledger, code);
    const burned = burnedTotal(ledger, code);
    assert.ok(fees >= 0n && burned >= 0n);
    const settled = [...table.values()]
      .filter((h) => h.currency === code && h.status === "settled")
      .reduce((sum, h) => sum + h.amount, 0n);
    assert.equal(burned, settled, `step ${step}: burned ${code} is the settled holds`);
    assert.equal(
      holdings + fees + burned,
      (deposited.get(code) ?? 0n) - (sent.get(code) ?? 0n),
      `step ${step}: ${code} available + locked + fees + burned = deposits - withdrawals`,
    );
    assert.equal(supplyOf(ledger, code), holdings + fees, `step ${step}: ${code} supply`);
  }
}
