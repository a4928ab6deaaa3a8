import { type Address, type Hash, parseAbiItem, type PublicClient } from "viem";
import type { ChainBlock, ChainTransfer } from "../../../core/deposits/index.ts";

// Reads blocks for the deposit watcher: each block's hash and parent, and the transfers in it to
// deposit addresses. Token deposits are the tokens' Transfer logs; native deposits are top-level
// transactions with value to a deposit address that succeeded (a contract that forwards the
// coin by an internal call is not seen, as at most custodians; the README says so). Logs are
// read for a range and each is checked against the block hash read for its height: a log from
// another branch means a reorganisation under the read, and the range is read again.

const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
/** logIndex of a native deposit: a transaction carries at most one value transfer. */
export const NATIVE_LOG_INDEX = -1;

export interface ReadRange {
  readonly from: number;
  readonly to: number;
  /** Token contracts (lower-case) to read Transfer logs of. */
  readonly tokens: readonly Address[];
  /** Whether native-coin deposits are watched (a currency is the native coin). */
  readonly native: boolean;
  /** The user of a deposit address (lower-case), or undefined for any other address. */
  readonly userOf: (address: string) => string | undefined;
}

export class ReorgDuringRead extends Error {}

export class ChainReader {
  private readonly client: PublicClient;

  constructor(client: PublicClient) {
    this.client = client;
  }

  async head(): Promise<number> {
    return Number(await this.client.getBlockNumber({ cacheTime: 0 }));
  }

  /** The hash of the block at `number` on the node's current branch. */
  async hashAt(number: number): Promise<string> {
    return (await this.client.getBlock({ blockNumber: BigInt(number) })).hash;
  }

  /** Blocks `from..to`, in order, each with its transfers to deposit addresses. */
  async read(range: ReadRange): Promise<ChainBlock[]> {
    const numbers = Array.from({ length: range.to - range.from + 1 }, (_, i) => range.from + i);
    const [blocks, logs] = await Promise.all([
      Promise.all(
        numbers.map((n) => this.client.getBlock({ blockNumber: BigInt(n), includeTransactions: range.native })),
      ),
      range.tokens.length === 0
        ? Promise.resolve([])
        : this.client.getLogs({
            address: [...range.tokens],
            event: TRANSFER,
            fromBlock: BigInt(range.from),
            toBlock: BigInt(range.to),
          }),
    ]);
    const hashAt = new Map(blocks.map((b) => [Number(b.number), b.hash as string]));
    const transfers = new Map<number, ChainTransfer[]>(numbers.map((n) => [n, []]));
    for (const log of logs) {
      const at = Number(log.blockNumber);
      if (hashAt.get(at) !== log.blockHash) throw new ReorgDuringRead(`block ${at} changed while it was read`);
      const to = log.args.to?.toLowerCase();
      const value = log.args.value;
      if (to === undefined || value === undefined || value === 0n || range.userOf(to) === undefined) continue;
      transfers.get(at)!.push({
        txHash: log.transactionHash.toLowerCase(),
        logIndex: log.logIndex,
        asset: log.address.toLowerCase(),
        to,
        amount: value,
      });
    }
    if (range.native) await this.addNativeTransfers(blocks, range.userOf, transfers);
    return blocks.map((block) => ({
      number: Number(block.number),
      hash: block.hash,
      parentHash: block.parentHash,
      transfers: transfers.get(Number(block.number))!,
    }));
  }

  private async addNativeTransfers(
    blocks: readonly { number: bigint; hash: Hash; transactions: readonly unknown[] }[],
    userOf: (address: string) => string | undefined,
    transfers: Map<number, ChainTransfer[]>,
  ): Promise<void> {
    const candidates: { number: number; blockHash: string; hash: Hash; to: string; value: bigint }[] = [];
    for (const block of blocks)
      for (const tx of block.transactions as { hash: Hash; to: Address | null; value: bigint }[]) {
        const to = tx.to?.toLowerCase();
        if (to !== undefined && tx.value > 0n && userOf(to) !== undefined)
          candidates.push({ number: Number(block.number), blockHash: block.hash, hash: tx.hash, to, value: tx.value });
      }
    const receipts = await Promise.all(candidates.map((c) => this.client.getTransactionReceipt({ hash: c.hash })));
    for (const [i, c] of candidates.entries()) {
      const receipt = receipts[i]!;
      if (receipt.blockHash !== c.blockHash) throw new ReorgDuringRead(`block ${c.number} changed while it was read`);
      if (receipt.status !== "success") continue;
      transfers.get(c.number)!.push({
        txHash: c.hash.toLowerCase(),
        logIndex: NATIVE_LOG_INDEX,
        asset: "native",
        to: c.to,
        amount: c.value,
      });
    }
  }
}
