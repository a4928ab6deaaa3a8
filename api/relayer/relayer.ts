import {
  type Account,
  type Address,
  type Hex,
  HttpRequestError,
  keccak256,
  parseTransaction,
  type PublicClient,
  RpcError,
  RpcRequestError,
  TimeoutError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from "viem";
import type { Journal, TxRow } from "./journal.ts";

/**
 * One relayer account sending the API's transactions. Nonces are handed out one at a time under a
 * lock, so concurrent requests get consecutive nonces; each transaction is signed here and
 * journalled (hash, nonce, raw bytes) before its bytes are broadcast, so a crash at any point
 * leaves a record to find it by. A transaction not mined within `replaceAfterMs` is signed again
 * with the same nonce and higher fees; whichever version is mined counts.
 */

export interface Call {
  readonly to: Address;
  readonly data: Hex;
  readonly value: bigint;
  readonly gas: bigint;
}

export interface RelayerOptions {
  readonly client: PublicClient;
  /** A local account (private key): it signs here, so the hash is known before broadcasting. */
  readonly account: Account & { signTransaction: NonNullable<Account["signTransaction"]> };
  readonly chainId: number;
  readonly journal: Journal;
  /** Most ms a write waits for its receipt before the caller is told it is still pending. */
  readonly receiptTimeoutMs: number;
  /** A transaction not mined after this many ms is replaced with 12.5% (at least) higher fees. */
  readonly replaceAfterMs: number;
  /** How often receipts are polled. */
  readonly pollMs: number;
  /** Below this native balance (beyond what the transaction itself needs) the relayer refuses to send. */
  readonly minBalanceWei: bigint;
  readonly now?: () => number;
  /** Called once the signed transaction is journalled, before its bytes are broadcast (the crash test). */
  readonly beforeBroadcast?: (tx: TxRow) => Promise<void> | void;
}

/** The relayer cannot send now (balance too low, the node refused or is away): 503. */
export class RelayerUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RelayerUnavailableError";
  }
}

/** The transaction was sent but not mined in time; it stays queued (and replaced if stuck). */
export class TxPendingError extends Error {
  readonly hash: Hex;

  constructor(hash: Hex) {
    super(`transaction ${hash} was sent but is not mined yet`);
    this.hash = hash;
    this.name = "TxPendingError";
  }
}

export class Relayer {
  readonly address: Address;
  private readonly options: RelayerOptions;
  private nextNonce: number | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly now: () => number;

  constructor(options: RelayerOptions) {
    this.options = options;
    this.address = options.account.address;
    this.now = options.now ?? Date.now;
  }

  /** Signs, journals and broadcasts `call` for write `writeId` with the next nonce. */
  async send(writeId: string, call: Call): Promise<TxRow> {
    const { client } = this.options;
    const fees = await client.estimateFeesPerGas();
    const balance = await client.getBalance({ address: this.address });
    const needed = call.value + call.gas * fees.maxFeePerGas + this.options.minBalanceWei;
    if (balance < needed)
      throw new RelayerUnavailableError(
        `the relayer's balance (${balance} wei) is below what the transaction needs plus its reserve (${needed} wei); the operator must top it up`,
      );
    return this.locked(async () => {
      const nonce = await this.takeNonce();
      try {
        return await this.signAndBroadcast(writeId, call, nonce, fees);
      } catch (error) {
        // Nothing of this nonce stayed journalled (the node refused the bytes, or the journal
        // failed): read the next one again, from the chain and the journal, rather than leave a gap.
        this.nextNonce = undefined;
        throw error;
      }
    });
  }

