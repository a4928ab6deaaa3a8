import { createServer, type Server } from "node:http";
import {
  type Address,
  custom,
  getAddress,
  type Hex,
  keccak256,
  numberToHex,
  parseTransaction,
  recoverTransactionAddress,
  type Transport,
} from "viem";

/**
 * A node whose transaction pool behaves as geth's (core/txpool/legacypool) in what a sender's
 * nonces and balance depend on, and nothing else (no EVM: a transaction moves its value and pays
 * its gas). Unlike Hardhat's automine, which refuses a nonce ahead of the account's next one, it
 * queues it: a nonce left unused stalls every later transaction of the account, as on every
 * production client.
 *
 * - The pending nonce is the state nonce plus the run of pooled transactions after it; later
 *   pooled ones are queued, never mined until the gap is filled.
 * - A new transaction is refused with geth's messages: `nonce too low` below the state nonce,
 *   `already known` for pooled bytes, `transaction underpriced` below the pool's tip,
 *   `insufficient funds for gas * price + value` when the balance does not cover its cost plus
 *   the cost of every other transaction of the account in the pool (pending and queued alike, as
 *   geth's ExistingExpenditure), and `replacement transaction underpriced` when a transaction at
 *   the same nonce is not outbid by 10% on both fees.
 * - Mining takes each account's executable transactions in nonce order; afterwards, as geth's
 *   demoteUnexecutables, a pooled transaction the balance no longer covers is dropped.
 * - With `automine` (geth --dev), every accepted transaction is followed by a block.
 *
 * Requests run one at a time in arrival order (a JSON-RPC batch in its order), so a test sees
 * exactly what the node saw.
 */

export interface FakeGethOptions {
  readonly chainId: number;
  /** Mine a block after every accepted transaction (default true). */
  readonly automine?: boolean;
  /** The base fee of every block (default 1 gwei). */
  readonly baseFeePerGas?: bigint;
  /** The pool's least priority fee (geth's --txpool.pricelimit; default 1 wei). */
  readonly minTip?: bigint;
}

interface Pooled {
  readonly hash: Hex;
  readonly raw: Hex;
  readonly from: Address;
  readonly to: Address | null;
  readonly nonce: number;
  readonly value: bigint;
  readonly gas: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly data: Hex;
}

export interface Mined extends Pooled {
  readonly blockNumber: number;
  readonly gasUsed: bigint;
  readonly effectiveGasPrice: bigint;
}

/** A JSON-RPC error as a node answers it. */
export class RpcFault extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

const refuse = (message: string) => new RpcFault(-32000, message);
const costOf = (tx: Pooled) => tx.value + tx.gas * tx.maxFeePerGas;
const GENESIS_HASH = `0x${"00".repeat(31)}01` as Hex;

