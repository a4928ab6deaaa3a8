import {
  type Address,
  createPublicClient,
  encodeFunctionData,
  getAddress,
  http,
  keccak256,
  parseAbi,
  parseEther,
  parseUnits,
  stringToHex,
  toHex,
} from "viem";
import { ActionLogAbi, AgentPoolAbi, AgentRegistryAbi, AgentSpawnerAbi, AgentTokenAbi } from "../../../indexer/abis.ts";
import type { Deployment } from "../../../lib/deployments.ts";
import { rpc } from "./chain.ts";
import { BlockSender } from "./sender.ts";

/**
 * Local accounts: 0 admin, 1 relayer, 2 worker operator (deploy-and-record's local roles),
 * 3 treasury, then a queen operator, two scout operators, and the rest are token holders who
 * spawn the tokens and send the stream's transfers.
 */
const QUEEN = 4;
const SCOUTS = [5, 6];
const FIRST_HOLDER = 7;
const TIER = { scout: 2, queen: 3 } as const;
// Gas limits per kind, with room: a first receipt also writes vote checkpoints.
const GAS = { action: 300_000n, transfer: 300_000n, spawn: 3_000_000n, setup: 500_000n };

export interface Actors {
  workerOperator: Address;
  queen: Address;
  scouts: Address[];
  holders: Address[];
  tokens: { address: Address; nftId: bigint }[];
}

export interface StreamSize {
  actions: number;
  transfers: number;
  txsPerBlock: number;
}

/** A block gas limit that fits `txsPerBlock` stream transactions, or the setup's spawns. */
export const blockGasLimit = (txsPerBlock: number) => BigInt(txsPerBlock) * GAS.action + 20n * GAS.spawn;

/** Registers a queen and two scouts, spawns `tokenCount` tokens and spreads each to every holder. */
export async function setupActors(url: string, deployment: Deployment, tokenCount: number): Promise<Actors> {
  const accounts = (await rpc<Address[]>(url, "eth_accounts")).map((a) => getAddress(a));
  const holders = accounts.slice(FIRST_HOLDER);
  if (tokenCount > holders.length) throw new Error(`BENCH_TOKENS is at most ${holders.length}`);
  const { contracts } = deployment;
  const admin = deployment.accounts.admin;
  const sender = new BlockSender(url);

  const register = (tier: number, operator: Address) =>
    sender.add({
      from: admin,
      to: contracts.AgentRegistry,
      data: encodeFunctionData({ abi: AgentRegistryAbi, functionName: "registerAgent", args: [tier, operator, admin] }),
      gas: GAS.setup,
    });
  register(TIER.queen, accounts[QUEEN]);
  for (const scout of SCOUTS) register(TIER.scout, accounts[scout]);

  const client = createPublicClient({ transport: http(url) });
  const fee = await client.readContract({
    address: contracts.AgentSpawner,
    abi: AgentSpawnerAbi,
    functionName: "spawnFee",
  });
  for (let i = 0; i < tokenCount; i++) {
    const symbol = `BN${String.fromCharCode(65 + Math.floor(i / 26))}${String.fromCharCode(65 + (i % 26))}`;
    const metadata = { description: `Benchmark agent ${i}`, logoUri: "", website: "" };
    sender.add({
      from: holders[i],
      to: contracts.AgentSpawner,
      data: encodeFunctionData({
        abi: AgentSpawnerAbi,
        functionName: "spawn",
        args: [`Bench Agent ${i}`, symbol, 0n, i % 2, metadata],
      }),
      gas: GAS.spawn,
      value: fee,
    });
  }
  await sender.mine();

  const spawned = await client.getContractEvents({
    address: contracts.AgentSpawner,
    abi: AgentSpawnerAbi,
    eventName: "AgentSpawned",
    fromBlock: "latest",
  });
  const tokens = spawned.map((e) => ({ address: e.args.token!, nftId: e.args.nftId! }));
  if (tokens.length !== tokenCount) throw new Error(`spawned ${tokens.length} of ${tokenCount} tokens`);

  // A spawn gives its creator nothing: each creator buys half its token's curve (the virtual
  // reserve's worth of the pool asset) before spreading it, like any buyer.
  for (const [i, event] of spawned.entries()) {
    const creator = holders[i];
    const stable = i % 2 === 0;
    const asset = stable ? contracts.MockStableToken : contracts.WrappedNative;
    const amount = stable ? parseUnits("10000", 6) : parseEther("5");
    if (stable)
      sender.add({
        from: creator,
        to: asset,
        data: encodeFunctionData({ abi: MOCK_ABI, functionName: "mint", args: [creator, amount] }),
        gas: GAS.setup,
      });
    else
      sender.add({
        from: creator,
        to: asset,
        data: encodeFunctionData({ abi: MOCK_ABI, functionName: "deposit" }),
        gas: GAS.setup,
        value: amount,
      });
    sender.add({
      from: creator,
      to: asset,
      data: encodeFunctionData({ abi: MOCK_ABI, functionName: "approve", args: [event.args.pool!, amount] }),
      gas: GAS.setup,
    });
    sender.add({
      from: creator,
      to: event.args.pool!,
      data: encodeFunctionData({ abi: AgentPoolAbi, functionName: "swapExactIn", args: [asset, amount, 0n, creator] }),
      gas: GAS.setup,
    });
  }
  await sender.mine();

  // Every holder gets 1% of every token, so any holder can send any token in the stream.
  for (const [i, token] of tokens.entries()) {
    for (const holder of holders) {
      if (holder === holders[i]) continue;
      sender.add({
        from: holders[i],
        to: token.address,
        data: transferData(holder, parseEther("10000000")),
        gas: GAS.transfer,
      });
    }
  }
  await sender.mine();
  // A reverted transfer is still mined, and the stream's transfers would then revert too.
  const last = holders.at(-1)!;
  for (const token of tokens) {
    const held = await client.readContract({
      address: token.address,
      abi: AgentTokenAbi,
      functionName: "balanceOf",
      args: [last],
    });
    if (held === 0n)
      throw new Error(`holder ${last} received none of token ${token.address}: the setup's transfers reverted`);
  }
  return {
    workerOperator: deployment.accounts.workerOperator,
    queen: accounts[QUEEN],
    scouts: SCOUTS.map((s) => accounts[s]),
    holders,
    tokens,
  };
}

