import assert from "node:assert/strict";
import { describe, it } from "vitest";
import fc from "fast-check";
import type { DealRow } from "../store/index.ts";
import { modelPage } from "../../../support/exchange/deal-page-model.ts";
import { RecentDeals } from "./recent-deals.ts";

const seed = Number(process.env.FC_SEED ?? 4242);
console.log(`recent-deals property test: FC_SEED=${seed}`);

const deal = (tradeSeq: number, executedAtUs: number, takerIsBid: boolean): DealRow => ({
  id: `d${tradeSeq}`,
  pairCode: "A_B",
  tradeSeq,
  priceTicks: 100,
  amountLots: 1,
  takerIsBid,
  makerOrderId: "m",
  takerOrderId: "t",
  makerUserId: "u1",
  takerUserId: "u2",
  makerFee: 0n,
  takerFee: 0n,
  executedAtUs,
});

describe("RecentDeals", () => {
  it("answers a page exactly as the database would, or declines", () => {
    let answered = 0;
    let declined = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean()), { minLength: 0, maxLength: 120 }),
        fc.integer({ min: 0, max: 60 }),
        fc.array(
          fc.record({
            sinceUs: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
            untilUs: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
            takerIsBid: fc.option(fc.boolean(), { nil: undefined }),
            offset: fc.integer({ min: 0, max: 30 }),
            limit: fc.integer({ min: 1, max: 40 }),
          }),
          { minLength: 1, maxLength: 5 },
        ),
        fc.integer({ min: 4, max: 50 }),
        (steps, preloaded, ranges, capacity) => {
          // Times mostly rise, sometimes repeat (same microsecond impossible in practice, but the
          // order must still be exact), fed partly at start-up and the rest as they commit.
          const all: DealRow[] = [];
          let time = 0;
          steps.forEach(([gap, takerIsBid], i) => {
            time += gap;
            all.push(deal(i + 1, time, takerIsBid));
          });
          const recent = new RecentDeals(capacity);
          const atStart = all.slice(0, Math.min(preloaded, all.length));
          const loaded = atStart.slice(-capacity);
          recent.load("A_B", loaded, loaded.length === atStart.length);
          recent.add(all.slice(atStart.length));
          for (const range of ranges) {
            const page = recent.page("A_B", range);
            if (page === undefined) {
              declined++;
              continue;
            }
            answered++;
            assert.deepEqual(
              page.map((d) => d.tradeSeq),
              modelPage(all, range).map((d) => d.tradeSeq),
            );
          }
        },
      ),
      { seed, numRuns: 500 },
    );
    assert.ok(answered > 100 && declined > 10, `both paths exercised (answered ${answered}, declined ${declined})`);
  });

  it("serves the newest page of a long history from memory", () => {
    const recent = new RecentDeals(100);
    recent.load("A_B", [], true);
    recent.add(Array.from({ length: 1000 }, (_, i) => deal(i + 1, i * 10, i % 2 === 0)));
    assert.deepEqual(
      recent.page("A_B", { offset: 0, limit: 3 })?.map((d) => d.tradeSeq),
      [1000, 999, 998],
    );
    assert.equal(
      recent.page("A_B", { offset: 100, limit: 10 }),
      undefined,
      "older than memory can hold: ask the database",
    );
    assert.deepEqual(recent.page("A_B", { sinceUs: 9_900, offset: 0, limit: 100 })?.length, 10);
  });
});
