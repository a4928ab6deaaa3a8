import type { HardhatViemHelpers } from "@nomicfoundation/hardhat-viem/types";
import { type Address, maxUint256, parseEther, parseUnits, stringToHex } from "viem";
import type { Deployment } from "../../lib/deployments.ts";
import { DEMO_USERS, demoDepositAmount } from "../../exchange/demo/index.ts";

/**
 * Demo activity for a local chain, deterministic so tests and explorers can rely on it.
 * History is made in two eras: "old" activity more than 24 hours ago (closed proposals, early
 * trades and actions), then time moves forward past the proposals' voting delay and period and
 * "recent" activity happens (open proposals, the last 24 hours of actions, swaps and boosts), so
 * every 24h window has content. Nobody gets tokens for free: creators and voters buy on the curve,
 * and votes wait for each proposal's voting start (WorkerVoting's voting delay).
 *
 * Chain time ends on the wall clock when the chain started far enough in the past (the demo
 * node starts DEMO_HISTORY_SECONDS back, scripts/lib/demo-clock.ts): the recent era is placed so
 * its voting opens just before now, and a last block at the wall clock leaves the node's clock
 * following it. On a chain that started later the history cannot be put in the past: time then
 * moves only as far as the proposals need and the chain ends ahead of the wall clock
 * (`clockAheadSeconds`).
 *
 * Local accounts: 0 admin, 1 relayer, 2 worker operator, 3 treasury, 4..9 users, 10 queen
 * operator, 11 and 12 scout operators.
 */
export const DEMO_ACCOUNTS = { users: [4, 5, 6, 7, 8, 9], queen: 10, scouts: [11, 12] } as const;

export const DEMO_TOKENS = [
  { symbol: "ALPHA", name: "Alpha Arbitrage Agent", side: 0, owner: 4, supply: 0n, viaRelayer: false },
  { symbol: "BETA", name: "Beta Momentum Agent", side: 1, owner: 5, supply: 0n, viaRelayer: false },
  { symbol: "GAMMA", name: "Gamma Yield Agent", side: 0, owner: 6, supply: parseEther("500000000"), viaRelayer: false },
  { symbol: "DELTA", name: "Delta Sentinel", side: 1, owner: 7, supply: 0n, viaRelayer: false },
  { symbol: "OMEGA", name: "Omega Relay Agent", side: 0, owner: 8, supply: 0n, viaRelayer: true },
] as const;

const HOUR = 3600;
/**
 * How far before the wall clock the recent era's voting opens: room for the blocks that follow
 * it (each moves chain time at least a second), so the seed never overshoots the wall clock.
 */
const RECENT_ERA_LEAD_SECONDS = 60;
const SUPPORT = { yes: 0, no: 1, abstain: 2 } as const;
const TIER = { queen: 3, scout: 2 } as const;
const STATUS = { idle: 1, suspended: 2 } as const;

type Viem = HardhatViemHelpers;

/**
 * The exchange hot wallet's float of the chain's stable token (the exchange's USDT): on a chain
 * of its own the exchange's demo users were credited without a deposit on-chain, so the hot
 * wallet holds what they were credited (the reserves then cover them: GET /admin/reserves) plus
 * a float of 1,000,000 for withdrawals. Its native coin it has (a Hardhat account starts with
 * 10 000, more than the demo's ETH credits).
 */
export const HOT_WALLET_STABLE_FLOAT =
  parseUnits("1000000", 6) +
  DEMO_USERS.reduce((sum, user) => sum + parseUnits(demoDepositAmount("USDT", user.role), 6), 0n);

export interface SeedOptions {
  /** The exchange's hot wallet (deployments/<chainId>.json accounts.hotWallet): funded with stable tokens. */
  readonly hotWallet?: Address;
}

export interface SeedSummary {
  tokens: { symbol: string; token: Address; pool: Address; nftId: bigint; workerId: bigint; side: number }[];
  queens: bigint[];
  scouts: bigint[];
  actions: number;
  overrides: number;
  proposals: { id: bigint; state: "open" | "executed" | "defeated" }[];
  votes: number;
  swaps: number;
  boosts: { symbol: string; tier: number }[];
  /** Chain time minus wall clock after the seed, seconds: 0 on a demo node, positive on one started later. */
  clockAheadSeconds: number;
}

