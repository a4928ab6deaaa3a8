/**
 * What the chain says, read back from its events and view functions (never from the indexer),
 * so the end-to-end tests compute every expected value instead of hard-coding it.
 */
import { type Address, createPublicClient, erc20Abi, type Hex, http, type PublicClient, zeroAddress } from "viem";
import {
  ActionLogAbi,
  AgentPoolAbi,
  AgentRegistryAbi,
  AgentSpawnerAbi,
  AgentTokenAbi,
  BoosterAbi,
  WorkerVotingAbi,
} from "../../indexer/abis.ts";
import type { Deployment } from "../../lib/deployments.ts";
import { decodePayload } from "../../indexer/payload.ts";

export const DAY = 86_400;
const TIERS = ["none", "worker", "scout", "queen"] as const;
const STATUSES = ["active", "idle", "suspended"] as const;
const MEV = ["off", "private_relay", "batch_auction"] as const;
const SIDES = ["STABLE", "WRAPPED_NATIVE"] as const;
// WorkerVoting.ProposalState order; Pending and Expired were appended (the voting delay, the execution window).
const PROPOSAL_STATES = ["active", "defeated", "succeeded", "executed", "superseded", "pending", "expired"] as const;

export const lc = (a: string) => a.toLowerCase() as Address;

export interface ModelSwap {
  pool: Address;
  token: Address;
  isBuy: boolean;
  amountIn: bigint;
  amountOut: bigint;
  pairVolume: bigint;
  sender: Address;
  recipient: Address;
  blockNumber: number;
  logIndex: number;
  timestamp: number;
  txHash: Hex;
}

export interface ModelAction {
  entryId: number;
  targetTokenId: number;
  sourceTier: (typeof TIERS)[number];
  sourceAgentId: number;
  actionType: string;
  payload: Record<string, unknown> | null;
  reasonCode: string;
  isOverride: boolean;
  blockNumber: number;
  timestamp: number;
  txHash: Hex;
}

export interface ModelWorker {
  id: number;
  agentNftId: number;
  token: Address;
  status: (typeof STATUSES)[number];
  /** An override's suspension's end (the registry's workerSuspension); null without one. */
  suspendedUntil: number | null;
  deployedAt: number;
  lastActiveAt: number;
  slippageCapBps: number;
  mevProtection: (typeof MEV)[number];
  signalSubscriptions: string[];
}

export interface ModelToken {
  address: Address;
  name: string;
  symbol: string;
  totalSupply: bigint;
  owner: Address;
  pool: Address;
  side: (typeof SIDES)[number];
  pairAsset: Address;
  pairDecimals: number;
  feeTier: number;
  nftId: number;
  workerId: number;
  spawnedAt: number;
  spawnBlock: number;
  metadata: { description: string; logoUri: string; website: string };
  holders: number;
  /** Every account with a balance (the pool and the burn address included), base units. */
  balances: Map<Address, bigint>;
  reserves: { token: bigint; pair: bigint; virtualPair: bigint };
  /** The real pair reserve (the virtual one was never deposited), pair-asset base units. */
  tvl: bigint;
  swaps: ModelSwap[];
  lastTradeAt: number | null;
  /** Boost state per the Booster's own view at the chain's current time. */
  boost: { everBoosted: boolean; active: boolean; tier: number | null; expiresAt: number | null };
}

export interface ModelProposal {
  id: bigint;
  workerId: number;
  state: (typeof PROPOSAL_STATES)[number];
  endTime: number;
}

export interface ChainModel {
  client: PublicClient;
  headBlock: number;
  headTimestamp: number;
  /** The timestamp of the newest block holding an ecosystem event (the API's chain_head). */
  lastEventTimestamp: number;
  tokens: ModelToken[];
  workers: ModelWorker[];
  actions: ModelAction[];
  queens: number[];
  scouts: number[];
  proposals: ModelProposal[];
}

