import { type Address, createWalletClient, type Hex, http, parseGwei } from "viem";
import { rpc } from "./chain.ts";

export interface Tx {
  from: Address;
  to: Address;
  data: Hex;
  gas: bigint;
  value?: bigint;
}

/**
 * Sends transactions from the node's unlocked accounts with nonces counted here, so a whole
 * block's worth can be in flight at once (no per-transaction nonce or gas look-ups), in JSON-RPC
 * batches, and mines them into one block with `evm_mine`.
 */
export class BlockSender {
  private readonly url: string;
  private readonly nonces = new Map<Address, number>();
  private readonly wallet;
  private pending: Tx[] = [];
  blocks = 0;
  transactions = 0;

  constructor(url: string) {
    this.url = url;
    // Calls made in the same tick go out as one HTTP request of up to batchSize calls.
    this.wallet = createWalletClient({ transport: http(url, { batch: { batchSize: 250 }, timeout: 300_000 }) });
  }

  add(tx: Tx) {
    this.pending.push(tx);
  }

  get size() {
    return this.pending.length;
  }

  /** Sends what was added and mines it into one block; throws if anything was left out. */
  async mine(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    for (const tx of batch) if (!this.nonces.has(tx.from)) this.nonces.set(tx.from, await this.startNonce(tx.from));
    await Promise.all(
      batch.map((tx) => {
        const nonce = this.nonces.get(tx.from)!;
        this.nonces.set(tx.from, nonce + 1);
        return this.wallet.sendTransaction({
          account: tx.from,
          chain: null,
          to: tx.to,
          data: tx.data,
          value: tx.value,
          gas: tx.gas,
          nonce,
          // Far above the base fee, which falls while blocks stay under half full.
          maxFeePerGas: parseGwei("50"),
          maxPriorityFeePerGas: 0n,
        });
      }),
    );
    await rpc(this.url, "evm_mine");
    const block = await rpc<{ transactions: Hex[] }>(this.url, "eth_getBlockByNumber", ["latest", false]);
    if (block.transactions.length !== batch.length) {
      throw new Error(
        `mined ${block.transactions.length} of ${batch.length} transactions into one block; raise the gas limit`,
      );
    }
    this.blocks++;
    this.transactions += batch.length;
  }

  private async startNonce(address: Address) {
    return Number(BigInt(await rpc<string>(this.url, "eth_getTransactionCount", [address, "pending"])));
  }
}