  /**
   * Waits until one of the write's transactions is mined and returns its receipt. Replaces a
   * stuck one; rebroadcasts one the node may never have received (at once with `nudge`, as after
   * a restart). Throws TxPendingError after `timeoutMs` (0: one look).
   */
  async mined(
    writeId: string,
    { timeoutMs = this.options.receiptTimeoutMs, nudge = false }: { timeoutMs?: number; nudge?: boolean } = {},
  ): Promise<TransactionReceipt> {
    const { client, journal } = this.options;
    const deadline = this.now() + timeoutMs;
    let lastBroadcast = nudge ? Number.NEGATIVE_INFINITY : this.now();
    for (;;) {
      const txs = await journal.txsOf(writeId);
      if (txs.length === 0) throw new Error(`write ${writeId} has no transaction`);
      for (const tx of txs) {
        const receipt = await client.getTransactionReceipt({ hash: tx.hash }).catch((error) => {
          if (error instanceof TransactionReceiptNotFoundError) return undefined;
          throw error;
        });
        if (receipt) return receipt;
      }
      const latest = txs[txs.length - 1]!;
      const t = this.now();
      if (t - latest.sentAt >= this.options.replaceAfterMs) await this.replace(latest);
      else if (t - lastBroadcast >= Math.min(5_000, this.options.replaceAfterMs / 2)) {
        lastBroadcast = t;
        await this.broadcast(latest.raw).catch(() => {});
      }
      if (t >= deadline) throw new TxPendingError(latest.hash);
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs));
    }
  }

  /** Broadcasts journalled bytes again (recovery, or a broadcast whose answer was lost). */
  async rebroadcast(tx: TxRow): Promise<void> {
    await this.broadcast(tx.raw);
  }

  /** The nonce the chain expects next from the relayer, counting what is pending. */
  pendingNonce(): Promise<number> {
    return this.options.client.getTransactionCount({ address: this.address, blockTag: "pending" });
  }

  private async replace(stuck: TxRow): Promise<void> {
    const { client } = this.options;
    const confirmed = await client.getTransactionCount({ address: this.address, blockTag: "latest" });
    // Another version of this nonce is mined: its receipt shows up on the next poll.
    if (confirmed > stuck.nonce) return;
    const previous = parseTransaction(stuck.raw);
    const current = await client.estimateFeesPerGas();
    const bump = (old: bigint | undefined, now: bigint) => {
      const raised = ((old ?? 0n) * 1125n) / 1000n + 1n;
      return raised > now ? raised : now;
    };
    const fees = {
      maxFeePerGas: bump(previous.maxFeePerGas, current.maxFeePerGas),
      maxPriorityFeePerGas: bump(previous.maxPriorityFeePerGas, current.maxPriorityFeePerGas),
    };
    const call = { to: previous.to!, data: previous.data ?? "0x", value: previous.value ?? 0n, gas: previous.gas! };
    await this.locked(() => this.signAndBroadcast(stuck.writeId, call, stuck.nonce, fees)).catch((error) => {
      // "replacement underpriced" or "already known": the old version stays in; keep polling.
      if (error instanceof RpcRequestError || error instanceof RpcError) return;
      throw error;
    });
  }

  private async signAndBroadcast(
    writeId: string,
    call: Call,
    nonce: number,
    fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  ): Promise<TxRow> {
    const raw = await this.options.account.signTransaction({
      type: "eip1559",
      chainId: this.options.chainId,
      nonce,
      to: call.to,
      data: call.data,
      value: call.value,
      gas: call.gas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const tx: TxRow = { hash: keccak256(raw), writeId, nonce, raw, sentAt: this.now() };
    await this.options.journal.addTx(tx);
    await this.options.beforeBroadcast?.(tx);
    try {
      await this.broadcast(raw);
    } catch (error) {
      // No answer (timeout, connection): the node may have the transaction. It is journalled and
      // mined() rebroadcasts it, so the nonce is not reused.
      if (error instanceof HttpRequestError || error instanceof TimeoutError) return tx;
      // Some nodes (Hardhat with automine) mine a reverting transaction and still answer with
      // the revert as an error: the nonce is used and the receipt says what happened.
      if (await this.options.client.getTransactionReceipt({ hash: tx.hash }).catch(() => undefined)) return tx;
      await this.options.journal.dropTx(tx.hash);
      throw error;
    }
    return tx;
  }

  private async broadcast(raw: Hex): Promise<void> {
    try {
      await this.options.client.sendRawTransaction({ serializedTransaction: raw });
    } catch (error) {
      if (/already known|known transaction|already imported/i.test(String((error as Error).message))) return;
      throw error;
    }
  }

  private async takeNonce(): Promise<number> {
    if (this.nextNonce === undefined) {
      const [chain, journalled] = await Promise.all([this.pendingNonce(), this.options.journal.maxNonce()]);
      this.nextNonce = Math.max(chain, journalled + 1);
    }
    const nonce = this.nextNonce;
    this.nextNonce = nonce + 1;
    return nonce;
  }

  /** Runs `task` after every earlier one: one nonce handed out, signed and broadcast at a time. */
  private locked<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }
}
