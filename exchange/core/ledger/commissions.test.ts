import assert from "node:assert/strict";
import { describe, it } from "vitest";
import {
  COMMISSION_TYPES,
  commissionsForLevel,
  feeFor,
  NO_FEE,
  resolveFeeRule,
  resolvePairFees,
  type CommissionRecord,
} from "./commissions.ts";
import { AGT, rate, testPair, USD } from "../../../support/exchange/pair-and-fees.ts";

function record(overrides: Partial<CommissionRecord>): CommissionRecord {
  return {
    commissionId: "c",
    currencyCode: null,
    currencyPairCode: null,
    currencyAdapterCode: null,
    percent: "0.001",
    minimum: "0",
    commissionCurrencyCode: null,
    commissionTypeCode: COMMISSION_TYPES.tradeTaker,
    ...overrides,
  };
}

describe("feeFor", () => {
  const rule = { rate: rate(1n, 3), minimum: 50n };

  it("charges the rate rounded up, at least the minimum, at most the amount", () => {
    assert.equal(feeFor(1_000_000n, rule), 1_000n);
    assert.equal(feeFor(1_000_001n, rule), 1_001n, "a fraction of a unit rounds up");
    assert.equal(feeFor(10_000n, rule), 50n, "the minimum wins over a smaller proportional fee");
    assert.equal(feeFor(30n, rule), 30n, "a fee never exceeds what it is charged on");
    assert.equal(feeFor(123n, NO_FEE), 0n);
  });
});

describe("resolveFeeRule", () => {
  it("prefers the pair row over the currency row over the default row", () => {
    const records = [
      record({ commissionId: "default", percent: "0.003" }),
      record({ commissionId: "currency", currencyCode: "AGT", percent: "0.002" }),
      record({ commissionId: "pair", currencyPairCode: "AGT_USD", percent: "0.001" }),
      record({ commissionId: "other pair", currencyPairCode: "XYZ_USD", percent: "0.5" }),
      record({ commissionId: "maker", commissionTypeCode: COMMISSION_TYPES.tradeMaker, percent: "0.9" }),
    ];
    const query = { typeCode: COMMISSION_TYPES.tradeTaker, currency: AGT, pairCode: "AGT_USD" };
    assert.deepEqual(resolveFeeRule(records, query), { ok: true, value: { rate: rate(1n, 3), minimum: 0n } });
    assert.deepEqual(resolveFeeRule(records.slice(0, 2), query), {
      ok: true,
      value: { rate: rate(2n, 3), minimum: 0n },
    });
    assert.deepEqual(resolveFeeRule(records.slice(0, 1), query), {
      ok: true,
      value: { rate: rate(3n, 3), minimum: 0n },
    });
  });

  it("applies the minimum only in its own currency, rounded up to a whole unit", () => {
    const records = [record({ currencyCode: "AGT", minimum: "0.00015", commissionCurrencyCode: "AGT" })];
    const inAgt = resolveFeeRule(records, { typeCode: COMMISSION_TYPES.tradeTaker, currency: AGT });
    assert.deepEqual(inAgt, { ok: true, value: { rate: rate(1n, 3), minimum: 2n } });
    const usdRecords = [record({ minimum: "1", commissionCurrencyCode: "AGT" })];
    const inUsd = resolveFeeRule(usdRecords, { typeCode: COMMISSION_TYPES.tradeTaker, currency: USD });
    assert.deepEqual(inUsd, { ok: true, value: { rate: rate(1n, 3), minimum: 0n } });
  });

  it("means no fee when nothing matches, and a stable error for a bad row", () => {
    assert.deepEqual(resolveFeeRule([], { typeCode: COMMISSION_TYPES.refill, currency: USD }), {
      ok: true,
      value: NO_FEE,
    });
    const bad = resolveFeeRule([record({ percent: "2" })], { typeCode: COMMISSION_TYPES.tradeTaker, currency: USD });
    assert.ok(!bad.ok && bad.code === "INVALID_COMMISSION");
  });

  it("keeps deposit and withdrawal rows apart by type and adapter", () => {
    const records = [
      record({ commissionTypeCode: COMMISSION_TYPES.refill, currencyCode: "USD", percent: "0" }),
      record({ commissionTypeCode: COMMISSION_TYPES.withdrawal, currencyCode: "USD", percent: "0.01" }),
      record({
        commissionTypeCode: COMMISSION_TYPES.withdrawal,
        currencyCode: "USD",
        currencyAdapterCode: "ETH",
        percent: "0.02",
      }),
    ];
    const withdrawal = { typeCode: COMMISSION_TYPES.withdrawal, currency: USD };
    assert.deepEqual(resolveFeeRule(records, withdrawal), { ok: true, value: { rate: rate(1n, 2), minimum: 0n } });
    assert.deepEqual(resolveFeeRule(records, { ...withdrawal, adapterCode: "ETH" }), {
      ok: true,
      value: { rate: rate(2n, 2), minimum: 0n },
    });
  });
});

describe("resolvePairFees", () => {
  it("resolves maker and taker rules for each currency a side can receive", () => {
    const fees = resolvePairFees(
      [
        record({ commissionTypeCode: COMMISSION_TYPES.tradeMaker, percent: "0.001" }),
        record({
          commissionTypeCode: COMMISSION_TYPES.tradeTaker,
          percent: "0.002",
          minimum: "0.01",
          commissionCurrencyCode: "USD",
        }),
      ],
      testPair(),
    );
    assert.ok(fees.ok);
    assert.deepEqual(fees.value.maker.base, { rate: rate(1n, 3), minimum: 0n });
    assert.deepEqual(fees.value.taker.base, { rate: rate(2n, 3), minimum: 0n });
    assert.deepEqual(fees.value.taker.quote, { rate: rate(2n, 3), minimum: 10_000n });
  });
});

describe("commissionsForLevel", () => {
  const row = (
    id: string,
    typeCode: string,
    minLevel: number,
    percent: string,
    currencyCode: string | null = null,
  ) => ({
    commissionId: id,
    currencyCode,
    currencyPairCode: null,
    currencyAdapterCode: null,
    percent,
    minimum: "0",
    commissionCurrencyCode: null,
    commissionTypeCode: typeCode,
    minLevel,
  });
  const rows = [
    row("d3", "3", 0, "0.002"),
    row("t3", "3", 20, "0.001"),
    row("d4", "4", 0, "0.003"),
    row("x3", "3", 50, "0.0005"),
    row("c3", "3", 0, "0.004", "USDT"),
  ];

  it("gives default rows below every tier", () => {
    assert.deepEqual(
      commissionsForLevel(rows, 0).map((r) => r.commissionId),
      ["d3", "d4", "c3"],
    );
  });

  it("lets the highest reached tier shadow the default of the same slot only", () => {
    assert.deepEqual(
      commissionsForLevel(rows, 20).map((r) => r.commissionId),
      ["t3", "d4", "c3"],
    );
    assert.deepEqual(
      commissionsForLevel(rows, 99).map((r) => r.commissionId),
      ["d4", "x3", "c3"],
    );
  });
});
