import type { Address, Hex, PublicClient } from "viem";
import { getAddress } from "viem";
import { ActionLogAbi, AgentPoolAbi, AgentRegistryAbi, AgentSpawnerAbi, AgentTokenAbi } from "../../indexer/abis.ts";
import { MEV_PROTECTIONS, nameOf, TIERS, WORKER_STATUSES } from "../../indexer/enums.ts";
import { decodePayload } from "../../indexer/payload.ts";
import { type PoolReserves, spotPrice } from "../pool/index.ts";
import {
  type ActionView,
  type CapChange,
  type PricePoint,
  pushPrice,
  type SuspensionView,
  type SwapView,
  type Tier,
  type TokenView,
  type TransferView,
  type WorkerView,
} from "../strategy/index.ts";

/**
 * The agents' picture of the ecosystem, kept up to date from the chain's logs: one observer for
 * the whole runtime, read once per tick and shared by every agent. It starts at the deployment's
 * first block (every spawn matters) and keeps only a window of history (swaps, prices, transfers,
 * actions) so memory stays bounded however long it runs.
 */

export interface WorldOptions {
  readonly client: PublicClient;
  readonly contracts: {
    readonly AgentSpawner: Address;
    readonly AgentRegistry: Address;
    readonly ActionLog: Address;
  };
  readonly startBlock: bigint;
  /** History kept, in chain seconds. */
  readonly historySec?: number;
  /** Most blocks asked for in one getLogs. */
  readonly maxBlockRange?: bigint;
  /** Transfers below this share of supply (bps) are not kept. */
  readonly transferFloorBps?: bigint;
}

interface MutableToken {
  nftId: bigint;
  workerId: bigint;
  symbol: string;
  token: Address;
  pool: Address;
  pairAsset: Address;
  totalSupply: bigint;
  reserves: PoolReserves;
  spawnedAt: number;
  spawnTx: Hex;
  prices: PricePoint[];
  swaps: SwapView[];
}

export class World {
  private readonly options: WorldOptions;
  private next: bigint;
  private readonly tokens = new Map<Address, MutableToken>();
  private readonly byPool = new Map<Address, MutableToken>();
  /** Workers as the registry last answered; an override's cool-off may have ended since (workerMap). */
  private readonly workers = new Map<bigint, WorkerView>();
  private readonly suspensions = new Map<bigint, SuspensionView>();
  /** Scouts the queen suspended, by NFT id: until when (chain seconds). */
  private readonly suspendedAgents = new Map<bigint, number>();
  /** Each worker's last change of slippage cap: a trade decided before it was held to the old cap. */
  private readonly capChanges = new Map<bigint, CapChange>();
  private transfers: TransferView[] = [];
  private actions: ActionView[] = [];
  private readonly blockTimes = new Map<bigint, number>();
  private head = { block: 0n, time: 0, seenAt: 0 };

  constructor(options: WorldOptions) {
    this.options = options;
    this.next = options.startBlock;
  }

  /** Chain time now: the head block's timestamp plus the wall time since it was seen. */
  now(): number {
    return this.head.time + Math.floor((Date.now() - this.head.seenAt) / 1000);
  }

  tokenList(): TokenView[] {
    return [...this.tokens.values()];
  }

  /**
   * Every worker with its status as of now: an override's suspension ends at its cool-off with
   * no event (the registry reads it as over from then), so that end is applied here too.
   */
  workerMap(): ReadonlyMap<bigint, WorkerView> {
    const now = this.now();
    let ended: Map<bigint, WorkerView> | undefined;
    for (const [id, s] of this.suspensions) {
      const w = this.workers.get(id);
      if (w?.status !== "suspended" || s.until > now) continue;
      ended ??= new Map(this.workers);
      ended.set(id, { ...w, status: s.resumeTo });
    }
    return ended ?? this.workers;
  }

  /** Override suspensions of workers, by worker id, as the registry holds them. */
  suspensionMap(): ReadonlyMap<bigint, SuspensionView> {
    return this.suspensions;
  }

  /** The last change of each worker's slippage cap, by worker id. */
  capChangeMap(): ReadonlyMap<bigint, CapChange> {
    return this.capChanges;
  }

  /** True while the queen's suspension of this scout (agent NFT id) is in force. */
  isAgentSuspended(nftId: bigint): boolean {
    return (this.suspendedAgents.get(nftId) ?? 0) > this.now();
  }

  transferList(): readonly TransferView[] {
    return this.transfers;
  }

  actionList(): readonly ActionView[] {
    return this.actions;
  }

  headBlock(): bigint {
    return this.head.block;
  }

  /** Reads every log since the last call, up to the chain's head. */
  async refresh(): Promise<void> {
    const { client } = this.options;
    const latest = await client.getBlock({ blockTag: "latest" });
    if (latest.number > this.head.block || this.head.seenAt === 0)
      this.head = { block: latest.number, time: Number(latest.timestamp), seenAt: Date.now() };
    const range = this.options.maxBlockRange ?? 2_000n;
    while (this.next <= latest.number) {
      const to = this.next + range - 1n < latest.number ? this.next + range - 1n : latest.number;
      await this.readRange(this.next, to);
      this.next = to + 1n;
    }
    this.prune();
  }

