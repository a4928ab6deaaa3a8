import type { Address } from "viem";
import { describe, expect, it } from "vitest";
import { applySwap, type PoolReserves, quote } from "../pool/pool-math.ts";
import { directivesInForce } from "./directives.ts";
import { answeredCauses, DEFAULT_QUEEN_PARAMS, decideQueen } from "./queen.ts";
import { decideScout, signalsOfScout } from "./scout.ts";
import type { ActionView, SwapView, TokenView, TransferView, WorkerView } from "./types.ts";

const A = "0x00000000000000000000000000000000000000aa" as const;
const OPERATOR = "0x00000000000000000000000000000000000000bb" as const;
const now = 100_000;
const start: PoolReserves = { reserveToken: 10n ** 27n, reservePair: 0n, virtualPair: 10n ** 10n, feePips: 3_000n };

function swap(
  before: PoolReserves,
  isBuy: boolean,
  amountIn: bigint,
  time: number,
  n: number,
  sender: Address = A,
): [SwapView, PoolReserves] {
  const out = quote(before, isBuy, amountIn).amountOut;
  return [
    {
      txHash: `0x${n.toString(16).padStart(64, "0")}`,
      logIndex: 0,
      block: BigInt(n),
      time,
      sender,
      isBuy,
      amountIn,
      amountOut: out,
      before,
    },
    applySwap(before, isBuy, amountIn, out),
  ];
}

function token(swaps: SwapView[], reserves: PoolReserves, spawnedAt = 0): TokenView {
  return {
    nftId: 5n,
    workerId: 2n,
    symbol: "ZED",
    token: A,
    pool: A,
    pairAsset: A,
    totalSupply: 10n ** 27n,
    reserves,
    spawnedAt,
    spawnTx: "0xabc",
    prices: [],
    swaps,
  };
}

const worker: WorkerView = {
  id: 2n,
  agentNftId: 5n,
  operator: OPERATOR,
  status: "active",
  config: { slippageCapBps: 50, mevProtection: "off", signalSubscriptions: [] },
};
const workers = new Map([[2n, worker]]);

const action = (over: Partial<ActionView>): ActionView => ({
  entryId: 1n,
  targetNftId: 5n,
  tier: "scout",
  sourceAgentId: 11n,
  operator: A,
  actionType: "flag",
  payload: {},
  reasonCode: "X",
  isOverride: false,
  time: now - 10,
  block: 1n,
  txHash: "0x01",
  ...over,
});

describe("decideScout", () => {
  it("flags a large buy as a price move (with its evidence) once, and a new spawn", () => {
    const [big, after] = swap(start, true, 2n * 10n ** 9n, now - 30, 1);
    const input = {
      now,
      tokens: [token([big], after, now - 100)],
      workers,
      transfers: [],
      actions: [] as ActionView[],
    };
    const flags = decideScout(input);
    const price = flags.find((f) => f.payload.signal === "price")!;
    expect(price).toMatchObject({ actionType: "flag", reasonCode: "PRICE_MOVE", targetNftId: 5n });
    expect((price.payload.evidence as { txHashes: string[]; changeBps: number }).txHashes).toEqual([big.txHash]);
    expect((price.payload.evidence as { changeBps: number }).changeBps).toBeGreaterThan(3_000);
    expect(flags.some((f) => f.payload.signal === "spawn" && f.reasonCode === "NEW_SPAWN")).toBe(true);
    // Recorded on the chain, the same evidence is not flagged again.
    const recorded = flags.map((f, i) => action({ entryId: BigInt(i + 1), payload: f.payload }));
    expect(decideScout({ ...input, actions: recorded })).toEqual([]);
  });

  it("after a price flag, flags a further move beyond the threshold but not the same move again", () => {
    const [first, mid] = swap(start, true, 2n * 10n ** 9n, now - 60, 1);
    const input = { now, tokens: [token([first], mid)], workers, transfers: [], actions: [] as ActionView[] };
    const [flag] = decideScout(input).filter((f) => f.payload.signal === "price");
    const recorded = action({ entryId: 8n, payload: flag!.payload, block: 1n });
    const [small, afterSmall] = swap(mid, true, 10n ** 6n, now - 30, 2);
    expect(
      decideScout({ ...input, tokens: [token([first, small], afterSmall)], actions: [recorded] }).filter(
        (f) => f.payload.signal === "price",
      ),
    ).toEqual([]);
    const [big, afterBig] = swap(mid, true, 3n * 10n ** 9n, now - 30, 3);
    const again = decideScout({ ...input, tokens: [token([first, big], afterBig)], actions: [recorded] }).filter(
      (f) => f.payload.signal === "price",
    );
    expect(again).toHaveLength(1);
    expect((again[0]!.payload.evidence as { txHashes: string[] }).txHashes).toEqual([big.txHash]);
  });

  it("flags a volume spike against the hour's baseline, not steady trading", () => {
    let pool = start;
    const swaps: SwapView[] = [];
    for (let i = 0; i < 10; i++) {
      const [s, next] = swap(pool, i % 2 === 0, i % 2 === 0 ? 10n ** 6n : 10n ** 20n, now - 3_000 + i * 200, i);
      swaps.push(s);
      pool = next;
    }
    const steady = decideScout({ now, tokens: [token(swaps, pool)], workers, transfers: [], actions: [] });
    expect(steady.some((f) => f.payload.signal === "volume")).toBe(false);
    const [spike, after] = swap(pool, true, 10n ** 8n, now - 20, 99);
    const flags = decideScout({
      now,
      tokens: [token([...swaps, spike], after)],
      workers,
      transfers: [],
      actions: [],
    });
    expect(flags.find((f) => f.payload.signal === "volume")?.reasonCode).toBe("VOLUME_SPIKE");
  });

  it("flags a worker's swap beyond its cap, and a whale transfer", () => {
    const [rogue, after] = swap(start, true, 10n ** 9n, now - 5, 7, OPERATOR);
    const transfers: TransferView[] = [
      { txHash: "0x77" as const, logIndex: 1, time: now - 5, token: A, from: A, to: OPERATOR, value: 5n * 10n ** 25n },
    ];
    const flags = decideScout({ now, tokens: [token([rogue], after)], workers, transfers, actions: [] });
    expect(flags.find((f) => f.payload.signal === "slippage")).toMatchObject({ reasonCode: "SLIPPAGE_BREACH" });
    expect(flags.find((f) => f.payload.signal === "whale")).toMatchObject({ reasonCode: "WHALE_MOVE" });
  });

  it("splits the signals among scouts without overlap", () => {
    const a = signalsOfScout(0, 2);
    const b = signalsOfScout(1, 2);
    expect([...a, ...b].sort()).toEqual(["price", "reference", "slippage", "spawn", "volume", "whale"]);
    expect(a.filter((s) => b.includes(s))).toEqual([]);
  });
});

