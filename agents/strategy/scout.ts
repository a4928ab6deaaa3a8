import { BPS, impactBps, moveBps, spotPrice } from "../pool/pool-math.ts";
import type { Signal } from "./reason-codes.ts";
import { coveringFlag, followsMove, poolReference } from "./reference.ts";
import type { ActionView, RecordIntent, SwapView, TokenView, TransferView, WorkerView } from "./types.ts";
import { DEFAULT_WORKER_PARAMS } from "./worker.ts";

/**
 * A scout's decision: which signals it sees now, each flagged once. Every flag's payload names
 * the signal (what workers subscribe to), the evidence (transaction hashes and figures) and a
 * `key` naming that evidence; a scout never flags a key it has flagged before, which it learns
 * from its own earlier flags on the chain, so a restart repeats nothing.
 */

export interface ScoutParams {
  readonly signals: readonly Signal[];
  /** A price move of at least this within `windowSec` is flagged. */
  readonly priceMoveBps: bigint;
  readonly windowSec: number;
  /** Volume in the window at least this multiple of the window average over `baselineSec`. */
  readonly volumeFactor: bigint;
  readonly baselineSec: number;
  /** A transfer of at least this share of supply. */
  readonly whaleBps: bigint;
  /** Spawns younger than this are flagged. */
  readonly spawnMemorySec: number;
  /** The workers' reference as they compute it (worker.ts): window, blocks, and the band it assumes. */
  readonly referenceWindowSec: number;
  readonly referenceMinBlocks: number;
  readonly referenceBandBps: bigint;
}

export const DEFAULT_SCOUT_PARAMS: ScoutParams = {
  signals: ["price", "volume", "spawn", "whale", "slippage", "reference"],
  priceMoveBps: 500n,
  windowSec: 300,
  volumeFactor: 3n,
  baselineSec: 3_600,
  whaleBps: 100n,
  spawnMemorySec: 3_600,
  referenceWindowSec: DEFAULT_WORKER_PARAMS.movingAverageSec,
  referenceMinBlocks: DEFAULT_WORKER_PARAMS.minReferenceBlocks,
  referenceBandBps: DEFAULT_WORKER_PARAMS.bandBps,
};

export interface ScoutInput {
  readonly now: number;
  readonly tokens: readonly TokenView[];
  readonly workers: ReadonlyMap<bigint, WorkerView>;
  readonly transfers: readonly TransferView[];
  /** The swarm's recent entries: flags already recorded are not repeated. */
  readonly actions: readonly ActionView[];
  readonly params?: ScoutParams;
}

const severity = (ratio: bigint): "low" | "medium" | "high" => (ratio >= 3n ? "high" : ratio >= 2n ? "medium" : "low");

