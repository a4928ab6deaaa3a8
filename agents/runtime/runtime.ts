import {
  type Address,
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  http,
  maxUint256,
  parseAbi,
  type PublicClient,
} from "viem";
import { relayerClients, type Sql } from "../../relayer/index.ts";
import { readDeployment } from "../../lib/deployments.ts";
import {
  answeredCauses,
  DEFAULT_SCOUT_PARAMS,
  decideQueen,
  decideScout,
  decideWorker,
  directivesInForce,
  type Intent,
  netBatch,
  type QueenIntent,
  signalsOfScout,
  type TokenView,
  type TradeIntent,
  type WorkerView,
} from "../strategy/index.ts";
import { resolveRoles, type Role } from "./accounts.ts";
import type { SendingConfig } from "./config.ts";
import { execute, finishSetup, type IntentSpec, type Operator, step } from "./execute.ts";
import type { IntentRow } from "./intents.ts";
import { openOperator } from "./operator.ts";
import { World } from "./world.ts";

/**
 * `npm run agents`: every agent whose operator key the runtime holds, ticking together. Each tick
 * reads the chain's new logs once (World), then every agent, concurrently: finishes its open
 * intents, decides (a pure function), records the new intents, and sends them. An agent's error
 * is logged and its tick tried again next time; the others go on.
 */

export interface AgentsConfig extends SendingConfig {
  readonly rpcUrl: string;
  readonly chainId: number;
  readonly rpcTimeoutMs: number;
  /** Where deployments/<chainId>.json is (default: the working directory). */
  readonly deploymentsRoot?: string;
  readonly tickMs: number;
  readonly workerKey?: Hex;
  readonly queenKey?: Hex;
  readonly scoutKeys: readonly Hex[];
  readonly privateRelayUrl?: string;
  readonly batchWindowTicks: number;
  /** On a local chain with mock assets: mint and wrap what the workers trade with. */
  readonly fundLocally: boolean;
  readonly log?: (message: string, error?: unknown) => void;
  /**
   * For the crash test only: the process dies (SIGKILL) just before its Nth broadcast, with that
   * transaction signed and journalled but not sent: the hardest moment to restart from.
   */
  readonly crashBeforeBroadcast?: number;
  /** Each intent's outcome, one line each (quiet by default). */
  readonly info?: (message: string) => void;
}

export interface AgentsHandle {
  readonly roles: readonly { name: string; tier: string; address: Address }[];
  /** Ticks completed so far. */
  ticks(): number;
  intentCounts(): Promise<Record<string, Partial<Record<string, number>>>>;
  close(): Promise<void>;
}

/** What the local demo's stable (mint) and wrapped native token (deposit) add to ERC-20. */
const DEMO_ASSET = parseAbi(["function mint(address, uint256)", "function deposit() payable"]);

interface Agent {
  readonly role: Role;
  readonly op: Operator;
  readonly sql: Sql;
}

