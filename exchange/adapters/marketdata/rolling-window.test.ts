import assert from "node:assert/strict";
import { it } from "vitest";
import fc from "fast-check";
import { RollingWindow, type TradePoint } from "./rolling-window.ts";

const SEED = Number(process.env.FC_SEED ?? 777);

it("matches a full scan of the window after every trade and every clock step", () => {
  console.log(`# FC_SEED=${SEED}`);
  const span = 1000;
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          gap: fc.integer({ min: 0, max: 400 }),
          price: fc.integer({ min: 1, max: 50 }),
          lots: fc.integer({ min: 1, max: 9 }),
          probe: fc.integer({ min: 0, max: 1500 }),
        }),
        { maxLength: 80 },
      ),
      (steps) => {
        const window = new RollingWindow(span);
        const all: TradePoint[] = [];
        let time = 0;
        for (const step of steps) {
          time += step.gap;
          const trade = {
            timeUs: time,
            priceTicks: step.price,
            lots: step.lots,
            quoteUnits: BigInt(step.price * step.lots),
          };
          window.add(trade);
          all.push(trade);
          const now = time + step.probe;
          const inside = all.filter((t) => t.timeUs > now - span);
          const before = all.filter((t) => t.timeUs <= now - span).at(-1);
          const stats = window.stats(now);
          assert.equal(stats.count, inside.length);
          assert.equal(
            stats.volumeLots,
            inside.reduce((s, t) => s + BigInt(t.lots), 0n),
          );
          assert.equal(
            stats.volumeQuote,
            inside.reduce((s, t) => s + t.quoteUnits, 0n),
          );
          assert.equal(stats.high, inside.length ? Math.max(...inside.map((t) => t.priceTicks)) : null);
          assert.equal(stats.low, inside.length ? Math.min(...inside.map((t) => t.priceTicks)) : null);
          assert.equal(stats.priceBefore, before?.priceTicks ?? null);
          assert.equal(stats.last, trade);
          // The clock only moves forward: later probes must start from here.
          time = Math.max(time, now - 0);
        }
      },
    ),
    { seed: SEED, numRuns: 300 },
  );
});