export function decideScout(input: ScoutInput): RecordIntent[] {
  const params = input.params ?? DEFAULT_SCOUT_PARAMS;
  const out: RecordIntent[] = [];
  const flagged = flaggedKeys(input.actions);
  const since = input.now - params.windowSec;
  // A spike is one event, however many swaps it spans: one volume flag per token and window.
  const flaggedLately = (token: TokenView, signal: Signal) =>
    input.actions.some(
      (a) =>
        a.tier === "scout" &&
        a.actionType === "flag" &&
        a.targetNftId === token.nftId &&
        a.payload?.signal === signal &&
        a.time >= since,
    );
  const flag = (
    token: TokenView,
    signal: Signal,
    reasonCode: string,
    key: string,
    payload: Record<string, unknown>,
  ) => {
    if (flagged.has(key) || out.some((i) => i.payload.key === key)) return;
    if (signal === "volume" && flaggedLately(token, signal)) return;
    out.push({
      kind: "record",
      targetNftId: token.nftId,
      actionType: "flag",
      reasonCode,
      payload: { signal, key, ...payload },
    });
  };
  const on = (signal: Signal) => params.signals.includes(signal);

  for (const token of input.tokens) {
    const recent = token.swaps.filter((s) => s.time >= since);
    if (on("spawn") && token.spawnedAt >= input.now - params.spawnMemorySec)
      flag(token, "spawn", "NEW_SPAWN", `spawn:${token.spawnTx}`, {
        severity: "low",
        evidence: { txHashes: [token.spawnTx], symbol: token.symbol, token: token.token, pool: token.pool },
      });
    if (on("price") && recent.length > 0) {
      // Measured from the last price flag on this token in the window, if any: a move already
      // flagged is not flagged again, a further move beyond the threshold is.
      const last = lastPriceFlag(input.actions, token.nftId, since);
      const swaps = last ? recent.filter((s) => s.block > last.block) : recent;
      const from = last ? last.price : spotPrice(recent[0]!.before);
      const to = spotPrice(token.reserves);
      const change = moveBps(from, to);
      const size = change < 0n ? -change : change;
      if (swaps.length > 0 && size >= params.priceMoveBps)
        flag(token, "price", "PRICE_MOVE", `price:${lastHash(swaps)}`, {
          severity: severity(size / params.priceMoveBps),
          evidence: {
            txHashes: lastHashes(swaps),
            swaps: swaps.length,
            fromPrice: from.toString(),
            toPrice: to.toString(),
            changeBps: Number(change),
            windowSec: params.windowSec,
          },
        });
    }
    if (on("volume") && recent.length > 0) {
      const volume = (swaps: readonly SwapView[]) =>
        swaps.reduce((sum, s) => sum + (s.isBuy ? s.amountIn : s.amountOut), 0n);
      const inWindow = volume(recent);
      const baseline = token.swaps.filter((s) => s.time >= input.now - params.baselineSec && s.time < since);
      const windows = BigInt(Math.max(1, Math.floor((params.baselineSec - params.windowSec) / params.windowSec)));
      const average = volume(baseline) / windows;
      if (average > 0n && inWindow >= average * params.volumeFactor)
        flag(token, "volume", "VOLUME_SPIKE", `volume:${lastHash(recent)}`, {
          severity: severity(inWindow / (average * params.volumeFactor)),
          evidence: {
            txHashes: lastHashes(recent),
            swaps: recent.length,
            volume: inWindow.toString(),
            averageVolume: average.toString(),
            windowSec: params.windowSec,
          },
        });
    }
    if (on("slippage")) {
      const worker = input.workers.get(token.workerId);
      if (worker)
        for (const s of recent) {
          if (s.sender.toLowerCase() !== worker.operator.toLowerCase()) continue;
          const impact = impactBps(s.before, s.isBuy, s.amountIn, s.amountOut);
          if (impact > BigInt(worker.config.slippageCapBps))
            flag(token, "slippage", "SLIPPAGE_BREACH", `slippage:${s.txHash}:${s.logIndex}`, {
              severity: "high",
              evidence: {
                txHashes: [s.txHash],
                workerId: worker.id.toString(),
                impactBps: Number(impact),
                slippageCapBps: worker.config.slippageCapBps,
              },
            });
        }
    }
  }
  if (on("reference")) for (const token of input.tokens) flagReference(token, input, params, flag);
  if (on("whale"))
    for (const t of input.transfers) {
      if (t.time < since) continue;
      const token = input.tokens.find((x) => x.token.toLowerCase() === t.token.toLowerCase());
      if (!token || token.totalSupply === 0n) continue;
      const shareBps = (t.value * BPS) / token.totalSupply;
      if (shareBps >= params.whaleBps)
        flag(token, "whale", "WHALE_MOVE", `whale:${t.txHash}:${t.logIndex}`, {
          severity: severity(shareBps / params.whaleBps),
          evidence: {
            txHashes: [t.txHash],
            from: t.from,
            to: t.to,
            value: t.value.toString(),
            shareBps: Number(shareBps),
          },
        });
    }
  return out;
}

