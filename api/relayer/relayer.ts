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
import type { Journal, NewWrite, TxRow } from "./journal.ts";
import { mark, now, span } from "../../lib/stage-trace.ts";
import { OrderedBatch } from "../../lib/ordered-batch.ts";

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
  /**
   * How long (ms) a fee estimate and the balance read are reused: one read per second serves
   * every write of that second (the reserve covers what a second of writes can spend). Default 1000.
   */
  readonly chainStateTtlMs?: number;
  /**
   * Where transactions sent privately go (a Flashbots-Protect-style endpoint that does not show
   * them before inclusion); without it, `private` sends are refused.
   */
  readonly privateClient?: PublicClient;
  /**
   * A client whose transport batches (viem `http` with `batch`): the transactions journalled while
   * a broadcast was out then go together in one JSON-RPC batch, in nonce order (a node runs a
   * batch's calls in order). bench:agents on PGlite: one broadcast at a time bounded the runtime at
   * 130-170 actions/s (each waited 73 ms p50 for its turn); batched, 217-258/s. Without it, one
   * broadcast at a time.
   */
  readonly broadcastClient?: PublicClient;
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
  /** Broadcasts in nonce order, each ticket taken with its nonce. */
  private readonly broadcasts: OrderedBatch<TxRow, Answered>;
  private readonly now: () => number;
  private readonly fees: Cached<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  private readonly balance: Cached<bigint>;
  /** Writes whose transactions (and their replacements and rebroadcasts) go only to the private client. */
  private readonly privateWrites = new Set<string>();
  /** Each signed transaction's gas limit: a broadcast batch's budget (MAX_BROADCAST_GAS). */
  private readonly gasOf = new WeakMap<TxRow, bigint>();
  /** Receipts that came back with their transaction's broadcast, for mined() to find at once. */
  private readonly receipts = new WeakMap<TxRow, TransactionReceipt>();

  constructor(options: RelayerOptions) {
    this.options = options;
    this.address = options.account.address;
    this.now = options.now ?? Date.now;
    const ttl = options.chainStateTtlMs ?? 1_000;
    this.fees = new Cached(ttl, this.now, () => options.client.estimateFeesPerGas());
    this.balance = new Cached(ttl, this.now, () => options.client.getBalance({ address: this.address }));
    this.broadcasts = new OrderedBatch(
      (txs) => this.broadcastAll(txs),
      options.broadcastClient ? MAX_BROADCAST_BATCH : 1,
      { weightOf: (tx) => Number(this.gasOf.get(tx) ?? 0n), max: MAX_BROADCAST_GAS },
    );
  }

  /**
   * Marks a write as private: its transactions are broadcast only through `privateClient`. Call
   * it before send() and again after a restart, before mined() (the journal does not keep it).
   */
  sendPrivately(writeId: string): void {
    if (this.options.privateClient === undefined)
      throw new RelayerUnavailableError("no private relay is configured for this relayer");
    this.privateWrites.add(writeId);
  }

  /**
   * Signs, journals and broadcasts `call` for write `writeId` with the next nonce. `newWrite`: the
   * write is not journalled yet and is journalled with its transaction (Journal.addTx).
   */
  async send(writeId: string, call: Call, { newWrite }: { newWrite?: NewWrite } = {}): Promise<TxRow> {
    const [fees, balance] = await span("feesBalance", () => Promise.all([this.fees.get(), this.balance.get()]));
    const needed = call.value + call.gas * fees.maxFeePerGas + this.options.minBalanceWei;
    if (balance < needed) this.balance.forget();
    if (balance < needed)
      throw new RelayerUnavailableError(
        `the relayer's balance (${balance} wei) is below what the transaction needs plus its reserve (${needed} wei); the operator must top it up`,
      );
    // One at a time, in nonce order: the nonce, the signature and the transaction's ticket in the
    // broadcast order. The journal write then overlaps earlier broadcasts; broadcasts keep nonce
    // order.
    for (let attempt = 1; ; attempt++) {
      const lockAt = now();
      const { tx, ticket } = await this.locked(async () => {
        mark("nonceLock", lockAt);
        const nonce = await this.takeNonce();
        return { tx: await this.sign(writeId, call, nonce, fees), ticket: this.broadcasts.take() };
      });
      try {
        return await this.journalAndBroadcast(tx, ticket, newWrite);
      } catch (error) {
        // Nothing of this nonce stayed journalled (the node refused the bytes, or the journal
        // failed): read the next one again, from the chain and the journal, rather than leave a
        // gap. A refusal by the node is tried once more with that nonce: another sender of the
        // same account (an operator's script) makes the remembered one stale.
        this.nextNonce = undefined;
        if (attempt >= 2 || !(error instanceof RpcError || error instanceof RpcRequestError)) throw error;
      }
    }
  }

  /**
   * Waits until one of the write's transactions is mined and returns its receipt. Replaces a
   * stuck one; rebroadcasts one the node may never have received (at once with `nudge`, as after
   * a restart). Throws TxPendingError after `timeoutMs` (0: one look). `sent`: the transaction
   * send() just returned for this write (its only one), so the journal need not be read.
   */
  async mined(
    writeId: string,
    {
      timeoutMs = this.options.receiptTimeoutMs,
      nudge = false,
      sent,
    }: { timeoutMs?: number; nudge?: boolean; sent?: TxRow } = {},
  ): Promise<TransactionReceipt> {
    const { client, journal } = this.options;
    const early = sent && this.receipts.get(sent);
    if (early) {
      mark("earlyReceipt");
      return early;
    }
    const deadline = this.now() + timeoutMs;
    let lastBroadcast = nudge ? Number.NEGATIVE_INFINITY : this.now();
    // Read once: later versions are the ones replace() signs here, appended as they are made.
    const txs = sent ? [sent] : await span("txsOf", () => journal.txsOf(writeId));
    if (txs.length === 0) throw new Error(`write ${writeId} has no transaction`);
    for (;;) {
      for (const tx of txs) {
        const receipt = await span("getReceipt", () => client.getTransactionReceipt({ hash: tx.hash })).catch(
          (error) => {
            if (error instanceof TransactionReceiptNotFoundError) return undefined;
            throw error;
          },
        );
        if (receipt) return receipt;
      }
      const latest = txs[txs.length - 1]!;
      const t = this.now();
      if (t - latest.sentAt >= this.options.replaceAfterMs) {
        const replacement = await this.replace(latest);
        if (replacement) txs.push(replacement);
      } else if (t - lastBroadcast >= Math.min(5_000, this.options.replaceAfterMs / 2)) {
        lastBroadcast = t;
        await this.broadcast(latest.raw, writeId).catch(() => {});
      }
      if (t >= deadline) throw new TxPendingError(latest.hash);
      await span("pollSleep", () => new Promise((resolve) => setTimeout(resolve, this.options.pollMs)));
    }
  }

  /** The nonce the chain expects next from the relayer, counting what is pending. */
  private pendingNonce(): Promise<number> {
    return this.options.client.getTransactionCount({ address: this.address, blockTag: "pending" });
  }

  private async replace(stuck: TxRow): Promise<TxRow | undefined> {
    const { client } = this.options;
    const confirmed = await client.getTransactionCount({ address: this.address, blockTag: "latest" });
    // Another version of this nonce is mined: its receipt shows up on the next poll.
    if (confirmed > stuck.nonce) return undefined;
    const previous = parseTransaction(stuck.raw);
    const current = await this.fees.get(true);
    const bump = (old: bigint | undefined, now: bigint) => {
      const raised = ((old ?? 0n) * 1125n) / 1000n + 1n;
      return raised > now ? raised : now;
    };
    const fees = {
      maxFeePerGas: bump(previous.maxFeePerGas, current.maxFeePerGas),
      maxPriorityFeePerGas: bump(previous.maxPriorityFeePerGas, current.maxPriorityFeePerGas),
    };
    const call = { to: previous.to!, data: previous.data ?? "0x", value: previous.value ?? 0n, gas: previous.gas! };
    const replacement = await this.sign(stuck.writeId, call, stuck.nonce, fees);
    return this.journalAndBroadcast(replacement).catch((error) => {
      // "replacement underpriced" or "already known": the old version stays in; keep polling.
      if (error instanceof RpcRequestError || error instanceof RpcError) return undefined;
      throw error;
    });
  }

  private async sign(
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
    this.gasOf.set(tx, call.gas);
    return tx;
  }

  /**
   * Journals `tx`, then broadcasts it: with a ticket, after the transactions before it (and with
   * those ready at the same time), else at once (a replacement of a nonce already in order).
   */
  private async journalAndBroadcast(tx: TxRow, ticket?: number, newWrite?: NewWrite): Promise<TxRow> {
    try {
      await span("addTx", () => this.options.journal.addTx(tx, newWrite));
      await this.options.beforeBroadcast?.(tx);
      try {
        const answered = await span("broadcast", () =>
          ticket === undefined
            ? this.broadcast(tx.raw, tx.writeId).then((): Answered => undefined)
            : this.broadcasts.submit(ticket, tx),
        );
        // A node that mines as it receives (Hardhat's automine) has the receipt already, which
        // saves mined() its first poll. Asked in the broadcast's own batch when there was one;
        // else just after, outside the broadcast order: inside it, one broadcast at a time, the
        // read lengthened every link (bench:agents: 94 ms p50 waiting for a turn).
        const receipt =
          answered !== undefined
            ? answered
            : await span("receipt", () =>
                this.options.client.getTransactionReceipt({ hash: tx.hash }).catch(() => undefined),
              );
        if (receipt) this.receipts.set(tx, receipt);
      } catch (error) {
        // No answer (timeout, connection): the node may have the transaction. It is journalled
        // and mined() rebroadcasts it, so the nonce is not reused.
        if (error instanceof HttpRequestError || error instanceof TimeoutError) return tx;
        // Some nodes (Hardhat with automine) mine a reverting transaction and still answer with
        // the revert as an error: the nonce is used and the receipt says what happened.
        if (await this.options.client.getTransactionReceipt({ hash: tx.hash }).catch(() => undefined)) return tx;
        await this.options.journal.dropTx(tx.hash);
        throw error;
      }
      return tx;
    } finally {
      if (ticket !== undefined) this.broadcasts.release(ticket);
    }
  }

  /**
   * Broadcasts `txs` in order, answering each: through the batching client in one JSON-RPC batch
   * (its calls issued in order in one tick) with their receipts asked after them in the same
   * batch, except that a private write's transaction goes alone through the private client,
   * between the ones before and after it. Without a batching client there is one at a time.
   */
  private async broadcastAll(txs: readonly TxRow[]): Promise<PromiseSettledResult<Answered>[]> {
    const results: PromiseSettledResult<Answered>[] = [];
    const batching = this.options.broadcastClient;
    for (let i = 0; i < txs.length; ) {
      const publicRun: TxRow[] = [];
      while (i < txs.length && !this.privateWrites.has(txs[i]!.writeId)) publicRun.push(txs[i++]!);
      if (publicRun.length > 0 && batching) {
        // The receipts are asked after every transaction's bytes. A receipt found is the
        // transaction's, whatever order the node answered in; reads of state at "latest" in the
        // same batch are not safe (Hardhat answered eth_call with the batch's last block).
        const sends = publicRun.map((tx) => this.broadcast(tx.raw, tx.writeId, batching));
        const receipts = publicRun.map((tx) =>
          batching.getTransactionReceipt({ hash: tx.hash }).catch((): Answered => null),
        );
        const sent = await Promise.allSettled(sends);
        const got = await Promise.all(receipts);
        for (const [j, s] of sent.entries())
          results.push(s.status === "fulfilled" ? { status: "fulfilled", value: got[j] ?? null } : s);
      } else for (const tx of publicRun) results.push(await this.broadcastOne(tx));
      if (i < txs.length) results.push(await this.broadcastOne(txs[i++]!));
    }
    return results;
  }

  /** One broadcast on its own, its receipt not asked. */
  private async broadcastOne(tx: TxRow): Promise<PromiseSettledResult<Answered>> {
    const [result] = await Promise.allSettled([this.broadcast(tx.raw, tx.writeId).then((): Answered => undefined)]);
    return result!;
  }

  private async broadcast(raw: Hex, writeId: string, publicClient = this.options.client): Promise<void> {
    const client = this.privateWrites.has(writeId) ? this.options.privateClient! : publicClient;
    try {
      await client.sendRawTransaction({ serializedTransaction: raw });
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

/** What a broadcast learnt of its receipt: asked in its batch (null: not there), or not asked. */
type Answered = TransactionReceipt | null | undefined;

/** Most transactions in one JSON-RPC batch (nodes cap a batch's size; Geth at 1000, some providers at 50). */
const MAX_BROADCAST_BATCH = 32;

/**
 * Most gas (the transactions' limits) in one broadcast batch. A batch is answered once its last
 * transaction is in (Hardhat mines each as it arrives), so every write in it waits for the whole
 * batch, and the node's time for a batch follows its gas. By count alone, bench:writes' spawns
 * (1.3M gas each with the margin) went 32 at a time and in lock-step: all estimating, then all
 * broadcasting, then all answered while the node idled (50-58 spawns/s, 1.56 of 2 cores busy).
 * 10M is about 8 spawns, which breaks the waves up, and still the full 32 votes (150k each).
 */
const MAX_BROADCAST_GAS = 10_000_000;

/** A value read from the chain, reused for `ttlMs`; concurrent readers share one read. */
class Cached<T> {
  private value: { at: number; read: Promise<T> } | undefined;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly load: () => Promise<T>;

  constructor(ttlMs: number, now: () => number, load: () => Promise<T>) {
    this.ttlMs = ttlMs;
    this.now = now;
    this.load = load;
  }

  get(fresh = false): Promise<T> {
    const t = this.now();
    if (fresh || this.value === undefined || t - this.value.at >= this.ttlMs) {
      const read = this.load();
      this.value = { at: t, read };
      read.catch(() => {
        if (this.value?.read === read) this.value = undefined;
      });
    }
    return this.value.read;
  }

  forget(): void {
    this.value = undefined;
  }
}