describe("decideQueen", () => {
  it("answers a price shock with a pause the worker then obeys, once", () => {
    const flag = action({ entryId: 3n, payload: { signal: "price", evidence: { changeBps: 2_500 } } });
    const [directive] = decideQueen({ now, actions: [flag], workers, answered: new Set() });
    expect(directive).toMatchObject({
      actionType: "directive",
      reasonCode: "PRICE_SHOCK",
      payload: { instruction: "pause_trading", cause: "3" },
    });
    const recorded = action({
      entryId: 4n,
      tier: "queen",
      sourceAgentId: 10n,
      actionType: "directive",
      payload: directive!.payload,
      time: now,
    });
    expect(directivesInForce([recorded], 5n, now + 1).map((d) => d.instruction)).toEqual(["pause_trading"]);
    expect(directivesInForce([recorded], 5n, now + 10_000)).toEqual([]);
    expect(decideQueen({ now, actions: [flag, recorded], workers, answered: answeredCauses([recorded], 10n) })).toEqual(
      [],
    );
  });

  it("overrides a worker trade during a pause and a cap breach", () => {
    const pause = action({
      entryId: 4n,
      tier: "queen",
      sourceAgentId: 10n,
      actionType: "directive",
      payload: { instruction: "pause_trading", until: now + 100, cause: "3" },
      time: now - 50,
    });
    const trade = action({ entryId: 5n, tier: "worker", sourceAgentId: 2n, actionType: "trade", time: now - 20 });
    const breach = action({ entryId: 6n, payload: { signal: "slippage", evidence: { txHashes: ["0x9"] } } });
    const out = decideQueen({ now, actions: [pause, trade, breach], workers, answered: new Set(["3"]) });
    expect(out.map((o) => [o.actionType, o.reasonCode, o.payload.cause])).toEqual([
      ["override", "DIRECTIVE_BREACH", "5"],
      ["override", "CAP_BREACH", "6"],
    ]);
  });

  it("holds a worker only to the directives it could see when it decided", () => {
    const pause = action({
      entryId: 4n,
      tier: "queen",
      sourceAgentId: 10n,
      actionType: "directive",
      payload: { instruction: "pause_trading", until: now + 100, cause: "3" },
      time: now - 50,
      block: 40n,
    });
    const trade = (observedBlock: string, entryId: bigint) =>
      action({
        entryId,
        tier: "worker",
        sourceAgentId: 2n,
        actionType: "trade",
        time: now - 20,
        block: 41n,
        payload: { observedBlock },
      });
    const out = decideQueen({
      now,
      actions: [pause, trade("39", 5n), trade("40", 6n)],
      workers,
      answered: new Set(["3"]),
    });
    expect(out.map((o) => o.payload.cause)).toEqual(["6"]);
  });

  it("states the cool-off of her overrides: the chain suspends the worker that long at most", () => {
    const breach = action({ entryId: 6n, payload: { signal: "slippage", evidence: { txHashes: ["0x9"] } } });
    const [override] = decideQueen({ now, actions: [breach], workers, answered: new Set() });
    expect(override).toMatchObject({
      actionType: "override",
      coolOffSec: DEFAULT_QUEEN_PARAMS.overrideCoolOffSec,
      payload: { action: "suspend", coolOffSec: 3_600, cause: "6" },
    });
  });

  it("does not override a trade decided under the cap it replaced, landing just after the change", () => {
    // The cap went from 100 to 60 bps in block 50 (time now - 30); the swap's impact was 90 bps.
    const capChanges = new Map([[2n, { previousCapBps: 100, block: 50n, time: now - 30 }]]);
    const flag = action({
      entryId: 9n,
      payload: { signal: "slippage", evidence: { txHashes: ["0xs1"], workerId: "2", impactBps: 90 } },
    });
    const recorded = (observedBlock: string, time = now - 25) =>
      action({
        entryId: 8n,
        tier: "worker",
        actionType: "trade",
        payload: { swapTx: "0xs1", observedBlock, slippageCapBps: 100 },
        time,
      });
    const decide = (actions: ActionView[], changes = capChanges) =>
      decideQueen({ now, actions, workers, answered: new Set(), capChanges: changes }).map((o) => o.reasonCode);
    expect(decide([recorded("49"), flag])).toEqual([]);
    // Decided after the change, beyond the old cap, landing long after, or never recorded (a rogue
    // swap by the operator's key): a breach.
    expect(decide([recorded("50"), flag])).toEqual(["CAP_BREACH"]);
    expect(decide([recorded("49"), flag], new Map([[2n, { previousCapBps: 80, block: 50n, time: now - 30 }]]))).toEqual(
      ["CAP_BREACH"],
    );
    expect(decide([recorded("49", now + 60), flag])).toEqual(["CAP_BREACH"]);
    expect(decide([flag])).toEqual(["CAP_BREACH"]);
  });

  describe("lifting her override (issue 24, finding 2: an override now suspends the worker)", () => {
    const rest = DEFAULT_QUEEN_PARAMS.restSec;
    const suspended = new Map([[2n, { ...worker, status: "suspended" as const }]]);
    const override = (time: number) =>
      action({ entryId: 7n, tier: "queen", sourceAgentId: 10n, actionType: "override", isOverride: true, time });
    const held = (byTier: "queen" | "scout" = "queen", until = now + 3_000) =>
      new Map([[2n, { byTier, byAgentId: 10n, until, resumeTo: "active" as const }]]);
    const decide = (actions: ActionView[], over: Partial<Parameters<typeof decideQueen>[0]> = {}) =>
      decideQueen({ now, actions, workers: suspended, answered: new Set(), suspensions: held(), ...over });

    it("resumes the worker once it held restSec, answering the override once", () => {
      const [resume] = decide([override(now - rest)]);
      expect(resume).toMatchObject({
        kind: "record",
        targetNftId: 5n,
        actionType: "resume",
        reasonCode: "OVERRIDE_LIFTED",
        payload: { cause: "7", resumes: "2", heldSec: rest },
      });
      expect(decide([override(now - rest)], { answered: new Set(["7"]) })).toEqual([]);
    });

    it("holds it while the rest lasts or a pause is in force", () => {
      expect(decide([override(now - rest + 1)])).toEqual([]);
      const pause = action({
        entryId: 4n,
        tier: "queen",
        actionType: "directive",
        payload: { instruction: "pause_trading", until: now + 60 },
        time: now - rest - 10,
      });
      expect(decide([pause, override(now - rest)])).toEqual([]);
    });

    it("leaves a scout's suspension, an ended one and a manager's (no tier) alone", () => {
      expect(decide([override(now - rest)], { suspensions: held("scout") })).toEqual([]);
      expect(decide([override(now - rest)], { suspensions: held("queen", now) })).toEqual([]);
      expect(decide([override(now - rest)], { suspensions: new Map() })).toEqual([]);
      // The chain (world's view) says it is active again.
      expect(decide([override(now - rest)], { workers })).toEqual([]);
    });
  });

  it("leaves small moves, unknown signals and old flags alone", () => {
    const actions = [
      action({ entryId: 1n, payload: { signal: "price", evidence: { changeBps: 600 } } }),
      action({ entryId: 2n, payload: { signal: "whale_exit" } }),
      action({ entryId: 3n, payload: { signal: "volume" }, time: now - 7_200 }),
    ];
    expect(decideQueen({ now, actions, workers, answered: new Set() })).toEqual([]);
  });
});