export function publicClient(url: string): PublicClient {
  return createPublicClient({ transport: http(url) }) as PublicClient;
}

/** Reads every ecosystem event and the relevant view state of the chain at `url`. */
export async function readChainModel(url: string, contracts: Deployment["contracts"]): Promise<ChainModel> {
  const client = publicClient(url);
  const range = { fromBlock: 0n, toBlock: "latest" as const };
  const head = await client.getBlock();
  const timestamps = new Map<bigint, number>();
  const timeOf = async (block: bigint) => {
    if (!timestamps.has(block))
      timestamps.set(block, Number((await client.getBlock({ blockNumber: block })).timestamp));
    return timestamps.get(block)!;
  };
  let lastEventBlock = 0n;
  const seen = (block: bigint) => {
    if (block > lastEventBlock) lastEventBlock = block;
  };

  const spawned = await client.getContractEvents({
    address: contracts.AgentSpawner,
    abi: AgentSpawnerAbi,
    eventName: "AgentSpawned",
    ...range,
  });
  const registryEvents = await client.getContractEvents({
    address: contracts.AgentRegistry,
    abi: AgentRegistryAbi,
    ...range,
  });
  const actionEvents = await client.getContractEvents({
    address: contracts.ActionLog,
    abi: ActionLogAbi,
    eventName: "ActionRecorded",
    ...range,
  });
  const votingEvents = await client.getContractEvents({
    address: contracts.WorkerVoting,
    abi: WorkerVotingAbi,
    ...range,
  });
  const boostEvents = await client.getContractEvents({
    address: contracts.Booster,
    abi: BoosterAbi,
    eventName: "Boosted",
    ...range,
  });
  for (const e of [...spawned, ...registryEvents, ...actionEvents, ...votingEvents, ...boostEvents])
    seen(e.blockNumber);

  const tokenAddresses = spawned.map((e) => e.args.token!);
  const poolAddresses = spawned.map((e) => e.args.pool!);
  const transfers = tokenAddresses.length
    ? await client.getContractEvents({ address: tokenAddresses, abi: AgentTokenAbi, eventName: "Transfer", ...range })
    : [];
  const poolEvents = poolAddresses.length
    ? await client.getContractEvents({ address: poolAddresses, abi: AgentPoolAbi, ...range })
    : [];
  for (const e of [...transfers, ...poolEvents]) seen(e.blockNumber);

  const swaps: ModelSwap[] = [];
  for (const e of poolEvents) {
    if (e.eventName !== "Swap") continue;
    const i = poolAddresses.findIndex((p) => lc(p) === lc(e.address));
    const { isBuy, amountIn, amountOut, sender, recipient } = e.args as {
      isBuy: boolean;
      amountIn: bigint;
      amountOut: bigint;
      sender: Address;
      recipient: Address;
    };
    swaps.push({
      pool: lc(e.address),
      token: lc(tokenAddresses[i]),
      isBuy,
      amountIn,
      amountOut,
      pairVolume: isBuy ? amountIn : amountOut,
      sender: lc(sender),
      recipient: lc(recipient),
      blockNumber: Number(e.blockNumber),
      logIndex: e.logIndex,
      timestamp: await timeOf(e.blockNumber),
      txHash: e.transactionHash,
    });
  }

  const decimalsOf = new Map<string, number>();
  const tokens: ModelToken[] = [];
  for (const e of spawned) {
    const a = e.args;
    const token = lc(a.token!);
    const pairAsset = lc(a.pairAsset!);
    if (!decimalsOf.has(pairAsset)) {
      decimalsOf.set(
        pairAsset,
        await client.readContract({ address: pairAsset, abi: erc20Abi, functionName: "decimals" }),
      );
    }
    const balances = new Map<string, bigint>();
    for (const t of transfers) {
      if (lc(t.address) !== token) continue;
      const { from, to, value } = t.args as { from: Address; to: Address; value: bigint };
      balances.set(lc(from), (balances.get(lc(from)) ?? 0n) - value);
      balances.set(lc(to), (balances.get(lc(to)) ?? 0n) + value);
    }
    const allBalances = new Map([...balances].filter(([account, b]) => b > 0n && account !== zeroAddress)) as Map<
      Address,
      bigint
    >;
    // Not holders: the zero address, the burn address and the token's own pool.
    for (const nonHolder of [
      "0x0000000000000000000000000000000000000000",
      "0x000000000000000000000000000000000000dead",
      lc(a.pool!),
    ]) {
      balances.delete(nonHolder);
    }
    const [reserveToken, reservePair, virtualPair] = await client.readContract({
      address: a.pool!,
      abi: AgentPoolAbi,
      functionName: "getReserves",
    });
    const [active, tier, expiresAt] = await client.readContract({
      address: contracts.Booster,
      abi: BoosterAbi,
      functionName: "boostOf",
      args: [a.nftId!],
    });
    const everBoosted = boostEvents.some((b) => b.args.agentNftId === a.nftId);
    const registered = registryEvents.find(
      (r) => r.eventName === "AgentTokenRegistered" && (r.args as { nftId: bigint }).nftId === a.nftId,
    );
    const metadata = (registered?.args as { metadata: ModelToken["metadata"] } | undefined)?.metadata ?? a.metadata!;
    const tokenSwaps = swaps.filter((s) => s.token === token);
    tokens.push({
      address: token,
      name: a.name!,
      symbol: a.symbol!,
      totalSupply: a.totalSupply!,
      owner: lc(a.owner!),
      pool: lc(a.pool!),
      side: SIDES[a.poolSide!],
      pairAsset,
      pairDecimals: decimalsOf.get(pairAsset)!,
      feeTier: a.feeTier!,
      nftId: Number(a.nftId!),
      workerId: Number(a.workerId!),
      spawnedAt: await timeOf(e.blockNumber),
      spawnBlock: Number(e.blockNumber),
      metadata: { description: metadata.description, logoUri: metadata.logoUri, website: metadata.website },
      holders: [...balances.values()].filter((b) => b > 0n).length,
      balances: allBalances,
      reserves: { token: reserveToken, pair: reservePair, virtualPair },
      tvl: reservePair,
      swaps: tokenSwaps,
      lastTradeAt: tokenSwaps.length ? Math.max(...tokenSwaps.map((s) => s.timestamp)) : null,
      boost: {
        everBoosted,
        active,
        tier: everBoosted ? tier : null,
        expiresAt: everBoosted ? Number(expiresAt) : null,
      },
    });
  }

  const workers: ModelWorker[] = [];
  for (const e of registryEvents) {
    if (e.eventName !== "WorkerCreated") continue;
    const workerId = (e.args as { workerId: bigint }).workerId;
    const w = await client.readContract({
      address: contracts.AgentRegistry,
      abi: AgentRegistryAbi,
      functionName: "getWorker",
      args: [workerId],
    });
    const suspension = await client.readContract({
      address: contracts.AgentRegistry,
      abi: AgentRegistryAbi,
      functionName: "workerSuspension",
      args: [workerId],
    });
    const overridden = STATUSES[w.status] === "suspended" && suspension.byTier !== 0; // Tier.None: a manager's
    workers.push({
      id: Number(workerId),
      agentNftId: Number(w.agentNftId),
      token: lc(w.token),
      status: STATUSES[w.status],
      suspendedUntil: overridden ? Number(suspension.until) : null,
      deployedAt: Number(w.deployedAt),
      lastActiveAt: Number(w.lastActiveAt),
      slippageCapBps: w.config.slippageCapBps,
      mevProtection: MEV[w.config.mevProtection],
      signalSubscriptions: [...w.config.signalSubscriptions],
    });
  }

  const actions: ModelAction[] = [];
  for (const e of actionEvents) {
    const a = e.args;
    actions.push({
      entryId: Number(a.entryId!),
      targetTokenId: Number(a.targetTokenId!),
      sourceTier: TIERS[a.sourceTier!],
      sourceAgentId: Number(a.sourceAgentId!),
      actionType: a.actionType!,
      payload: decodePayload(a.payload!),
      reasonCode: a.reasonCode!,
      isOverride: a.isOverride!,
      blockNumber: Number(e.blockNumber),
      timestamp: await timeOf(e.blockNumber),
      txHash: e.transactionHash,
    });
  }

  const queens: number[] = [];
  const scouts: number[] = [];
  for (const e of registryEvents) {
    if (e.eventName !== "AgentRegistered") continue;
    const { nftId, tier } = e.args as { nftId: bigint; tier: number };
    (TIERS[tier] === "queen" ? queens : scouts).push(Number(nftId));
  }

  const proposals: ModelProposal[] = [];
  for (const e of votingEvents) {
    if (e.eventName !== "ProposalCreated") continue;
    const { proposalId, workerId, endTime } = e.args as { proposalId: bigint; workerId: bigint; endTime: bigint };
    const state = await client.readContract({
      address: contracts.WorkerVoting,
      abi: WorkerVotingAbi,
      functionName: "state",
      args: [proposalId],
    });
    proposals.push({
      id: proposalId,
      workerId: Number(workerId),
      state: PROPOSAL_STATES[state],
      endTime: Number(endTime),
    });
  }

  return {
    client,
    headBlock: Number(head.number),
    headTimestamp: Number(head.timestamp),
    lastEventTimestamp: await timeOf(lastEventBlock),
    tokens,
    workers,
    actions,
    queens,
    scouts,
    proposals,
  };
}

