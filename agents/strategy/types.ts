import type { Address, Hex } from "viem";
import type { PoolReserves } from "../pool/pool-math.ts";

/**
 * What agents see of the ecosystem, built from the chain's logs by the runtime's observer and
 * handed to the pure decision functions. Times are chain seconds; amounts are base units.
 */

export type WorkerStatus = "active" | "idle" | "suspended";
export type MevProtection = "off" | "private_relay" | "batch_auction";
export type Tier = "worker" | "scout" | "queen";

export interface WorkerConfig {
  readonly slippageCapBps: number;
  readonly mevProtection: MevProtection;
  readonly signalSubscriptions: readonly string[];
}

export interface WorkerView {
  readonly id: bigint;
  readonly agentNftId: bigint;
  readonly operator: Address;
  readonly status: WorkerStatus;
  readonly config: WorkerConfig;
}

/** The pool's price at the end of a block that swapped in it (one point per block). */
export interface PricePoint {
  readonly block: bigint;
  readonly time: number;
  /** Pair per token x PRICE_SCALE (pool/pool-math.ts). */
  readonly price: bigint;
}

export interface SwapView {
  readonly txHash: Hex;
  readonly logIndex: number;
  readonly block: bigint;
  readonly time: number;
  readonly sender: Address;
  readonly isBuy: boolean;
  readonly amountIn: bigint;
  readonly amountOut: bigint;
  /** The pool just before this swap. */
  readonly before: PoolReserves;
}

export interface TokenView {
  readonly nftId: bigint;
  readonly workerId: bigint;
  readonly symbol: string;
  readonly token: Address;
  readonly pool: Address;
  readonly pairAsset: Address;
  readonly totalSupply: bigint;
  readonly reserves: PoolReserves;
  readonly spawnedAt: number;
  readonly spawnTx: Hex;
  /** Oldest first, one per block (its last price), bounded by the observer's window; the launch
   * price first, and the last price before the window is kept (a time-weighted average starts from it). */
  readonly prices: readonly PricePoint[];
  /** Oldest first, within the observer's window. */
  readonly swaps: readonly SwapView[];
}

/** An agent-token transfer large enough to keep (the observer's floor). */
export interface TransferView {
  readonly txHash: Hex;
  readonly logIndex: number;
  readonly time: number;
  readonly token: Address;
  readonly from: Address;
  readonly to: Address;
  readonly value: bigint;
}

export interface ActionView {
  readonly entryId: bigint;
  readonly targetNftId: bigint;
  readonly tier: Tier;
  readonly sourceAgentId: bigint;
  readonly operator: Address;
  readonly actionType: string;
  /** The payload parsed as JSON; null when it is not JSON. */
  readonly payload: Record<string, unknown> | null;
  readonly reasonCode: string;
  readonly isOverride: boolean;
  readonly time: number;
  readonly block: bigint;
  readonly txHash: Hex;
}

/** A swap an agent intends: the adapter sends it with exactly this guard. */
export interface TradeIntent {
  readonly kind: "trade";
  readonly targetNftId: bigint;
  readonly actionType: "trade" | "rebalance";
  readonly reasonCode: string;
  readonly isBuy: boolean;
  readonly amountIn: bigint;
  readonly minAmountOut: bigint;
  /** Why, for the action's payload (JSON-safe: amounts as decimal strings). */
  readonly why: Record<string, string | number | boolean>;
}

/** An action an agent records without trading (flag, directive, override). */
export interface RecordIntent {
  readonly kind: "record";
  readonly targetNftId: bigint;
  readonly actionType: "flag" | "directive" | "override";
  readonly reasonCode: string;
  readonly payload: Record<string, unknown>;
}

export type Intent = TradeIntent | RecordIntent;