const MOCK_ABI = parseAbi([
  "function mint(address to, uint256 amount)",
  "function deposit() payable",
  "function approve(address spender, uint256 amount) returns (bool)",
]);

const transferData = (to: Address, value: bigint) =>
  encodeFunctionData({ abi: AgentTokenAbi, functionName: "transfer", args: [to, value] });

/** A deterministic pool of recipient addresses, so transfers reach many distinct holders. */
export function recipients(count: number): Address[] {
  return Array.from({ length: count }, (_, i) => getAddress(keccak256(toHex(`bench-recipient-${i}`)).slice(0, 42)));
}

const WORKER_TYPES = ["trade", "rebalance", "config_update"];

/**
 * The i-th action: 7 in 10 by the worker operator (on any token: it runs every worker), 2 by
 * scouts (flags), 1 by the queen (directives); every 20th scout or queen action is an override.
 * An override suspends the token's worker (ActionLog), so overrides go to the first token and the
 * worker acts on the others (with one token, there are no overrides).
 */
function actionTx(actors: Actors, actionLog: Address, i: number) {
  const { tokens } = actors;
  const slot = i % 10;
  const overrides = tokens.length > 1 && (i % 20 === 7 || i % 20 === 9);
  const [from, type] =
    slot < 7
      ? [actors.workerOperator, WORKER_TYPES[i % WORKER_TYPES.length]]
      : slot < 9
        ? [actors.scouts[slot - 7], overrides ? "override" : "flag"]
        : [actors.queen, overrides ? "override" : "directive"];
  const spread = tokens[i % tokens.length];
  const token = overrides ? tokens[0] : slot < 7 && tokens.length > 1 && spread === tokens[0] ? tokens[1] : spread;
  const payload = stringToHex(
    JSON.stringify({ seq: i, side: i % 2 ? "buy" : "sell", amountIn: String(1_000_000 + i) }),
  );
  return {
    from,
    to: actionLog,
    data: encodeFunctionData({
      abi: ActionLogAbi,
      functionName: "record",
      args: [token.nftId, type, payload, "BENCH"],
    }),
    gas: GAS.action,
  };
}

/** The j-th transfer: holders take turns, each sending a rotating token to a rotating recipient. */
function transferTx(actors: Actors, to: Address[], j: number) {
  const holders = actors.holders;
  const from = holders[j % holders.length];
  const token = actors.tokens[Math.floor(j / holders.length) % actors.tokens.length];
  // One in four goes to another holder, the rest to the recipient pool.
  const recipient = j % 4 === 0 ? holders[(j + 1) % holders.length] : to[j % to.length];
  return { from, to: token.address, data: transferData(recipient, 10n ** 18n + BigInt(j)), gas: GAS.transfer };
}

/**
 * Mines `size.actions` action records and `size.transfers` transfers, interleaved evenly,
 * `size.txsPerBlock` per block. `offset` numbers actions after a previous stream's.
 */
export async function generateStream(
  url: string,
  deployment: Deployment,
  actors: Actors,
  size: StreamSize,
  {
    offset = 0,
    recipientCount = 5000,
    onBlock,
  }: { offset?: number; recipientCount?: number; onBlock?: (done: number) => void } = {},
) {
  const sender = new BlockSender(url);
  const to = recipients(recipientCount);
  const total = size.actions + size.transfers;
  let a = 0;
  let t = 0;
  for (let n = 0; n < total; n++) {
    // Whichever kind is behind its share goes next, so every block has both.
    if (t >= size.transfers || (a < size.actions && a * size.transfers <= t * size.actions)) {
      sender.add(actionTx(actors, deployment.contracts.ActionLog, offset + a++));
    } else {
      sender.add(transferTx(actors, to, offset + t++));
    }
    if (sender.size === size.txsPerBlock || n === total - 1) {
      await sender.mine();
      onBlock?.(n + 1);
    }
  }
  // A reverted record is still mined; the log's own counter says whether every one landed.
  const client = createPublicClient({ transport: http(url) });
  const entries = await client.readContract({
    address: deployment.contracts.ActionLog,
    abi: ActionLogAbi,
    functionName: "entryCount",
  });
  if (entries !== BigInt(offset + size.actions))
    throw new Error(`ActionLog has ${entries} entries, expected ${offset + size.actions}`);
  return { blocks: sender.blocks, transactions: sender.transactions };
}
