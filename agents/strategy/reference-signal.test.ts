import { describe, expect, it } from "vitest";
import { applySwap, type PoolReserves, PRICE_SCALE, quote, spotPrice } from "../pool/pool-math.ts";
import { directivesInForce } from "./directives.ts";
import { decideQueen, type QueenIntent } from "./queen.ts";
import { decideScout } from "./scout.ts";
import type { ActionView, PricePoint, RecordIntent, TokenView, WorkerView } from "./types.ts";
import { decideWorker } from "./worker.ts";

/** The `reference` signal end to end: the scout flags a planted reference, the queen answers, the worker holds. */

const A = "0x00000000000000000000000000000000000000aa" as const;
const now = 100_000;
const pool: PoolReserves = {
  reserveToken: 1_000_000_000n * 10n ** 18n,
  reservePair: 5_000n * 10n ** 6n,
  virtualPair: 10_000n * 10n ** 6n,
  feePips: 3_000n,
};
const price = spotPrice(pool);

const worker: WorkerView = {
  id: 2n,
  agentNftId: 5n,
  operator: A,
  status: "active",
  config: { slippageCapBps: 100, mevProtection: "off", signalSubscriptions: [] },
};
const workers = new Map([[2n, worker]]);

function token(prices: PricePoint[], reserves = pool): TokenView {
  return {
    nftId: 5n,
    workerId: 2n,
    symbol: "ZED",
    token: A,
    pool: A,
    pairAsset: A,
    totalSupply: 10n ** 27n,
    reserves,
    spawnedAt: 0,
    spawnTx: "0xabc",
    prices,
    swaps: [],
  };
}

/** The pool at `p` from 40 minutes before `until`, a block every 30 s. */
function steady(p: bigint, until: number): PricePoint[] {
  const points: PricePoint[] = [];
  for (let t = until - 2_400, b = 1n; t < until; t += 30, b++) points.push({ block: b, time: t, price: p });
  return points;
}

/** 30% up for 100 s, pulled back 60 s ago. */
function planted(): PricePoint[] {
  const points = steady(price, now - 160);
  points.push({ block: 500n, time: now - 160, price: (price * 130n) / 100n });
  points.push({ block: 501n, time: now - 60, price });
  return points;
}

const recorded = (
  intent: RecordIntent | QueenIntent,
  entryId: bigint,
  tier: ActionView["tier"],
  time: number,
): ActionView => ({
  entryId,
  targetNftId: intent.targetNftId,
  tier,
  sourceAgentId: 11n,
  operator: A,
  actionType: intent.actionType,
  payload: JSON.parse(JSON.stringify(intent.payload)) as Record<string, unknown>,
  reasonCode: intent.reasonCode,
  isOverride: false,
  time,
  block: BigInt(time),
  txHash: "0x01",
});

describe("the reference signal", () => {
  it("a scout flags a reference a held push planted, once; the queen widens the band over it; the worker then holds", () => {
    const plantedToken = token(planted());
    const flags = decideScout({ now, tokens: [plantedToken], workers, transfers: [], actions: [] });
    const flag = flags.find((f) => f.payload.signal === "reference")!;
    expect(flag).toMatchObject({ actionType: "flag", reasonCode: "REFERENCE_MOVE", targetNftId: 5n });
    const evidence = flag.payload.evidence as Record<string, number | string>;
    expect(evidence.changeBps).toBe(500);
    expect(evidence.deviationBps).toBeLessThan(-300);
    expect(evidence).toMatchObject({ slippageCapBps: 100, bandBps: 300, windowSec: 600, workerId: "2" });

    const flagEntry = recorded(flag, 30n, "scout", now);
    // Seen once, not flagged again while the move stays within the cap of what was flagged.
    expect(
      decideScout({ now: now + 3, tokens: [plantedToken], workers, transfers: [], actions: [flagEntry] }).filter(
        (f) => f.payload.signal === "reference",
      ),
    ).toEqual([]);

    const [answer] = decideQueen({ now: now + 3, actions: [flagEntry], workers, answered: new Set() });
    expect(answer).toMatchObject({
      actionType: "directive",
      reasonCode: "REFERENCE_SHIFT",
      payload: { instruction: "widen_band", cause: "30", until: now + 603 },
    });
    const answerEntry = recorded(answer!, 31n, "queen", now + 3);

    const balanced = { token: (50n * 10n ** 6n * PRICE_SCALE) / price, pair: 50n * 10n ** 6n };
    const decide = (actions: ActionView[]) =>
      decideWorker({
        now: now + 6,
        token: plantedToken,
        worker,
        inventory: balanced,
        directives: directivesInForce(actions, 5n, now + 6),
        flags: actions.filter((a) => a.tier === "scout"),
        answers: actions.filter((a) => a.tier === "queen"),
      });
    expect(decide([])).toEqual([]);
    expect(decide([flagEntry])).toEqual([]);
    expect(decide([flagEntry, answerEntry])).toEqual([]);
  });

  it("no flag for a real move: the price leads and the reference follows it", () => {
    const points = steady(price, now - 300);
    const risen = (price * 110n) / 100n;
    for (let i = 1; i <= 10; i++)
      points.push({
        block: 1_000n + BigInt(i),
        time: now - 300 + 30 * (i - 1),
        price: price + ((risen - price) * BigInt(i)) / 10n,
      });
    const up = applySwap(pool, true, 2_300n * 10n ** 6n, quote(pool, true, 2_300n * 10n ** 6n).amountOut);
    const flags = decideScout({ now, tokens: [token(points, up)], workers, transfers: [], actions: [] });
    expect(flags.filter((f) => f.payload.signal === "reference")).toEqual([]);
  });
});
