/**
 * Chain activity for the reorg and restart tests, sent through the same contracts and wallets
 * the seed uses (local accounts: 0 admin, 2 worker operator, 4..9 users, 10 queen, 11/12 scouts,
 * 13..19 free for new spawns).
 */
import { type Address, parseEther, stringToHex } from "viem";
import type { Deployment } from "../../lib/deployments.ts";
import type { Viem } from "./harness.ts";

export const ACCOUNTS = {
  admin: 0,
  workerOperator: 2,
  users: [4, 5, 6, 7, 8, 9],
  queen: 10,
  scouts: [11, 12],
} as const;

export async function activity(viem: Viem, contracts: Deployment["contracts"]) {
  const publicClient = await viem.getPublicClient();
  const wallets = await viem.getWalletClients();
  const spawner = await viem.getContractAt("AgentSpawner", contracts.AgentSpawner);
  const actionLog = await viem.getContractAt("ActionLog", contracts.ActionLog);
  const stable = await viem.getContractAt("MockStableToken", contracts.MockStableToken);
  const as = (index: number) => ({ account: wallets[index].account });
  const wait = async (hash: Promise<`0x${string}`>) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
    if (receipt.status !== "success") throw new Error(`transaction ${receipt.transactionHash} reverted`);
    return receipt;
  };
  const fee = await spawner.read.spawnFee();
  const testClient = await viem.getTestClient();
  const contracts_ = new Map<string, unknown>();
  /** One contract instance per address (building one reads its artifact). */
  const contract = async <N extends "AgentToken" | "AgentPool">(name: N, address: Address) => {
    const key = `${name}:${address}`;
    if (!contracts_.has(key)) contracts_.set(key, await viem.getContractAt(name, address));
    return contracts_.get(key) as Awaited<ReturnType<typeof viem.getContractAt<N>>>;
  };

  /**
   * Mines the transactions `send` submits into one block: automine is off while they are sent.
   * Every one must succeed; returns their receipts.
   */
  const minedTogether = async (send: (hashes: `0x${string}`[]) => Promise<void>) => {
    const hashes: `0x${string}`[] = [];
    await testClient.setAutomine(false);
    try {
      await send(hashes);
      await testClient.mine({ blocks: 1 });
    } finally {
      await testClient.setAutomine(true);
    }
    // Mined already: read the receipts instead of polling for them.
    const receipts = await Promise.all(hashes.map((hash) => publicClient.getTransactionReceipt({ hash })));
    const failed = receipts.find((r) => r.status !== "success");
    if (failed) throw new Error(`transaction ${failed.transactionHash} reverted`);
    return receipts;
  };

  return {
    wallets,
    address: (index: number) => wallets[index].account.address as Address,

    /** Spawns a default-supply token for account `owner`; returns its addresses and ids. */
    async spawn(owner: number, symbol: string, side: 0 | 1) {
      const metadata = {
        description: `${symbol} test agent`,
        logoUri: "",
        website: `https://example.org/${symbol.toLowerCase()}`,
      };
      const receipt = await wait(
        spawner.write.spawn([`${symbol} Agent`, symbol, 0n, side, metadata], { ...as(owner), value: fee }),
      );
      const [event] = await spawner.getEvents.AgentSpawned({}, { blockHash: receipt.blockHash });
      const { token, pool, nftId, workerId } = event.args;
      return { token: token!, pool: pool!, nftId: nftId!, workerId: workerId!, receipt };
    },

    /**
     * The creator's own stake of a token it just spawned, bought on the curve in one block
     * (mint mUSD, approve, buy): a spawn gives nobody tokens.
     */
    async buyStake(owner: number, poolAddress: Address, stableAmount: bigint) {
      const pool = await contract("AgentPool", poolAddress);
      const from = wallets[owner].account.address;
      return minedTogether(async (hashes) => {
        // Explicit gas: each estimate would otherwise run before the previous transaction is mined.
        hashes.push(await stable.write.mint([from, stableAmount], { ...as(owner), gas: 100_000n }));
        hashes.push(await stable.write.approve([poolAddress, stableAmount], { ...as(owner), gas: 100_000n }));
        hashes.push(
          await pool.write.swapExactIn([contracts.MockStableToken, stableAmount, 0n, from], {
            ...as(owner),
            gas: 300_000n,
          }),
        );
      });
    },

    /** Records an action as the operator account `operator`. */
    async act(operator: number, targetNftId: bigint, actionType: string, payload: object, reasonCode: string) {
      return wait(
        actionLog.write.record(
          [targetNftId, actionType, stringToHex(JSON.stringify(payload)), reasonCode],
          as(operator),
        ),
      );
    },

    async transfer(tokenAddress: Address, from: number, to: number, amount: bigint) {
      const token = await viem.getContractAt("AgentToken", tokenAddress);
      return wait(token.write.transfer([wallets[to].account.address, amount], as(from)));
    },

    /** Buys with (side 0) stable units or sells tokens into the pool, 5% slippage guard. */
    async swap(poolAddress: Address, tokenIn: Address, user: number, amount: bigint) {
      const pool = await viem.getContractAt("AgentPool", poolAddress);
      const [expected] = await pool.read.quote([tokenIn, amount]);
      return wait(
        pool.write.swapExactIn([tokenIn, amount, (expected * 95n) / 100n, wallets[user].account.address], as(user)),
      );
    },

    /**
     * Mines the transactions `send` submits into one block: automine is off while they are
     * sent, so they share the block. Every one must succeed.
     */
    async inOneBlock(send: (tx: Batch) => Promise<void>) {
      const receipts = await minedTogether((hashes) =>
        send({
          act: async (operator, targetNftId, actionType, payload, reasonCode) => {
            hashes.push(
              await actionLog.write.record(
                [targetNftId, actionType, stringToHex(JSON.stringify(payload)), reasonCode],
                as(operator),
              ),
            );
          },
          transfer: async (tokenAddress, from, to, amount) => {
            const token = await contract("AgentToken", tokenAddress);
            hashes.push(await token.write.transfer([wallets[to].account.address, amount], as(from)));
          },
          buy: async (poolAddress, user, amount) => {
            // No slippage guard: the quote would be stale within a shared block.
            const pool = await contract("AgentPool", poolAddress);
            hashes.push(
              await pool.write.swapExactIn(
                [contracts.MockStableToken, amount, 0n, wallets[user].account.address],
                as(user),
              ),
            );
          },
        }),
      );
      if (new Set(receipts.map((r) => r.blockNumber)).size > 1) throw new Error("the batch spans several blocks");
      return receipts;
    },

    stableAddress: contracts.MockStableToken as Address,
    stable,
    parseEther,
  };
}

export type Activity = Awaited<ReturnType<typeof activity>>;

/** Transactions of one block (see `inOneBlock`). */
export interface Batch {
  act(operator: number, targetNftId: bigint, actionType: string, payload: object, reasonCode: string): Promise<void>;
  transfer(tokenAddress: Address, from: number, to: number, amount: bigint): Promise<void>;
  buy(poolAddress: Address, user: number, stableAmount: bigint): Promise<void>;
}