/**
 * A worker's reference (the pool's time-weighted average, as the worker computes it) that moved
 * beyond the worker's cap while the price went back beyond the band: the worker would trade
 * toward it, following the move, and waits until the move is flagged and the queen has answered.
 * A move an earlier flag in the window covers (same direction, grown by no more than the cap) is
 * not flagged again.
 */
function flagReference(
  token: TokenView,
  input: ScoutInput,
  params: ScoutParams,
  flag: (token: TokenView, signal: Signal, reasonCode: string, key: string, payload: Record<string, unknown>) => void,
): void {
  const worker = input.workers.get(token.workerId);
  if (worker?.status !== "active" || worker.config.slippageCapBps <= 0) return;
  const windowSec = params.referenceWindowSec;
  const reference = poolReference(token.prices, input.now, windowSec);
  if (reference === undefined || reference.blocks < params.referenceMinBlocks) return;
  const price = spotPrice(token.reserves);
  const deviation = moveBps(reference.price, price);
  const band = params.referenceBandBps;
  if (deviation <= band && deviation >= -band) return;
  // The worker's limit: its cap, or the band if narrower.
  const cap = BigInt(worker.config.slippageCapBps);
  const limit = cap < band ? cap : band;
  if (!followsMove(reference, deviation < 0n, limit)) return;
  const since = input.now - windowSec;
  const scoutFlags = input.actions.filter((a) => a.tier === "scout" && a.actionType === "flag");
  if (coveringFlag(scoutFlags, token.nftId, reference, limit, since)) return;
  const swaps = token.swaps.filter((s) => s.time >= since);
  const change = reference.moveBps < 0n ? -reference.moveBps : reference.moveBps;
  flag(
    token,
    "reference",
    "REFERENCE_MOVE",
    `reference:${swaps.length > 0 ? lastHash(swaps) : token.pool}:${reference.price}`,
    {
      severity: severity(change / limit),
      evidence: {
        txHashes: lastHashes(swaps),
        workerId: worker.id.toString(),
        reference: reference.price.toString(),
        anchor: reference.anchor.toString(),
        price: price.toString(),
        changeBps: Number(reference.moveBps),
        deviationBps: Number(deviation),
        bandBps: Number(band),
        slippageCapBps: worker.config.slippageCapBps,
        blocks: reference.blocks,
        windowSec,
      },
    },
  );
}

/** The newest price flag on a token since `since`: the block it was recorded in and the price it named. */
function lastPriceFlag(actions: readonly ActionView[], nftId: bigint, since: number) {
  for (let i = actions.length - 1; i >= 0; i--) {
    const a = actions[i]!;
    if (a.time < since) break;
    if (a.tier !== "scout" || a.actionType !== "flag" || a.targetNftId !== nftId || a.payload?.signal !== "price")
      continue;
    const to = (a.payload.evidence as { toPrice?: unknown } | undefined)?.toPrice;
    if (typeof to === "string" && /^\d+$/.test(to)) return { block: a.block, price: BigInt(to) };
  }
  return undefined;
}

/** The evidence's last transactions: payloads are capped at 4,096 bytes on-chain. */
const lastHashes = (swaps: readonly SwapView[]) => swaps.slice(-MAX_HASHES).map((s) => s.txHash);
const MAX_HASHES = 10;

const lastHash = (swaps: readonly SwapView[]) => {
  const last = swaps[swaps.length - 1]!;
  return `${last.txHash}:${last.logIndex}`;
};

/** The keys of every scout's flags (payload.key): evidence the swarm has flagged once is not flagged again. */
export function flaggedKeys(actions: readonly ActionView[]): Set<string> {
  const keys = new Set<string>();
  for (const a of actions)
    if (a.tier === "scout" && a.actionType === "flag" && typeof a.payload?.key === "string") keys.add(a.payload.key);
  return keys;
}

/** Splits the signals among `count` scouts, so two scouts never race to flag the same evidence. */
export function signalsOfScout(
  index: number,
  count: number,
  signals: readonly Signal[] = DEFAULT_SCOUT_PARAMS.signals,
): Signal[] {
  return signals.filter((_, i) => i % count === index % count);
}