export async function seedDemo(
  viem: Viem,
  contracts: Deployment["contracts"],
  options: SeedOptions = {},
): Promise<SeedSummary> {
  const publicClient = await viem.getPublicClient();
  const testClient = await viem.getTestClient();
  const wallets = await viem.getWalletClients();
  const as = (index: number) => ({ account: wallets[index].account });
  const wait = async (hash: Promise<`0x${string}`>) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
    if (receipt.status !== "success") throw new Error(`seed transaction ${receipt.transactionHash} reverted`);
    return receipt;
  };
  const chainTime = async () => Number((await publicClient.getBlock()).timestamp);
  const wallTime = () => Math.floor(Date.now() / 1000);
  /** Mines the next block at `timestamp` (Unix seconds); later blocks follow the wall clock from there. */
  const moveTo = async (timestamp: number) => {
    await testClient.setNextBlockTimestamp({ timestamp: BigInt(timestamp) });
    await testClient.mine({ blocks: 1 });
  };

  const registry = await viem.getContractAt("AgentRegistry", contracts.AgentRegistry);
  const spawner = await viem.getContractAt("AgentSpawner", contracts.AgentSpawner);
  const actionLog = await viem.getContractAt("ActionLog", contracts.ActionLog);
  const voting = await viem.getContractAt("WorkerVoting", contracts.WorkerVoting);
  const booster = await viem.getContractAt("Booster", contracts.Booster);
  const stable = await viem.getContractAt("MockStableToken", contracts.MockStableToken);
  const wrapped = await viem.getContractAt("WrappedNative", contracts.WrappedNative);
  const summary: SeedSummary = {
    tokens: [],
    queens: [],
    scouts: [],
    actions: 0,
    overrides: 0,
    proposals: [],
    votes: 0,
    swaps: 0,
    boosts: [],
    clockAheadSeconds: 0,
  };

  // --- Old era -----------------------------------------------------------------------------
  await wait(
    registry.write.registerAgent([
      TIER.queen,
      wallets[DEMO_ACCOUNTS.queen].account.address,
      wallets[0].account.address,
    ]),
  );
  for (const scout of DEMO_ACCOUNTS.scouts) {
    await wait(registry.write.registerAgent([TIER.scout, wallets[scout].account.address, wallets[0].account.address]));
  }
  for (const event of await registry.getEvents.AgentRegistered({}, { fromBlock: 0n })) {
    (event.args.tier === TIER.queen ? summary.queens : summary.scouts).push(event.args.nftId!);
  }

  const fee = await spawner.read.spawnFee();
  for (const t of DEMO_TOKENS) {
    const metadata = {
      description: `${t.name}: an autonomous agent token of the demo swarm.`,
      logoUri: `https://example.org/logos/${t.symbol.toLowerCase()}.png`,
      website: `https://example.org/agents/${t.symbol.toLowerCase()}`,
    };
    const owner = wallets[t.owner].account.address;
    const receipt = t.viaRelayer
      ? await wait(
          spawner.write.spawnFor([owner, t.name, t.symbol, t.supply, t.side, metadata], { ...as(1), value: fee }),
        )
      : await wait(spawner.write.spawn([t.name, t.symbol, t.supply, t.side, metadata], { ...as(t.owner), value: fee }));
    const [spawned] = await spawner.getEvents.AgentSpawned({}, { blockHash: receipt.blockHash });
    const { token, pool, nftId, workerId } = spawned.args;
    summary.tokens.push({
      symbol: t.symbol,
      token: token!,
      pool: pool!,
      nftId: nftId!,
      workerId: workerId!,
      side: t.side,
    });
  }

  // Traders fund themselves with pair assets and approve every pool once.
  for (const user of DEMO_ACCOUNTS.users) {
    await wait(stable.write.mint([wallets[user].account.address, parseUnits("100000", 6)], as(user)));
    await wait(wrapped.write.deposit({ ...as(user), value: parseEther("50") }));
    for (const { token, pool } of summary.tokens) {
      await wait(stable.write.approve([pool, maxUint256], as(user)));
      await wait(wrapped.write.approve([pool, maxUint256], as(user)));
      const agentToken = await viem.getContractAt("AgentToken", token);
      await wait(agentToken.write.approve([pool, maxUint256], as(user)));
    }
  }

  const swap = async (symbol: string, user: number, isBuy: boolean, amount: bigint) => {
    const t = summary.tokens.find((x) => x.symbol === symbol)!;
    const pool = await viem.getContractAt("AgentPool", t.pool);
    const tokenIn = isBuy ? (t.side === 0 ? stable.address : wrapped.address) : t.token;
    const [expected] = await pool.read.quote([tokenIn, amount]);
    // 1% slippage guard, as a careful trader would set it.
    await wait(
      pool.write.swapExactIn([tokenIn, amount, (expected * 99n) / 100n, wallets[user].account.address], as(user)),
    );
    summary.swaps++;
  };
  const usd = (n: string) => parseUnits(n, 6);
  // The spawn gave nobody a token: each creator buys its stake on the curve, like the holders
  // who vote on BETA's proposal later.
  for (const t of DEMO_TOKENS) await swap(t.symbol, t.owner, true, t.side === 0 ? usd("2000") : parseEther("1"));
  await swap("BETA", 6, true, parseEther("0.2"));
  await swap("BETA", 7, true, parseEther("0.3"));
  await swap("ALPHA", 5, true, usd("2500"));
  await swap("ALPHA", 6, true, usd("1200"));
  await swap("BETA", 4, true, parseEther("1.5"));
  await swap("GAMMA", 7, true, usd("800"));
  await swap("DELTA", 8, true, parseEther("0.7"));
  await swap("OMEGA", 9, true, usd("300"));
  await swap("ALPHA", 5, false, parseEther("1000000"));

  // A liquidity provider joins the ALPHA pool with both sides.
  {
    const t = summary.tokens[0];
    const pool = await viem.getContractAt("AgentPool", t.pool);
    await wait(pool.write.addLiquidity([parseEther("2000000"), usd("1000"), 0n, wallets[5].account.address], as(5)));
  }

  const act = async (operator: number, targetNftId: bigint, actionType: string, payload: object, reason: string) => {
    await wait(
      actionLog.write.record([targetNftId, actionType, stringToHex(JSON.stringify(payload)), reason], as(operator)),
    );
    summary.actions++;
    if (actionType === "override") summary.overrides++;
  };
  const worker = 2;
  const [alpha, beta, gamma, delta, omega] = summary.tokens;
  await act(worker, alpha.nftId, "trade", { side: "buy", amountIn: "500000000", asset: "mUSD" }, "MOMENTUM_UP");
  await act(worker, beta.nftId, "rebalance", { targetRatioBps: 5000 }, "DRIFT");
  await act(DEMO_ACCOUNTS.scouts[0], gamma.nftId, "flag", { signal: "volume_spike", severity: "low" }, "VOLUME_SPIKE");

  // Proposals that close in the old era: ALPHA's passes and is executed, BETA's is defeated.
  // Voting weight is what was held the second before the proposal: step a second so the
  // holdings bought just before count on a node whose blocks may share a second.
  const propose = async (proposer: number, t: typeof alpha, config: object, description: string) => {
    await moveTo((await chainTime()) + 1);
    const receipt = await wait(voting.write.propose([t.workerId, config as never, description], as(proposer)));
    const [created] = await voting.getEvents.ProposalCreated({}, { blockHash: receipt.blockHash });
    return created.args.proposalId!;
  };
  // Votes are accepted from a proposal's startTime on (after the voting delay): move time there.
  const openVoting = async (proposalId: bigint) => {
    const { startTime } = await voting.read.getProposal([proposalId]);
    if ((await publicClient.getBlock()).timestamp < startTime) {
      await testClient.setNextBlockTimestamp({ timestamp: startTime });
      await testClient.mine({ blocks: 1 });
    }
  };
  const vote = async (voter: number, proposalId: bigint, support: number, comment: string) => {
    await wait(voting.write.castVote([proposalId, support, comment], as(voter)));
    summary.votes++;
  };
  const tightSlippage = { slippageCapBps: 50, mevProtection: 2, signalSubscriptions: ["price", "volume"] };
  const p1 = await propose(4, alpha, tightSlippage, "Tighten ALPHA slippage to 0.5% and batch trades");
  const p2 = await propose(
    5,
    beta,
    { slippageCapBps: 500, mevProtection: 0, signalSubscriptions: ["price"] },
    "Loosen BETA slippage to 5%",
  );
  await openVoting(p2); // p1 opened a block earlier
  await vote(4, p1, SUPPORT.yes, "Less slippage, fewer sandwiches");
  await vote(5, p1, SUPPORT.yes, "");
  await vote(6, p1, SUPPORT.abstain, "No strong view");
  await vote(5, p2, SUPPORT.no, "Too loose");
  await vote(6, p2, SUPPORT.no, "");
  await vote(7, p2, SUPPORT.yes, "Faster fills");

  // --- Past the voting period: the recent era -----------------------------------------------
  // Its proposals' voting opens (after the voting delay) a minute before the wall clock, unless
  // the chain is already past that: then an hour after the old proposals closed.
  const [votingDelay] = await voting.read.settings();
  const { endTime: p1End } = await voting.read.getProposal([p1]);
  const { endTime: p2End } = await voting.read.getProposal([p2]);
  const closed = Number(p1End > p2End ? p1End : p2End) + HOUR;
  const recentStart = Math.max(closed, wallTime() - RECENT_ERA_LEAD_SECONDS - Number(votingDelay));
  await moveTo(Math.max(recentStart, (await chainTime()) + 1));
  await wait(voting.write.execute([p1], as(0)));
  summary.proposals.push({ id: p1, state: "executed" }, { id: p2, state: "defeated" });

  const p3 = await propose(
    6,
    gamma,
    { slippageCapBps: 75, mevProtection: 1, signalSubscriptions: ["price", "funding"] },
    "GAMMA: subscribe to funding rates",
  );
  const p4 = await propose(
    1,
    alpha,
    { slippageCapBps: 30, mevProtection: 2, signalSubscriptions: ["price", "volume", "news"] },
    "ALPHA: add news signals",
  );
  // Everything below happens after the voting delay, within the last 24 hours of the chain.
  await openVoting(p4);
  await vote(6, p3, SUPPORT.yes, "Funding matters for yield");
  await vote(7, p3, SUPPORT.no, "");
  summary.proposals.push({ id: p3, state: "open" }, { id: p4, state: "open" });

  await act(
    worker,
    alpha.nftId,
    "trade",
    { side: "sell", amountIn: "1000000000000000000000", asset: "ALPHA" },
    "TAKE_PROFIT",
  );
  await act(
    worker,
    alpha.nftId,
    "config_update",
    { slippageCapBps: 50, mevProtection: "batch_auction" },
    "VOTE_EXECUTED",
  );
  await act(worker, gamma.nftId, "trade", { side: "buy", amountIn: "250000000", asset: "mUSD" }, "MEAN_REVERSION");
  await act(worker, delta.nftId, "rebalance", { targetRatioBps: 4000 }, "DRIFT");
  await act(worker, omega.nftId, "trade", { side: "buy", amountIn: "100000000", asset: "mUSD" }, "MOMENTUM_UP");
  await act(DEMO_ACCOUNTS.scouts[0], beta.nftId, "flag", { signal: "whale_exit", severity: "high" }, "WHALE_EXIT");
  await act(DEMO_ACCOUNTS.scouts[1], alpha.nftId, "flag", { signal: "spread_widening", severity: "medium" }, "SPREAD");
  await act(
    DEMO_ACCOUNTS.queen,
    beta.nftId,
    "directive",
    { instruction: "reduce_exposure", maxPositionBps: 2000 },
    "RISK_OFF",
  );
  await act(DEMO_ACCOUNTS.queen, omega.nftId, "directive", { instruction: "pause_trading" }, "COMPLIANCE_REVIEW");
  await act(DEMO_ACCOUNTS.scouts[1], beta.nftId, "override", { overrides: "trade", action: "cancel" }, "WHALE_EXIT");
  // An override suspends the worker (ActionLog); the scout lifts its own once the exit is handled.
  await act(DEMO_ACCOUNTS.scouts[1], beta.nftId, "resume", { resumes: "trade" }, "OVERRIDE_LIFTED");
  await act(DEMO_ACCOUNTS.queen, omega.nftId, "override", { overrides: "trade", action: "halt" }, "COMPLIANCE_REVIEW");

  // Not every worker is busy: DELTA's idles; OMEGA's, suspended by the queen's halt, is kept
  // suspended by the manager (a manager's suspension has no cool-off).
  await wait(registry.write.setWorkerStatus([delta.workerId, STATUS.idle], as(0)));
  await wait(registry.write.setWorkerStatus([omega.workerId, STATUS.suspended], as(0)));

  for (const [symbol, tier] of [
    ["ALPHA", 2],
    ["GAMMA", 1],
  ] as const) {
    const t = summary.tokens.find((x) => x.symbol === symbol)!;
    const { price } = await booster.read.tierConfig([tier]);
    await wait(booster.write.boost([t.nftId, tier], { ...as(t === alpha ? 4 : 6), value: price }));
    summary.boosts.push({ symbol, tier });
  }

  await swap("ALPHA", 7, true, usd("900"));
  await swap("ALPHA", 6, false, parseEther("50000"));
  await swap("BETA", 9, true, parseEther("0.4"));
  await swap("GAMMA", 4, true, usd("150"));
  await swap("GAMMA", 7, false, parseEther("10000"));

  // The stable token's mint is open (a mock): the hot wallet's float, minted by the admin.
  if (options.hotWallet !== undefined)
    await wait(stable.write.mint([options.hotWallet, HOT_WALLET_STABLE_FLOAT], as(0)));

  // A last block at the wall clock: the node's clock then follows it (Hardhat keeps the offset
  // the last set timestamp gave it), so "now" on the chain is now.
  if ((await chainTime()) < wallTime()) await moveTo(wallTime());
  summary.clockAheadSeconds = Math.max(0, (await chainTime()) - wallTime());
  return summary;
}