  private async readRange(from: bigint, to: bigint): Promise<void> {
    const { client, contracts } = this.options;
    // Spawns first: the swaps and transfers of a new token's pool in the same range need it.
    const spawns = await client.getContractEvents({
      address: contracts.AgentSpawner,
      abi: AgentSpawnerAbi,
      eventName: "AgentSpawned",
      fromBlock: from,
      toBlock: to,
    });
    for (const log of spawns) await this.addToken(log.args as SpawnArgs, log.transactionHash!, log.blockNumber!);
    const pools = [...this.byPool.keys()];
    const tokens = [...this.tokens.keys()];
    const [poolLogs, transfers, actions, workerLogs] = await Promise.all([
      pools.length === 0
        ? []
        : client.getContractEvents({ address: pools, abi: AgentPoolAbi, fromBlock: from, toBlock: to }),
      tokens.length === 0
        ? []
        : client.getContractEvents({
            address: tokens,
            abi: AgentTokenAbi,
            eventName: "Transfer",
            fromBlock: from,
            toBlock: to,
          }),
      client.getContractEvents({
        address: contracts.ActionLog,
        abi: ActionLogAbi,
        eventName: "ActionRecorded",
        fromBlock: from,
        toBlock: to,
      }),
      client.getContractEvents({
        address: contracts.AgentRegistry,
        abi: AgentRegistryAbi,
        fromBlock: from,
        toBlock: to,
      }),
    ]);
    const blocks = new Set<bigint>([...poolLogs, ...transfers, ...actions].map((l) => l.blockNumber!));
    await this.loadBlockTimes([...blocks]);
    const time = (block: bigint) => this.blockTimes.get(block) ?? this.head.time;

    // Sync follows each Swap in the same transaction: the swap is priced against the reserves before it.
    for (const log of poolLogs) {
      const t = this.byPool.get(getAddress(log.address));
      if (!t) continue;
      if (log.eventName === "Swap") {
        const { sender, isBuy, amountIn, amountOut } = log.args as {
          sender: Address;
          isBuy: boolean;
          amountIn: bigint;
          amountOut: bigint;
        };
        t.swaps.push({
          txHash: log.transactionHash!,
          logIndex: log.logIndex!,
          block: log.blockNumber!,
          time: time(log.blockNumber!),
          sender: getAddress(sender),
          isBuy,
          amountIn,
          amountOut,
          before: t.reserves,
        });
      } else if (log.eventName === "Sync") {
        const { reserveToken, reservePair, virtualPair } = log.args as {
          reserveToken: bigint;
          reservePair: bigint;
          virtualPair: bigint;
        };
        t.reserves = { ...t.reserves, reserveToken, reservePair, virtualPair };
        // One point per block, its last price: the others stood for no time (reference.ts).
        pushPrice(t.prices, { block: log.blockNumber!, time: time(log.blockNumber!), price: spotPrice(t.reserves) });
      }
    }
    const floor = this.options.transferFloorBps ?? 10n;
    for (const log of transfers) {
      const t = this.tokens.get(getAddress(log.address));
      const { from: sender, to: receiver, value } = log.args as { from: Address; to: Address; value: bigint };
      if (!t || value * 10_000n < t.totalSupply * floor) continue;
      this.transfers.push({
        txHash: log.transactionHash!,
        logIndex: log.logIndex!,
        time: time(log.blockNumber!),
        token: t.token,
        from: getAddress(sender),
        to: getAddress(receiver),
        value,
      });
    }
    for (const log of actions) {
      const a = log.args as {
        entryId: bigint;
        targetTokenId: bigint;
        sourceTier: number;
        sourceAgentId: bigint;
        operator: Address;
        actionType: string;
        payload: Hex;
        reasonCode: string;
        isOverride: boolean;
      };
      this.actions.push({
        entryId: a.entryId,
        targetNftId: a.targetTokenId,
        tier: nameOf(TIERS, a.sourceTier) as Tier,
        sourceAgentId: a.sourceAgentId,
        operator: getAddress(a.operator),
        actionType: a.actionType,
        payload: decodePayload(a.payload),
        reasonCode: a.reasonCode,
        isOverride: a.isOverride,
        time: time(log.blockNumber!),
        block: log.blockNumber!,
        txHash: log.transactionHash!,
      });
    }
    // Worker records change by config votes, status and operator changes and overrides: read the
    // changed ones again.
    const changed = new Set<bigint>();
    const configLogs = workerLogs.filter((l) => l.eventName === "WorkerConfigUpdated");
    await this.loadBlockTimes(configLogs.map((l) => l.blockNumber!));
    for (const log of workerLogs) {
      const args = log.args as {
        workerId?: bigint;
        nftId?: bigint;
        until?: bigint;
        config?: { slippageCapBps: number };
      };
      if (args.workerId !== undefined && log.eventName !== "WorkerActive") changed.add(args.workerId);
      if (log.eventName === "AgentSuspended") this.suspendedAgents.set(args.nftId!, Number(args.until));
      if (log.eventName === "AgentResumed") this.suspendedAgents.delete(args.nftId!);
      if (log.eventName === "WorkerConfigUpdated")
        this.noteCapChange(args.workerId!, args.config!.slippageCapBps, log.blockNumber!, time(log.blockNumber!));
    }
    for (const id of changed) await this.loadWorker(id);
  }