export async function startAgents(config: AgentsConfig): Promise<AgentsHandle> {
  const log = config.log ?? ((message: string, error?: unknown) => console.error(message, error ?? ""));
  const info = config.info ?? (() => {});
  const transport = http(config.rpcUrl, { timeout: config.rpcTimeoutMs, retryCount: 1, batch: { wait: 0 } });
  const client = createPublicClient({ transport }) as PublicClient;
  // One set of relayer clients (never batched with the reads) serves every agent account's relayer.
  const clients = relayerClients(config);
  const deployment = await readDeployment(config.chainId, config.deploymentsRoot);
  const { contracts } = deployment;
  const roles = await resolveRoles(client, contracts.AgentRegistry, deployment.accounts.workerOperator, {
    chainId: config.chainId,
    workerKey: config.workerKey,
    queenKey: config.queenKey,
    scoutKeys: config.scoutKeys,
  });
  if (roles.length === 0)
    throw new Error("no agent keys: set WORKER_OPERATOR_PRIVATE_KEY, QUEEN_PRIVATE_KEY or SCOUT_PRIVATE_KEYS");
  const genesis = await client.getBlock({ blockNumber: 0n });

  const agents: Agent[] = [];
  let broadcasts = 0;
  for (const role of roles) {
    const { op, sql } = await openOperator({
      ...config,
      name: role.name,
      account: role.account,
      client,
      clients,
      genesisHash: genesis.hash,
      actionLog: contracts.ActionLog,
      beforeBroadcast: () => {
        broadcasts++;
        if (broadcasts === config.crashBeforeBroadcast) process.kill(process.pid, "SIGKILL");
      },
      log,
    });
    agents.push({ role, op, sql });
  }

  const world = new World({
    client,
    contracts: {
      AgentSpawner: contracts.AgentSpawner,
      AgentRegistry: contracts.AgentRegistry,
      ActionLog: contracts.ActionLog,
    },
    startBlock: BigInt(deployment.startBlock),
  });
  const scouts = agents.filter((a) => a.role.tier === "scout");
  const prepared = new Set<string>();
  /** Agents whose set-up writes left by an earlier run are finished (once per run: see finishSetup). */
  const setupFinished = new Set<Agent>();
  let ticks = 0;
  let closed = false;
  let failures = 0;

  /**
   * A trade left open by an earlier tick for a worker that is no longer this account's (its owner
   * handed it to an agent of its own): its swap is not sent any more, since its record would be
   * refused and the swap would be a trade for nobody. One whose swap was sent is finished as it is.
   */
  const handedAway = async (agent: Agent, row: IntentRow, spec: IntentSpec) =>
    spec.kind === "trade" &&
    world.workerMap().get(BigInt(spec.workerId))?.operator !== agent.op.address &&
    (await agent.op.journal.txsOf(`${row.id}:swap`)).length === 0;

  /** Runs an intent to its end and says how it ended (the operator's activity log). */
  const run = async (agent: Agent, row: IntentRow, fresh = true) => {
    const spec = JSON.parse(row.spec) as IntentSpec;
    if (!fresh && (await handedAway(agent, row, spec))) {
      await agent.op.intents.settle(row.id, "failed", "the worker was handed to another operator");
      info(`agents: ${row.id} failed: worker handed to another operator before its swap was sent`);
      return "failed";
    }
    const outcome = await execute(agent.op, row, { fresh });
    info(`agents: ${row.id} ${outcome}: ${spec.actionType} ${spec.reasonCode} on token ${spec.targetNftId}`);
    return outcome;
  };

  /**
   * Finishes what an earlier tick (or run) left open: never decided again, never sent twice.
   * Returns how many there were: the world was read before they landed, so that agent does not
   * decide again until the next tick has read them.
   */
  const finishOpen = async (agent: Agent): Promise<number> => {
    if (!setupFinished.has(agent)) {
      const setups = await finishSetup(agent.op);
      if (setups > 0) info(`agents: ${agent.op.name}: finished ${setups} set-up writes an earlier run left open`);
      setupFinished.add(agent);
    }
    const open = await agent.op.intents.pending(agent.op.name, "open");
    if (open.length > 0) info(`agents: ${agent.op.name}: finishing ${open.length} intents an earlier tick left open`);
    await Promise.all(open.map((intent) => run(agent, intent, false)));
    return open.length;
  };

  /** Journals a tick's intents (together: one statement, see IntentLog.add). */
  const record = async (agent: Agent, tick: number, intents: readonly (Intent | QueenIntent)[]) => {
    const rows = await Promise.all(
      intents.map((intent, i) =>
        agent.op.intents.add({
          id: `${agent.op.name}:${tick}:${i}`,
          agent: agent.op.name,
          tick,
          spec: JSON.stringify(specOf(intent)),
          state: "open",
        }),
      ),
    );
    return rows.filter((row) => row !== undefined);
  };

  const tickScout = async (agent: Agent, tick: number) => {
    // Suspended by the queen, a scout's records would revert (AgentSuspended): it waits.
    if (world.isAgentSuspended(agent.role.nftId)) return;
    const index = scouts.indexOf(agent);
    const intents = decideScout({
      now: world.now(),
      tokens: world.tokenList(),
      workers: world.workerMap(),
      transfers: world.transferList(),
      actions: world.actionList(),
      params: { ...DEFAULT_SCOUT_PARAMS, signals: signalsOfScout(index, scouts.length) },
    });
    await Promise.all((await record(agent, tick, intents)).map((row) => run(agent, row)));
  };

  const tickQueen = async (agent: Agent, tick: number) => {
    const intents = decideQueen({
      now: world.now(),
      actions: world.actionList(),
      workers: world.workerMap(),
      answered: answeredCauses(world.actionList(), agent.role.nftId),
      suspensions: world.suspensionMap(),
      capChanges: world.capChangeMap(),
    });
    await Promise.all((await record(agent, tick, intents)).map((row) => run(agent, row)));
  };

  /** What a worker's trade intents carry beyond the decision: enough to send and audit the swap. */
  const tradeSpec = (intent: Intent | ReturnType<typeof netBatch>, token: TokenView, worker: WorkerView) => ({
    ...specOf(intent as Intent),
    workerId: worker.id.toString(),
    mevProtection: worker.config.mevProtection,
    pool: token.pool,
    tokenIn: (intent as TradeIntent).isBuy ? token.pairAsset : token.token,
  });

  /** Journals the decided trades of a tick; added together, they share one statement (IntentLog.add). */
  const addTrades = (
    agent: Agent,
    tick: number,
    token: TokenView,
    worker: WorkerView,
    decided: Intent[],
    state: "open" | "batched",
    batchWindow?: number,
  ) =>
    Promise.all(
      decided.map((intent, i) =>
        agent.op.intents.add({
          id: `${agent.op.name}:${tick}:w${worker.id}:${i}`,
          agent: agent.op.name,
          tick,
          spec: JSON.stringify(tradeSpec(intent, token, worker)),
          state,
          batchWindow,
        }),
      ),
    );

  /** Without batching: each decided trade is journalled now and sent this tick. */
  const tradeNow = async (agent: Agent, tick: number, token: TokenView, worker: WorkerView, decided: Intent[]) =>
    (await addTrades(agent, tick, token, worker, decided, "open")).filter((row) => row !== undefined);

  /**
   * BatchAuction: decided trades wait in their window; once a window has passed, its members are
   * netted into one trade (returned to be sent). A pause holds the batch too: it is netted and
   * sent once the pause is over.
   */
  const batchAuction = async (
    agent: Agent,
    tick: number,
    token: TokenView,
    worker: WorkerView,
    decided: Intent[],
    inventory: Awaited<ReturnType<typeof inventoryOf>>,
  ): Promise<IntentRow | undefined> => {
    const window = Math.floor(tick / config.batchWindowTicks);
    await addTrades(agent, tick, token, worker, decided, "batched", window);
    const earlier = (await agent.op.intents.pending(agent.op.name, "batched")).filter(
      (r) => r.batchWindow! < window && (JSON.parse(r.spec) as { workerId: string }).workerId === worker.id.toString(),
    );
    const paused = directivesInForce(world.actionList(), token.nftId, world.now()).some(
      (d) => d.instruction === "pause_trading",
    );
    if (earlier.length === 0 || paused) return undefined;
    // The net trade's id names the batch's oldest member and its spec lists the members: a
    // crash between recording it and marking them netted nets nothing twice.
    const id = `${agent.op.name}:batch:w${worker.id}:${earlier[0]!.id}`;
    const existing = await agent.op.intents.byId(id);
    const members = existing ? (JSON.parse(existing.spec) as { netted: string[] }).netted : earlier.map((r) => r.id);
    let row: IntentRow | undefined;
    if (!existing) {
      const net = netBatch(
        earlier.map((r) => tradeOf(JSON.parse(r.spec))),
        token.reserves,
        BigInt(worker.config.slippageCapBps),
        inventory,
      );
      if (net) {
        const why = { ...net.why, observedBlock: world.headBlock().toString() };
        const spec = { ...tradeSpec({ ...net, why }, token, worker), netted: members };
        row = await agent.op.intents.add({ id, agent: agent.op.name, tick, spec: JSON.stringify(spec), state: "open" });
      }
    }
    for (const member of members) await agent.op.intents.settle(member, "netted", id);
    return row;
  };

  const tickWorkers = async (agent: Agent, tick: number) => {
    const mine = world
      .tokenList()
      .map((token) => ({ token, worker: world.workerMap().get(token.workerId) }))
      .filter((x): x is { token: TokenView; worker: WorkerView } => x.worker?.operator === agent.op.address);
    const active = mine.filter((x) => x.worker.status === "active");
    const rows: IntentRow[] = [];
    for (const { token, worker } of active) {
      // Idle workers watch and suspended ones rest: only active ones are here.
      try {
        await prepare(agent, token);
        const sharing = active.filter((x) => x.token.pairAsset === token.pairAsset).length;
        const inventory = await inventoryOf(agent.op, token, sharing);
        const now = world.now();
        const decided = decideWorker({
          now,
          token,
          worker,
          inventory,
          directives: directivesInForce(world.actionList(), token.nftId, now),
          flags: world
            .actionList()
            .filter((a) => a.targetNftId === token.nftId && a.tier === "scout" && a.actionType === "flag"),
          answers: world.actionList().filter((a) => a.targetNftId === token.nftId && a.tier === "queen"),
          observedBlock: world.headBlock(),
        });
        if (worker.config.mevProtection === "batch_auction") {
          const net = await batchAuction(agent, tick, token, worker, decided, inventory);
          if (net) rows.push(net);
        } else rows.push(...(await tradeNow(agent, tick, token, worker, decided)));
      } catch (error) {
        log(`agents: worker ${worker.id} (${token.symbol}) tick ${tick} failed; it tries again next tick`, error);
      }
    }
    const outcomes = await Promise.all(rows.map((row) => run(agent, row)));
    // A swap the chain refused may mean a lost approval or spent funds: that pool is prepared
    // again (allowances and balances read afresh) before its next trade.
    outcomes.forEach((outcome, i) => {
      const spec = JSON.parse(rows[i]!.spec) as IntentSpec;
      if (outcome === "failed" && spec.kind === "trade") {
        prepared.delete(spec.pool);
        funded.delete(getAddress(spec.tokenIn));
      }
    });
  };

  /**
   * Approvals (and on a local chain, funds) a worker needs before its first trade in a pool. Read
   * on the chain first, so sending again is harmless; each approval gets a write id of its own (a
   * revoked approval is given again, not answered with the first one's receipt).
   */
  const prepare = async (agent: Agent, token: TokenView) => {
    if (prepared.has(token.pool)) return;
    const op = agent.op;
    for (const asset of [token.token, token.pairAsset]) {
      const allowance = await client.readContract({
        address: asset,
        abi: erc20Abi,
        functionName: "allowance",
        args: [op.address, token.pool],
      });
      if (allowance < maxUint256 / 2n)
        await step(op, `setup:approve:${asset}:${token.pool}:${Date.now()}`, "agent_setup", () => ({
          to: asset,
          data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [token.pool, maxUint256] }),
        }));
    }
    if (config.fundLocally && deployment.mockAssets) await fundLocally(op, token.pairAsset);
    prepared.add(token.pool);
  };

  const funded = new Set<Address>();
  const fundLocally = async (op: Operator, asset: Address) => {
    if (funded.has(asset)) return;
    const balance = await client.readContract({
      address: asset,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [op.address],
    });
    const stable = getAddress(asset) === getAddress(contracts.MockStableToken);
    const want = stable ? 5_000n * 10n ** 6n : 3n * 10n ** 18n;
    if (balance < want) {
      const id = `setup:fund:${asset}:${Date.now()}`;
      if (stable)
        await step(op, id, "agent_setup", () => ({
          to: asset,
          data: encodeFunctionData({ abi: DEMO_ASSET, functionName: "mint", args: [op.address, want] }),
        }));
      else
        await step(
          op,
          id,
          "agent_setup",
          () => ({ to: asset, data: encodeFunctionData({ abi: DEMO_ASSET, functionName: "deposit" }) }),
          { value: want },
        );
    }
    funded.add(asset);
  };

  const inventoryOf = async (op: Operator, token: TokenView, sharing: number) => {
    const [tokens, pair] = await Promise.all([
      client.readContract({ address: token.token, abi: erc20Abi, functionName: "balanceOf", args: [op.address] }),
      client.readContract({ address: token.pairAsset, abi: erc20Abi, functionName: "balanceOf", args: [op.address] }),
    ]);
    // Workers on the same pair asset share the operator's balance of it.
    return { token: tokens, pair: pair / BigInt(Math.max(1, sharing)) };
  };

  /** Finished intents and their journal rows are kept a day (agent_intent and relayed_write stay bounded). */
  const KEEP_MS = 24 * 3_600_000;
  let lastPrune = 0;
  const prune = async () => {
    if (Date.now() - lastPrune < 3_600_000) return;
    lastPrune = Date.now();
    for (const a of agents)
      await a.op.intents.prune(Date.now() - KEEP_MS).catch((error) => log(`agents: ${a.op.name}: prune failed`, error));
  };

  const tickAgent = async (agent: Agent) => {
    try {
      if ((await finishOpen(agent)) > 0) return;
      const tick = await agent.op.intents.nextTick(agent.op.name);
      if (agent.role.tier === "worker") await tickWorkers(agent, tick);
      else if (agent.role.tier === "scout") await tickScout(agent, tick);
      else await tickQueen(agent, tick);
    } catch (error) {
      log(`agents: ${agent.op.name}: tick failed; it tries again next tick`, error);
    }
  };

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const loop = async () => {
    if (closed) return;
    try {
      await world.refresh();
      failures = 0;
      await Promise.all(agents.map(tickAgent));
      await prune();
      ticks++;
    } catch (error) {
      failures++;
      log(`agents: cannot read the chain (attempt ${failures}); retrying`, error);
    }
    if (!closed)
      timer = setTimeout(() => (running = loop()), config.tickMs * Math.min(2 ** Math.max(0, failures - 1), 8));
  };
  running = loop();

  return {
    roles: agents.map((a) => ({ name: a.op.name, tier: a.role.tier, address: a.op.address })),
    ticks: () => ticks,
    intentCounts: async () =>
      Object.fromEntries(await Promise.all(agents.map(async (a) => [a.op.name, await a.op.intents.counts()] as const))),
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await running.catch(() => {});
      for (const a of agents) await a.sql.close().catch(() => {});
    },
  };
}