/** The API's "now": the later of the wall clock and the newest indexed block's timestamp. */
export function apiNow(model: ChainModel): number {
  return Math.max(Math.floor(Date.now() / 1000), model.lastEventTimestamp);
}

/** Pair-asset volume of a token's swaps in the 24 hours up to `now`. */
export function volume24h(token: ModelToken, now: number): bigint {
  return token.swaps
    .filter((s) => s.timestamp > now - DAY && s.timestamp <= now)
    .reduce((sum, s) => sum + s.pairVolume, 0n);
}

/**
 * Parses a decimal string of whole units exactly into base units with `decimals` decimals,
 * refusing anything that is not a plain non-negative decimal or carries more precision.
 */
export function toBaseUnits(value: unknown, decimals: number): bigint {
  if (typeof value !== "string" || !/^\d+(\.\d+)?$/.test(value))
    throw new Error(`not a decimal string: ${JSON.stringify(value)}`);
  const [whole, fraction = ""] = value.split(".");
  const trimmed = fraction.replace(/0+$/, "");
  if (trimmed.length > decimals) throw new Error(`${value} has more than ${decimals} fractional digits`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(trimmed.padEnd(decimals, "0") || "0");
}

/** WRAPPED_NATIVE_PRICE's documented default: stable base units (6 decimals) per whole wrapped native token. */
export const REFERENCE_PRICE = 2_000n * 10n ** 6n;

/** A pair-asset amount as stable base units x 10^18, exact: the API's cross-asset ranking key. */
export const valueKey = (amount: bigint, side: string) => amount * (side === "STABLE" ? 10n ** 18n : REFERENCE_PRICE);

/** A pair-asset amount valued in stable base units, truncated (tvlStable, volume24hStable). */
export const stableValue = (amount: bigint, side: string) => valueKey(amount, side) / 10n ** 18n;

// ---------------------------------------------------------------------------------------------
// The API's view of a chain model (api/README.md), shared by the conformance, reorg and restart tests.

export const workerOfToken = (model: ChainModel, t: ModelToken) => model.workers.find((w) => w.id === t.workerId)!;
export const actionsOnToken = (model: ChainModel, t: ModelToken) =>
  model.actions.filter((a) => a.targetTokenId === t.nftId);

/** One /api/agents/action-logs item. */
export function expectedActionLogEntry(a: ModelAction) {
  return {
    entryId: a.entryId,
    sourceAgentId: `${a.sourceTier}:${a.sourceAgentId}`,
    sourceTier: a.sourceTier,
    targetTokenId: a.targetTokenId,
    actionType: a.actionType,
    actionPayload: a.payload,
    reasonCode: a.reasonCode,
    blockNumber: a.blockNumber,
    timestamp: a.timestamp,
    txHash: a.txHash,
  };
}

/** The whole action log as the API lists it: newest (highest entryId) first. */
export const expectedActionLog = (model: ChainModel) =>
  [...model.actions].sort((a, b) => b.entryId - a.entryId).map(expectedActionLogEntry);

/** /api/agents/overview. */
export function expectedOverview(model: ChainModel) {
  const now = apiNow(model);
  return {
    hive: {
      totalTokens: model.tokens.length,
      totalWorkers: model.workers.length,
      totalQueens: model.queens.length,
      totalScouts: model.scouts.length,
    },
    swarm: {
      activeWorkers: model.workers.filter((w) => w.status === "active").length,
      lastActivityAt: model.actions.length ? Math.max(...model.actions.map((a) => a.timestamp)) : null,
    },
    ecosystem: {
      totalAgentTokensSpawned: model.tokens.length,
      tokensSpawnedLast24h: model.tokens.filter((t) => t.spawnedAt > now - DAY).length,
      tokensSpawnedLast7d: model.tokens.filter((t) => t.spawnedAt > now - 7 * DAY).length,
      totalActions24h: model.actions.filter((a) => a.timestamp > now - DAY).length,
      totalOverrides24h: model.actions.filter((a) => a.isOverride && a.timestamp > now - DAY).length,
    },
  };
}

/** One /api/launchpad/tokens item, amounts in base units (compare with normalizeTokenItems). */
export function expectedTokenItem(model: ChainModel, t: ModelToken) {
  return {
    address: t.address,
    symbol: t.symbol,
    name: t.name,
    spawnedAt: t.spawnedAt,
    tvl: t.tvl,
    volume24h: volume24h(t, apiNow(model)),
    tvlStable: stableValue(t.tvl, t.side),
    volume24hStable: stableValue(volume24h(t, apiNow(model)), t.side),
    holders: t.holders,
    workerStatus: workerOfToken(model, t).status,
    boosted: t.boost.active,
  };
}

/** /api/launchpad/tokens items with their decimal amounts parsed into base units. */
export function normalizeTokenItems(model: ChainModel, items: any[]) {
  return items.map((item) => {
    const t = model.tokens.find((x) => x.address === item.address);
    if (!t) throw new Error(`the API lists a token the chain does not have: ${JSON.stringify(item)}`);
    return {
      ...item,
      tvl: toBaseUnits(item.tvl, t.pairDecimals),
      volume24h: toBaseUnits(item.volume24h, t.pairDecimals),
      tvlStable: toBaseUnits(item.tvlStable, 6),
      volume24hStable: toBaseUnits(item.volume24hStable, 6),
    };
  });
}

/** Every token, newest spawn first (the API's default order). */
export const tokensNewestFirst = (model: ChainModel) => [...model.tokens].sort((a, b) => b.spawnedAt - a.spawnedAt);

// ---------------------------------------------------------------------------------------------
// A pool's trades, candles and holders (/api/launchpad/tokens/:id/trades, /candles, /holders),
// amounts in base units (compare with normalizeTrades, normalizeCandles, normalizeHolders).

/** A price as the API writes it: pair asset per whole token, 18 fractional digits, truncated. */
export function priceText(pairAmount: bigint, tokenAmount: bigint, pairDecimals: number): string {
  const scaled = (pairAmount * 10n ** BigInt(36 - pairDecimals)) / tokenAmount;
  const digits = scaled.toString().padStart(19, "0");
  return `${digits.slice(0, -18)}.${digits.slice(-18)}`;
}

const tokenSide = (s: ModelSwap) => (s.isBuy ? s.amountOut : s.amountIn);

/** A token's swaps, newest first (block, then log index), as trade items. */
export function expectedTrades(t: ModelToken) {
  return [...t.swaps]
    .sort((a, b) => b.blockNumber - a.blockNumber || b.logIndex - a.logIndex)
    .map((s) => ({
      txHash: s.txHash,
      logIndex: s.logIndex,
      blockNumber: s.blockNumber,
      timestamp: s.timestamp,
      trader: s.sender,
      side: s.isBuy ? "buy" : "sell",
      tokenAmount: tokenSide(s),
      pairAmount: s.pairVolume,
      price: priceText(s.pairVolume, tokenSide(s), t.pairDecimals),
    }));
}

export const normalizeTrades = (t: ModelToken, items: any[]) =>
  items.map((item) => ({
    ...item,
    tokenAmount: toBaseUnits(item.tokenAmount, 18),
    pairAmount: toBaseUnits(item.pairAmount, t.pairDecimals),
  }));

/** Bucket starts in Unix seconds of the intervals the tests read; months are UTC calendar months. */
const BUCKET = {
  minute: (ts: number) => ts - (ts % 60),
  minutes15: (ts: number) => ts - (ts % 900),
  hour: (ts: number) => ts - (ts % 3_600),
  day: (ts: number) => ts - (ts % 86_400),
  month: (ts: number) => {
    const d = new Date(ts * 1000);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
  },
} as const;
export type ModelInterval = keyof typeof BUCKET;

/** A token's candles of `interval` whose bucket overlaps [start, end], oldest first. */
export function expectedCandles(t: ModelToken, interval: ModelInterval, start: number, end: number) {
  const byBucket = new Map<number, ModelSwap[]>();
  const chainOrder = [...t.swaps].sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
  for (const s of chainOrder) {
    const bucket = BUCKET[interval](s.timestamp);
    if (bucket < BUCKET[interval](start) || bucket > end) continue;
    byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), s]);
  }
  return [...byBucket.entries()]
    .sort(([a], [b]) => a - b)
    .map(([bucket, swaps]) => {
      // Truncation keeps order, so the extremes of the texts are the texts of the extremes.
      const prices = swaps.map((s) => priceText(s.pairVolume, tokenSide(s), t.pairDecimals));
      const sorted = [...prices].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
      return {
        date: new Date(bucket * 1000).toISOString().slice(0, 19),
        time: bucket,
        open: prices[0],
        max: sorted.at(-1),
        min: sorted[0],
        close: prices.at(-1),
        volume: swaps.reduce((sum, s) => sum + s.pairVolume, 0n),
        volumeBase: swaps.reduce((sum, s) => sum + tokenSide(s), 0n),
      };
    });
}

export const normalizeCandles = (t: ModelToken, items: any[]) =>
  items.map((item) => ({
    ...item,
    volume: toBaseUnits(item.volume, t.pairDecimals),
    volumeBase: toBaseUnits(item.volumeBase, 18),
  }));

const BURN = "0x000000000000000000000000000000000000dead";

/** Every balance of a token, largest first, then by address, with the pool, creator and burn address labelled. */
export function expectedHolders(t: ModelToken) {
  return [...t.balances]
    .sort(([a, x], [b, y]) => (x > y ? -1 : x < y ? 1 : a < b ? -1 : 1))
    .map(([address, balance]) => ({
      address,
      balance,
      share: (balance * 10n ** 18n) / t.totalSupply,
      label: address === t.pool ? "pool" : address === t.owner ? "creator" : address === BURN ? "burn" : null,
    }));
}

export const normalizeHolders = (items: any[]) =>
  items.map((item) => ({
    ...item,
    balance: toBaseUnits(item.balance, 18),
    share: toBaseUnits(item.share, 18),
  }));