export class FakeGeth {
  readonly chainId: number;
  automine: boolean;
  baseFeePerGas: bigint;
  readonly minTip: bigint;
  blockNumber = 0;
  /** Every transaction mined, in order. */
  readonly minedTxs: Mined[] = [];
  /** Every request as it arrived (method name only). */
  readonly calls: string[] = [];
  /** Runs before a raw transaction is judged; throwing an RpcFault refuses it (a test's adversary). */
  onSend?: (tx: Readonly<Pooled>) => void;
  /** True for a transaction the node takes but whose answer is lost (the sender sees a timeout). */
  loseAnswer?: (tx: Readonly<Pooled>) => boolean;
  /** Every refusal of the pool's own rules (not onSend's), in order. */
  readonly refusals: { readonly hash: Hex; readonly nonce: number; readonly message: string }[] = [];
  private readonly balances = new Map<Address, bigint>();
  private readonly nonces = new Map<Address, number>();
  private readonly pool = new Map<Address, Map<number, Pooled>>();
  private readonly byHash = new Map<Hex, Pooled>();
  private readonly minedByHash = new Map<Hex, Mined>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: FakeGethOptions) {
    this.chainId = options.chainId;
    this.automine = options.automine ?? true;
    this.baseFeePerGas = options.baseFeePerGas ?? 1_000_000_000n;
    this.minTip = options.minTip ?? 1n;
  }

  setBalance(address: Address, wei: bigint): void {
    this.balances.set(getAddress(address), wei);
  }

  balanceOf(address: Address): bigint {
    return this.balances.get(getAddress(address)) ?? 0n;
  }

  /** The account's nonce in the last block. */
  stateNonce(address: Address): number {
    return this.nonces.get(getAddress(address)) ?? 0;
  }

  /** geth's pending nonce: the state nonce plus the run of pooled transactions after it. */
  pendingNonce(address: Address): number {
    const from = getAddress(address);
    const list = this.pool.get(from);
    let nonce = this.stateNonce(from);
    while (list?.has(nonce)) nonce++;
    return nonce;
  }

  /** Nonces pooled but not executable: waiting behind a gap. */
  queued(address: Address): number[] {
    const pending = this.pendingNonce(address);
    return [...(this.pool.get(getAddress(address))?.keys() ?? [])].filter((n) => n > pending).sort((a, b) => a - b);
  }

  /** Every pooled transaction of the account, by nonce. */
  pooled(address: Address): Pooled[] {
    return [...(this.pool.get(getAddress(address))?.values() ?? [])].sort((a, b) => a.nonce - b.nonce);
  }

  minedTx(hash: Hex): Mined | undefined {
    return this.minedByHash.get(hash);
  }

  /** Judges raw bytes as geth's pool does; returns the hash or throws an RpcFault. */
  async sendRawTransaction(raw: Hex): Promise<Hex> {
    const tx = await this.decode(raw);
    this.onSend?.(tx);
    try {
      this.add(tx);
    } catch (error) {
      this.refusals.push({ hash: tx.hash, nonce: tx.nonce, message: (error as Error).message });
      throw error;
    }
    if (this.automine) this.mine();
    if (this.loseAnswer?.(tx)) throw new RpcFault(-32603, "request timed out");
    return tx.hash;
  }

  private add(tx: Pooled): void {
    if (this.byHash.has(tx.hash)) throw refuse("already known");
    const state = this.stateNonce(tx.from);
    if (tx.nonce < state) throw refuse(`nonce too low: address ${tx.from}, tx: ${tx.nonce} state: ${state}`);
    if (tx.gas < 21_000n) throw refuse(`intrinsic gas too low: gas ${tx.gas}, minimum needed 21000`);
    if (tx.maxPriorityFeePerGas > tx.maxFeePerGas) throw refuse("max priority fee per gas higher than max fee per gas");
    if (tx.maxPriorityFeePerGas < this.minTip)
      throw refuse(`transaction underpriced: tip needed ${this.minTip}, tip permitted ${tx.maxPriorityFeePerGas}`);
    // core/txpool/validation.go, ValidateTransactionWithState.
    const balance = this.balanceOf(tx.from);
    const cost = costOf(tx);
    if (balance < cost)
      throw refuse(
        `insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`,
      );
    const list = this.pool.get(tx.from) ?? new Map<number, Pooled>();
    const spent = [...list.values()].reduce((sum, p) => sum + costOf(p), 0n);
    const previous = list.get(tx.nonce);
    const need = previous ? spent + cost - costOf(previous) : spent + cost;
    if (balance < need)
      throw refuse(
        `insufficient funds for gas * price + value: balance ${balance}, queued cost ${spent}, tx cost ${cost}, overshot ${need - balance}`,
      );
    if (previous) {
      // legacypool list.Add with the default 10% price bump.
      const bumped = (old: bigint) => (old * 110n) / 100n;
      if (
        tx.maxFeePerGas <= previous.maxFeePerGas ||
        tx.maxPriorityFeePerGas <= previous.maxPriorityFeePerGas ||
        tx.maxFeePerGas < bumped(previous.maxFeePerGas) ||
        tx.maxPriorityFeePerGas < bumped(previous.maxPriorityFeePerGas)
      )
        throw refuse("replacement transaction underpriced");
      this.byHash.delete(previous.hash);
    }
    list.set(tx.nonce, tx);
    this.pool.set(tx.from, list);
    this.byHash.set(tx.hash, tx);
  }

  /** One block: every account's executable transactions, in nonce order. */
  mine(): Mined[] {
    const block = ++this.blockNumber;
    const mined: Mined[] = [];
    for (const [from, list] of this.pool) {
      for (let nonce = this.stateNonce(from); list.has(nonce); nonce++) {
        const tx = list.get(nonce)!;
        if (tx.maxFeePerGas < this.baseFeePerGas) break;
        // The sender must afford the gas limit at its fee cap (core/state_transition.go buyGas).
        if (this.balanceOf(from) < costOf(tx)) break;
        const price = this.baseFeePerGas + tx.maxPriorityFeePerGas;
        const effectiveGasPrice = price < tx.maxFeePerGas ? price : tx.maxFeePerGas;
        const intrinsic = 21_000n + 16n * BigInt((tx.data.length - 2) / 2);
        const gasUsed = intrinsic < tx.gas ? intrinsic : tx.gas;
        this.balances.set(from, this.balanceOf(from) - tx.value - gasUsed * effectiveGasPrice);
        if (tx.to) this.balances.set(tx.to, this.balanceOf(tx.to) + tx.value);
        this.nonces.set(from, nonce + 1);
        list.delete(nonce);
        this.byHash.delete(tx.hash);
        const done: Mined = { ...tx, blockNumber: block, gasUsed, effectiveGasPrice };
        this.minedByHash.set(tx.hash, done);
        this.minedTxs.push(done);
        mined.push(done);
      }
      // demoteUnexecutables: what the balance no longer covers leaves the pool.
      const balance = this.balanceOf(from);
      for (const [nonce, tx] of list) {
        if (nonce < this.stateNonce(from) || costOf(tx) > balance) {
          list.delete(nonce);
          this.byHash.delete(tx.hash);
        }
      }
    }
    return mined;
  }

  /** Answers one JSON-RPC call (after every call that arrived before it). */
  request(method: string, params: readonly unknown[] = []): Promise<unknown> {
    const run = this.queue.then(() => this.answer(method, params));
    this.queue = run.catch(() => {});
    return run;
  }

  /** A viem transport straight to this node (no sockets); errors reach viem as a node's would. */
  transport(): Transport {
    return custom({ request: ({ method, params }) => this.request(method, (params ?? []) as unknown[]) });
  }

  /** Serves JSON-RPC over HTTP on 127.0.0.1 (batches answered in order), for viem's http transport. */
  async serve(): Promise<{ url: string; close(): Promise<void> }> {
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as RpcCall | RpcCall[];
        const one = async ({ id, method, params }: RpcCall) => {
          try {
            return { jsonrpc: "2.0", id, result: (await this.request(method, params ?? [])) ?? null };
          } catch (error) {
            const fault = error instanceof RpcFault ? error : new RpcFault(-32603, (error as Error).message);
            return { jsonrpc: "2.0", id, error: { code: fault.code, message: fault.message } };
          }
        };
        const answer = Array.isArray(body) ? await Promise.all(body.map(one)) : await one(body);
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    return {
      url: `http://127.0.0.1:${port}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  private async answer(method: string, params: readonly unknown[]): Promise<unknown> {
    this.calls.push(method);
    switch (method) {
      case "eth_chainId":
        return numberToHex(this.chainId);
      case "eth_blockNumber":
        return numberToHex(this.blockNumber);
      case "eth_getBalance":
        return numberToHex(this.balanceOf(params[0] as Address));
      case "eth_getTransactionCount": {
        const address = params[0] as Address;
        return numberToHex(params[1] === "pending" ? this.pendingNonce(address) : this.stateNonce(address));
      }
      case "eth_maxPriorityFeePerGas":
        return numberToHex(this.minTip > 1_000_000_000n ? this.minTip : 1_000_000_000n);
      case "eth_getBlockByNumber":
        return this.block();
      case "eth_sendRawTransaction":
        return this.sendRawTransaction(params[0] as Hex);
      case "eth_getTransactionReceipt": {
        const tx = this.minedByHash.get(params[0] as Hex);
        return tx ? receiptOf(tx) : null;
      }
      default:
        throw new RpcFault(-32601, `the method ${method} does not exist/is not available`);
    }
  }

  private block() {
    return {
      number: numberToHex(this.blockNumber),
      hash: this.blockNumber === 0 ? GENESIS_HASH : keccak256(numberToHex(this.blockNumber)),
      parentHash: GENESIS_HASH,
      timestamp: numberToHex(1_700_000_000 + this.blockNumber),
      baseFeePerGas: numberToHex(this.baseFeePerGas),
      gasLimit: numberToHex(30_000_000),
      gasUsed: "0x0",
      transactions: [],
    };
  }

  private async decode(raw: Hex): Promise<Pooled> {
    let parsed: ReturnType<typeof parseTransaction>;
    let from: Address;
    try {
      parsed = parseTransaction(raw);
      from = await recoverTransactionAddress({ serializedTransaction: raw as never });
    } catch (error) {
      throw refuse(`rlp: ${(error as Error).message.split("\n")[0]}`);
    }
    if (parsed.type !== "eip1559") throw refuse("transaction type not supported");
    if (parsed.chainId !== this.chainId) throw refuse(`invalid chain id: have ${parsed.chainId} want ${this.chainId}`);
    return {
      hash: keccak256(raw),
      raw,
      from: getAddress(from),
      to: parsed.to ? getAddress(parsed.to) : null,
      nonce: parsed.nonce ?? 0,
      value: parsed.value ?? 0n,
      gas: parsed.gas ?? 0n,
      maxFeePerGas: parsed.maxFeePerGas ?? 0n,
      maxPriorityFeePerGas: parsed.maxPriorityFeePerGas ?? 0n,
      data: parsed.data ?? "0x",
    };
  }
}

interface RpcCall {
  readonly id: number;
  readonly method: string;
  readonly params?: unknown[];
}

function receiptOf(tx: Mined) {
  return {
    transactionHash: tx.hash,
    transactionIndex: "0x0",
    blockHash: keccak256(numberToHex(tx.blockNumber)),
    blockNumber: numberToHex(tx.blockNumber),
    from: tx.from,
    to: tx.to,
    cumulativeGasUsed: numberToHex(tx.gasUsed),
    gasUsed: numberToHex(tx.gasUsed),
    effectiveGasPrice: numberToHex(tx.effectiveGasPrice),
    contractAddress: null,
    logs: [],
    logsBloom: `0x${"00".repeat(256)}`,
    status: "0x1",
    type: "0x2",
  };
}