function specOf(intent: Intent | QueenIntent): IntentSpec {
  if (intent.kind === "record")
    return {
      kind: "record",
      targetNftId: intent.targetNftId.toString(),
      actionType: intent.actionType,
      reasonCode: intent.reasonCode,
      payload: intent.payload,
      ...("coolOffSec" in intent && intent.coolOffSec !== undefined ? { coolOffSec: intent.coolOffSec } : {}),
    };
  return {
    kind: "trade",
    targetNftId: intent.targetNftId.toString(),
    actionType: intent.actionType,
    reasonCode: intent.reasonCode,
    pool: "0x" as Address,
    tokenIn: "0x" as Address,
    isBuy: intent.isBuy,
    amountIn: intent.amountIn.toString(),
    minAmountOut: intent.minAmountOut.toString(),
    workerId: "",
    mevProtection: "off",
    why: intent.why,
  };
}

function tradeOf(spec: IntentSpec): TradeIntent {
  if (spec.kind !== "trade") throw new Error("not a trade");
  return {
    kind: "trade",
    targetNftId: BigInt(spec.targetNftId),
    actionType: spec.actionType as TradeIntent["actionType"],
    reasonCode: spec.reasonCode,
    isBuy: spec.isBuy,
    amountIn: BigInt(spec.amountIn),
    minAmountOut: BigInt(spec.minAmountOut),
    why: spec.why as TradeIntent["why"],
  };
}