  private async addToken(args: SpawnArgs, txHash: Hex, block: bigint): Promise<void> {
    const { client } = this.options;
    const pool = getAddress(args.pool);
    const [[reserveToken, reservePair, virtualPair], feePips] = await Promise.all([
      // The launch reserves: the spawn's own Sync came before this event, in the same block.
      client.readContract({ address: pool, abi: AgentPoolAbi, functionName: "getReserves", blockNumber: block }),
      client.readContract({ address: pool, abi: AgentPoolAbi, functionName: "feePips" }),
    ]);
    await this.loadBlockTimes([block]);
    const reserves = { reserveToken, reservePair, virtualPair, feePips: BigInt(feePips) };
    const spawnedAt = this.blockTimes.get(block) ?? this.head.time;
    const t: MutableToken = {
      nftId: args.nftId,
      workerId: args.workerId,
      symbol: args.symbol,
      token: getAddress(args.token),
      pool,
      pairAsset: getAddress(args.pairAsset),
      totalSupply: args.totalSupply,
      reserves,
      spawnedAt,
      spawnTx: txHash,
      // The launch price stands until the first swap: the reference starts from it.
      prices: [{ block, time: spawnedAt, price: spotPrice(reserves) }],
      swaps: [],
    };
    this.tokens.set(t.token, t);
    this.byPool.set(pool, t);
    await this.loadWorker(args.workerId);
  }

  /** A changed cap: a trade decided before the change answers to the old one (the queen's CAP_BREACH). */
  private noteCapChange(workerId: bigint, capBps: number, block: bigint, at: number): void {
    const w = this.workers.get(workerId);
    if (!w || w.config.slippageCapBps === capBps) return;
    this.capChanges.set(workerId, { previousCapBps: w.config.slippageCapBps, block, time: at });
    // Two changes in one range compare with each other; loadWorker reads the whole record after.
    this.workers.set(workerId, { ...w, config: { ...w.config, slippageCapBps: capBps } });
  }

  private async loadWorker(id: bigint): Promise<void> {
    const registry = { address: this.options.contracts.AgentRegistry, abi: AgentRegistryAbi } as const;
    const [w, suspension] = await Promise.all([
      this.options.client.readContract({ ...registry, functionName: "getWorker", args: [id] }),
      this.options.client.readContract({ ...registry, functionName: "workerSuspension", args: [id] }),
    ]);
    if (suspension.byTier === 0) this.suspensions.delete(id);
    else
      this.suspensions.set(id, {
        byTier: nameOf(TIERS, suspension.byTier) as Tier,
        byAgentId: suspension.byAgentId,
        until: Number(suspension.until),
        resumeTo: nameOf(WORKER_STATUSES, suspension.resumeTo),
      });
    this.workers.set(id, {
      id,
      agentNftId: w.agentNftId,
      operator: getAddress(w.operator),
      status: nameOf(WORKER_STATUSES, w.status),
      config: {
        slippageCapBps: w.config.slippageCapBps,
        mevProtection: nameOf(MEV_PROTECTIONS, w.config.mevProtection),
        signalSubscriptions: [...w.config.signalSubscriptions],
      },
    });
  }

  private async loadBlockTimes(blocks: bigint[]): Promise<void> {
    const missing = blocks.filter((b) => !this.blockTimes.has(b));
    const read = await Promise.all(missing.map((b) => this.options.client.getBlock({ blockNumber: b })));
    for (const b of read) this.blockTimes.set(b.number, Number(b.timestamp));
  }

  private prune(): void {
    const keepFrom = this.now() - (this.options.historySec ?? 3_600);
    for (const t of this.tokens.values()) {
      if (t.swaps.length > 0 && t.swaps[0]!.time < keepFrom) t.swaps = t.swaps.filter((s) => s.time >= keepFrom);
      // The last price before the window stays: it stood at the window's start, where a
      // time-weighted average begins.
      if (t.prices.length > 1 && t.prices[1]!.time <= keepFrom) {
        const standing = t.prices.findLastIndex((p) => p.time <= keepFrom);
        t.prices = t.prices.slice(standing);
      }
      if (t.prices.length > 2_000) t.prices = t.prices.slice(-2_000);
      if (t.swaps.length > 5_000) t.swaps = t.swaps.slice(-5_000);
    }
    this.transfers = this.transfers.filter((x) => x.time >= keepFrom).slice(-5_000);
    this.actions = this.actions.filter((x) => x.time >= keepFrom).slice(-10_000);
    if (this.blockTimes.size > 10_000) this.blockTimes.clear();
  }
}

interface SpawnArgs {
  token: Address;
  pool: Address;
  nftId: bigint;
  workerId: bigint;
  symbol: string;
  totalSupply: bigint;
  pairAsset: Address;
}
