import assert from "node:assert/strict";
import { describe, it } from "vitest";
import { FIXTURE_MARKET } from "../../support/exchange/fixture-market.ts";
import type { CommissionRow } from "../adapters/store/index.ts";
import { ReferenceData } from "./reference-data.ts";

const rows = (): CommissionRow[] => FIXTURE_MARKET.commissions.map((row, i) => ({ commissionId: `c${i}`, ...row }));

describe("ReferenceData", () => {
  it("accepts the fixture market's commission table (the demo's and its agent tokens')", () => {
    const reference = new ReferenceData(FIXTURE_MARKET.currencies, FIXTURE_MARKET.pairs, rows());
    assert.equal(reference.commissions.length, rows().length);
  });

  it("refuses a commission row that could not be applied, naming it, before any trade needs it", () => {
    const bad = rows();
    bad[3] = { ...bad[3], percent: "0.1%" }; // a tier-20 taker row
    assert.throws(
      () => new ReferenceData(FIXTURE_MARKET.currencies, FIXTURE_MARKET.pairs, bad),
      /invalid commission table: commission c3/,
    );
    const malformed = rows();
    malformed[5] = { ...malformed[5], minimum: "1e3" }; // not a plain decimal
    assert.throws(() => new ReferenceData(FIXTURE_MARKET.currencies, FIXTURE_MARKET.pairs, malformed), /commission c5/);
  });

  it("keeps the previous table when a replacement is refused", () => {
    const reference = new ReferenceData(FIXTURE_MARKET.currencies, FIXTURE_MARKET.pairs, rows());
    assert.throws(() => reference.setCommissions([{ ...rows()[0], percent: "abc" }]));
    assert.equal(reference.commissions.length, rows().length);
  });

  it("finds an inactive pair for its orders but refuses it for new ones", () => {
    const pairs = FIXTURE_MARKET.pairs.map((p) => (p.code === "BETA_USDT" ? { ...p, active: false } : p));
    const reference = new ReferenceData(FIXTURE_MARKET.currencies, pairs, rows());
    assert.ok(reference.pairs.get("BETA_USDT"));
    assert.throws(() => reference.pair("BETA_USDT"), /Unknown currency pair/);
  });
});
