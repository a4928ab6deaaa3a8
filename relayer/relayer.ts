import { UnavailableError } from "../lib/unavailable.ts";
import {
  type Account,
  type Address,
  type Hex,
  keccak256,
  parseTransaction,
  type PublicClient,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from "viem";
import type { FillerRow, Journal, NewWrite, TxRow } from "./journal.ts";
import { costOf, costOfRaw, InFlight, type Refusal, refusalOf } from "./nonces.ts";
import { mark, now, span } from "../lib/stage-trace.ts";
import { OrderedBatch } from "../lib/ordered-batch.ts";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * One relayer account sending the API's transactions. Nonces are handed out one at a time under a
 * lock, so concurrent requests get consecutive nonces; each transaction is signed here and
 * journalled (hash, nonce, raw bytes) before its bytes are broadcast, so a crash at any point
 * leaves a record to find it by. A transaction not mined within `replaceAfterMs` is signed again
 * with the same nonce and higher fees; whichever version is mined counts.
 *
 * A nonce once taken is always used: by its write's transaction (or a replacement), or by a
 * filler, a zero-value transfer to the relayer itself, journalled before it is broadcast. A node
 * that queues future nonces (geth and every production client) holds every later transaction of
 * the account behind an unused one, so one refused transaction would stop every write. A write
 * whose bytes the node refuses fails and its nonce is filled (refused for its fees, it is first
 * re-signed with fresh ones). A gap found later (the node's next nonce is one signed here that it
 * lacks: bytes journalled before a crash and never broadcast, or dropped by the node) is repaired:
 * the journalled write is sent again, and filled if the node refuses it.
 *
 * A transaction is sent only if the balance covers it on top of what every transaction in flight
 * may still spend (value plus gas limit times fee cap), as the node itself counts them.
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
  /**
   * Below this native balance (beyond what the transaction itself and every one in flight may
   * spend) the relayer refuses to send.
   */
  readonly minBalanceWei: bigint;
  readonly now?: () => number;
  /**
   * How long (ms) a fee estimate and the balance read (with the count of mined nonces) are reused:
   * one read per second serves every write of that second, each counted against it with every
   * transaction sent and not mined by then. Default 1000.
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

/**
 * The write's transaction will never be mined: the node refused its bytes and a filler used its
 * nonce. Nothing of the write was done; its transactions are forgotten (so a reconcile abandons it).
 */
export class TxDroppedError extends UnavailableError {
  readonly hash: Hex;
  readonly filler: Hex;

  constructor(hash: Hex, filler: Hex) {
    super(
      "relayer",
      `transaction ${hash} was refused by the node and its nonce filled by ${filler}; nothing of the write was done`,
    );
    this.hash = hash;
    this.filler = filler;
    this.name = "TxDroppedError";
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
  /** The highest nonce this process handed out, or -1. */
  private highestTaken = -1;
  /** The highest nonce the journal held when last read (undefined: not read yet). */
  private journalTop: number | undefined;
  /** Nonces handed out whose first broadcast is not settled yet: a repair leaves them alone. */
  private readonly sending = new Set<number>();
  /** Nonces given up whose filler could not be journalled yet (the journal failed): the next repair fills them. */
  private readonly unfilled = new Set<number>();
  /** The fillers signed here or found in the journal, by nonce: their write was given up. */
  private readonly fillers = new Map<number, FillerRow[]>();
  private readonly inFlight = new InFlight();
  private inFlightLoaded = false;
  private queue: Promise<unknown> = Promise.resolve();
  /** Broadcasts in nonce order, each ticket taken with its nonce. */
  private readonly broadcasts: OrderedBatch<TxRow, Answered>;
  private readonly now: () => number;
  private readonly fees: Cached<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  private readonly chainState: Cached<ChainState>;
  /** The newest chain state read (the one the balance check uses). */
  private state: ChainState | undefined;
  private stateReads = 0;
  private repairing: Promise<void> | undefined;
  private repairNext: Promise<void> | undefined;
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
    this.chainState = new Cached(ttl, this.now, async () => {
      const seq = ++this.stateReads;
      // The nonce first, then the balance: a transaction mined between the two reads is then both
      // spent in the balance and counted in flight (too careful), never neither.
      const confirmed = await options.client.getTransactionCount({ address: this.address, blockTag: "latest" });
      const balance = await options.client.getBalance({ address: this.address });
      const state = { confirmed, balance, seq };
      if (this.state === undefined || seq > this.state.seq) this.state = state;
      return state;
    });
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
      throw new UnavailableError("relayer", "no private relay is configured for this relayer");
    this.privateWrites.add(writeId);
  }

  /**
   * Signs, journals and broadcasts `call` for write `writeId` with the next nonce. `newWrite`: the
   * write is not journalled yet and is journalled with its transaction (Journal.addTx). Throws
   * UnavailableError, taking no nonce, when the balance does not cover the call on top of
   * what is in flight; the node's refusal when it refuses the bytes (the nonce then filled).
   */
  async send(writeId: string, call: Call, { newWrite }: { newWrite?: NewWrite } = {}): Promise<TxRow> {
    const [fees] = await span("feesBalance", () => Promise.all([this.fees.get(), this.chainState.get()]));
    // One at a time, in nonce order: the balance check, the nonce, the signature and the
    // transaction's ticket in the broadcast order. The journal write then overlaps earlier
    // broadcasts; broadcasts keep nonce order.
    for (let attempt = 1; ; attempt++) {
      const lockAt = now();
      const { tx, ticket } = await this.locked(async () => {
        mark("nonceLock", lockAt);
        await this.loadInFlight();
        await this.readNonce();
        this.reserve(call, fees.maxFeePerGas);
        const nonce = this.takeNonce();
        this.inFlight.commit(nonce, costOf({ ...call, maxFeePerGas: fees.maxFeePerGas }));
        this.sending.add(nonce);
        try {
          return { tx: await this.sign(writeId, call, nonce, fees), ticket: this.broadcasts.take() };
        } catch (error) {
          this.sending.delete(nonce);
          this.unfilled.add(nonce);
          void this.repairGaps();
          throw error;
        }
      });
      try {
        return await this.journalAndBroadcast(tx, ticket, newWrite);
      } catch (error) {
        if (!(error instanceof NonceTaken)) throw error;
        if (attempt >= 2) throw error.refusal;
      } finally {
        this.sending.delete(tx.nonce);
      }
    }
  }

  /**
   * Waits until one of the write's transactions is mined and returns its receipt. Replaces a
   * stuck one; rebroadcasts one the node may never have received (at once with `nudge`, as after
   * a restart). Throws TxPendingError after `timeoutMs` (0: one look), TxDroppedError once a
   * filler is mined at its nonce. `sent`: the transaction send() just returned for this write (its
   * only one), so the journal need not be read.
   */
  async mined(
    writeId: string,
    {
      timeoutMs = this.options.receiptTimeoutMs,
      nudge = false,
      sent,
    }: { timeoutMs?: number; nudge?: boolean; sent?: TxRow } = {},
  ): Promise<TransactionReceipt> {
    const { journal } = this.options;
    const early = sent && this.receipts.get(sent);
    if (early) {
      mark("earlyReceipt");
      return early;
    }
    const deadline = this.now() + timeoutMs;
    let lastBroadcast = nudge ? Number.NEGATIVE_INFINITY : this.now();
    let lastRepair = Number.NEGATIVE_INFINITY;
    const every = Math.min(5_000, this.options.replaceAfterMs / 2);
    // Read once: later versions are the ones replace() signs here, appended as they are made.
    const txs = sent ? [sent] : await span("txsOf", () => journal.txsOf(writeId));
    if (txs.length === 0) throw new Error(`write ${writeId} has no transaction`);
    const nonce = txs[0]!.nonce;
    // After a restart: a filler an earlier process signed when it gave this write up.
    if (nudge) for (const filler of await journal.fillersAt(nonce)) this.remember(filler);
    for (;;) {
      const receipt = await this.receiptOf(txs);
      if (receipt) return receipt;
      const fillers = this.fillers.get(nonce);
      const filled = fillers && (await this.receiptOf(fillers));
      if (filled) {
        for (const tx of await journal.txsOf(writeId)) await journal.dropTx(tx.hash);
        throw new TxDroppedError(txs[txs.length - 1]!.hash, filled.transactionHash);
      }
      const latest = txs[txs.length - 1]!;
      const t = this.now();
      if (t - latest.sentAt >= this.options.replaceAfterMs) {
        // Stuck, maybe behind a nonce the node lacks.
        if (t - lastRepair >= every) {
          lastRepair = t;
          await this.repairGaps();
        }
        const replacement = this.fillers.has(nonce) ? undefined : await this.replace(latest);
        if (replacement) txs.push(replacement);
      } else if (!fillers && t - lastBroadcast >= every) {
        lastBroadcast = t;
        const answer = await this.tryBroadcast(latest);
        if (answer === "refused" || answer === "fees" || answer === "early") await this.repairGaps();
      }
      if (t >= deadline) throw new TxPendingError(latest.hash);
      await span("pollSleep", () => sleep(this.options.pollMs));
    }
  }

  /** The first of `txs` with a receipt. */
  private async receiptOf(txs: readonly { hash: Hex }[]): Promise<TransactionReceipt | undefined> {
    for (const tx of txs) {
      const receipt = await span("getReceipt", () =>
        this.options.client.getTransactionReceipt({ hash: tx.hash }),
      ).catch((error) => {
        if (error instanceof TransactionReceiptNotFoundError) return undefined;
        throw error;
      });
      if (receipt) return receipt;
    }
    return undefined;
  }

  /** The nonce the chain expects next from the relayer, counting what is pending. */
  private pendingNonce(): Promise<number> {
    return this.options.client.getTransactionCount({ address: this.address, blockTag: "pending" });
  }

  /**
   * After a restart: what the journal holds unmined may still spend (at a nonce with a filler,
   * only the filler: its write was given up).
   */
  private async loadInFlight(): Promise<void> {
    if (this.inFlightLoaded) return;
    const rows = await this.options.journal.rawsFrom(this.state!.confirmed);
    const filled = new Set(rows.filter((r) => r.filler).map((r) => r.nonce));
    for (const { nonce, raw, filler } of rows)
      if (filler || !filled.has(nonce)) this.inFlight.commit(nonce, costOfRaw(raw));
    this.inFlightLoaded = true;
  }

  /**
   * Throws UnavailableError unless the newest balance read covers a call of `call`'s cost
   * on top of what the transactions in flight may spend and the reserve. Run under the lock, so
   * each send counts every one before it.
   */
  private reserve(call: Call, maxFeePerGas: bigint): void {
    const state = this.state!;
    const inFlight = this.inFlight.committed(state.confirmed);
    const needed = costOf({ ...call, maxFeePerGas }) + this.options.minBalanceWei;
    if (state.balance - inFlight >= needed) return;
    this.chainState.forget();
    throw new UnavailableError(
      "relayer",
      `the relayer's balance (${state.balance} wei) is below what the transaction needs plus its reserve (${needed} wei) on top of what its transactions in flight may spend (${inFlight} wei); the operator must top it up`,
    );
  }

  private async replace(stuck: TxRow): Promise<TxRow | undefined> {
    const { client } = this.options;
    const confirmed = await client.getTransactionCount({ address: this.address, blockTag: "latest" });
    // Another version of this nonce is mined: its receipt shows up on the next poll.
    if (confirmed > stuck.nonce) return undefined;
    const previous = parseTransaction(stuck.raw);
    const fees = bumpedFees(previous, await this.fees.get(true));
    const call = { to: previous.to!, data: previous.data ?? "0x", value: previous.value ?? 0n, gas: previous.gas! };
    const replacement = await this.sign(stuck.writeId, call, stuck.nonce, fees);
    await this.options.journal.addTx(replacement);
    this.inFlight.commit(replacement.nonce, costOfRaw(replacement.raw));
    const answer = await this.tryBroadcast(replacement);
    if (answer === "ok" || answer === "known" || answer === "lost" || (await this.hasReceipt(replacement)))
      return replacement;
    // "replacement underpriced" and the like: the old version stays in; keep polling.
    await this.options.journal.dropTx(replacement.hash);
    return undefined;
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

  /** Journals a fresh `tx`, then broadcasts it after the transactions before it (and with those ready at the same time). */
  private async journalAndBroadcast(tx: TxRow, ticket: number, newWrite?: NewWrite): Promise<TxRow> {
    let refusal: unknown;
    try {
      try {
        await span("addTx", () => this.options.journal.addTx(tx, newWrite));
      } catch (error) {
        // Not journalled, or not known to be: these bytes are never sent, and the nonce is filled
        // once the journal takes a filler (the write fails, so its own bytes must not go).
        this.sending.delete(tx.nonce);
        this.unfilled.add(tx.nonce);
        void this.repairGaps();
        throw error;
      }
      await this.options.beforeBroadcast?.(tx);
      try {
        const answered = await span("broadcast", () => this.broadcasts.submit(ticket, tx));
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
        return tx;
      } catch (error) {
        refusal = error;
      }
    } finally {
      this.broadcasts.release(ticket);
    }
    return this.afterRefusal(tx, refusal);
  }

  /**
   * A fresh transaction's broadcast failed: keep it (the node may have it, or takes it once a gap
   * below is filled), sign it again (fees too low; at most MAX_RESIGNS times), try another nonce
   * (this one is used by another sender), or give its nonce to a filler and fail the write.
   */
  private async afterRefusal(first: TxRow, firstRefusal: unknown): Promise<TxRow> {
    const { journal } = this.options;
    let tx = first;
    let refusal = firstRefusal;
    for (let resigns = 0; ; resigns++) {
      const answer = refusalOf(refusal);
      // No answer: the node may have the transaction. It is journalled and mined() rebroadcasts
      // it, so the nonce is not reused.
      if (answer === "lost" || answer === "known") return tx;
      // Some nodes (Hardhat with automine) mine a reverting transaction and still answer with
      // the revert as an error: the nonce is used and the receipt says what happened.
      if (await this.hasReceipt(tx)) return tx;
      if (answer === "early") {
        // A nonce below is missing and this node refuses rather than queues: the bytes wait,
        // journalled, for the repair of the gap below to send them again.
        this.sending.delete(tx.nonce);
        await this.repairGaps();
        return tx;
      }
      if (answer === "taken") {
        // Another sender of the same account (an operator's script) used the nonce: no gap. Read
        // the next one again, from the chain and the journal, and try once more.
        this.inFlight.forget(tx.nonce);
        this.nextNonce = undefined;
        await journal.dropTx(tx.hash);
        throw new NonceTaken(refusal);
      }
      if (answer === "fees" && resigns < MAX_RESIGNS) {
        const previous = parseTransaction(tx.raw);
        const call = { to: previous.to!, data: previous.data ?? "0x", value: previous.value ?? 0n, gas: previous.gas! };
        try {
          const again = await this.sign(tx.writeId, call, tx.nonce, bumpedFees(previous, await this.fees.get(true)));
          await journal.addTx(again);
          await journal.dropTx(tx.hash);
          tx = again;
          this.inFlight.commit(tx.nonce, costOfRaw(tx.raw));
        } catch (error) {
          await this.giveUp(tx);
          throw error;
        }
        try {
          await this.broadcast(tx.raw, tx.writeId);
          // A node that refused the ones after it (Hardhat's automine) takes them now.
          this.sending.delete(tx.nonce);
          await this.repairGaps();
          return tx;
        } catch (error) {
          refusal = error;
          continue;
        }
      }
      await this.giveUp(tx);
      throw refusal;
    }
  }

  /**
   * The node refused `tx` for good: its nonce goes to a filler (journalled before it is sent),
   * then its bytes are forgotten, so nothing waits for them. A filler the journal or the node
   * did not take is tried again by the next repair.
   */
  private async giveUp(tx: TxRow): Promise<void> {
    await this.fill(tx.nonce).catch(() => false);
    await this.options.journal.dropTx(tx.hash).catch(() => {});
    this.sending.delete(tx.nonce);
    // A node that refused later nonces behind this one (Hardhat's automine) takes them now.
    await this.repairGaps();
  }

  /**
   * Signs, journals and broadcasts a filler at `nonce`: a transfer of nothing to the relayer
   * itself. False if the node refused it (a later repair tries again).
   */
  private async fill(nonce: number): Promise<boolean> {
    this.unfilled.add(nonce);
    const current = await this.fees.get(true);
    const previous = this.fillers.get(nonce)?.at(-1);
    const fees = previous ? bumpedFees(parseTransaction(previous.raw), current) : current;
    const { writeId: _, ...filler } = await this.sign(
      "",
      { to: this.address, data: "0x", value: 0n, gas: FILLER_GAS },
      nonce,
      fees,
    );
    await this.options.journal.addFiller(filler);
    this.unfilled.delete(nonce);
    this.remember(filler);
    this.inFlight.set(nonce, FILLER_GAS * fees.maxFeePerGas);
    const answer = await this.tryBroadcast(filler);
    if (answer === "taken") {
      // The nonce is used, or held by a transaction in the node's pool: there is no gap to fill.
      await this.options.journal.dropFiller(filler.hash);
      const left = this.fillers.get(nonce)?.filter((f) => f.hash !== filler.hash) ?? [];
      if (left.length > 0) this.fillers.set(nonce, left);
      else this.fillers.delete(nonce);
      return true;
    }
    return answer === "ok" || answer === "known" || answer === "lost";
  }

  private remember(filler: FillerRow): void {
    const known = this.fillers.get(filler.nonce) ?? [];
    if (!known.some((f) => f.hash === filler.hash)) this.fillers.set(filler.nonce, [...known, filler]);
  }

  /**
   * Finds the first nonce the node lacks among those signed here (its pending nonce, when that
   * is not above the highest signed) and sends something there: the journalled write again,
   * else a filler; then the next, until none is left or the node takes nothing. One repair runs
   * at a time; a caller waits for the running one and at most one more.
   */
  private repairGaps(): Promise<void> {
    if (this.repairing === undefined) return this.startRepair();
    this.repairNext ??= this.repairing.then(() => this.startRepair());
    return this.repairNext;
  }

  private startRepair(): Promise<void> {
    this.repairNext = undefined;
    const run = this.repairOnce()
      .catch(() => {})
      .finally(() => {
        if (this.repairing === run) this.repairing = undefined;
      });
    this.repairing = run;
    return run;
  }

  private async repairOnce(): Promise<void> {
    this.journalTop ??= await this.options.journal.maxNonce();
    let last = -1;
    for (let round = 0; round < MAX_REPAIR_ROUNDS; round++) {
      const next = await this.pendingNonce();
      // Nothing of ours missing, its broadcast still on its way, or the node took nothing here last round.
      if (next > Math.max(this.journalTop, this.highestTaken) || this.sending.has(next) || next <= last) return;
      last = next;
      if (!(await this.repairAt(next))) return;
    }
  }

  /** Sends something at `nonce`, which the node lacks; false if the node took nothing. */
  private async repairAt(nonce: number): Promise<boolean> {
    const { journal } = this.options;
    const [txs, journalledFillers] = await Promise.all([journal.txsAt(nonce), journal.fillersAt(nonce)]);
    for (const filler of journalledFillers) this.remember(filler);
    const fillers = this.fillers.get(nonce);
    if (fillers !== undefined || this.unfilled.has(nonce) || txs.length === 0) {
      // The write was given up (or left no record): its filler again, or a new one.
      const latest = fillers?.[fillers.length - 1];
      const answer = latest ? await this.tryBroadcast(latest) : "fees";
      if (answer === "fees") return this.fill(nonce);
      return answer === "ok" || answer === "known" || answer === "taken";
    }
    // A write whose bytes the node lacks (journalled before a crash and never broadcast, or
    // dropped): the same write again; refused for its fees, re-signed; refused, filled.
    const latest = dearest(txs);
    const answer = await this.tryBroadcast(latest);
    if (answer === "ok" || answer === "known" || answer === "taken") return true;
    if (answer === "lost" || answer === "early") return false;
    if (answer === "fees" && (await this.replace(latest))) return true;
    return this.fill(nonce);
  }

  private async hasReceipt(tx: { hash: Hex }): Promise<boolean> {
    return (await this.options.client.getTransactionReceipt({ hash: tx.hash }).catch(() => undefined)) !== undefined;
  }

  /** Broadcasts `tx` alone; what the node answered. */
  private async tryBroadcast(tx: { raw: Hex; writeId?: string }): Promise<"ok" | Refusal> {
    try {
      await this.broadcast(tx.raw, tx.writeId ?? "");
      return "ok";
    } catch (error) {
      return refusalOf(error);
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
      if (refusalOf(error) === "known") return;
      throw error;
    }
  }

  /**
   * Reads the next nonce when it is not known (at the start, after another sender used one): the
   * chain's pending count or the journal's highest + 1. Signed nonces the node lacks (bytes
   * journalled before a crash, or refused since) are repaired first, so nothing is sent behind a
   * gap and the balance check counts a filler, not bytes the node will not take.
   */
  private async readNonce(): Promise<void> {
    if (this.nextNonce !== undefined) return;
    const [chain, journalled] = await Promise.all([this.pendingNonce(), this.options.journal.maxNonce()]);
    this.journalTop = journalled;
    const top = Math.max(journalled, this.highestTaken);
    if (chain <= top) await this.repairGaps();
    this.nextNonce = Math.max(chain, top + 1, this.highestTaken + 1);
  }

  private takeNonce(): number {
    const nonce = this.nextNonce!;
    this.nextNonce = nonce + 1;
    if (nonce > this.highestTaken) this.highestTaken = nonce;
    return nonce;
  }

  /** Runs `task` after every earlier one: one nonce handed out, signed and broadcast at a time. */
  private locked<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }
}

/** The nonce the send used is used by another transaction: send() tries once more with a new one. */
class NonceTaken extends Error {
  readonly refusal: unknown;

  constructor(refusal: unknown) {
    super("the nonce is used by another transaction");
    this.refusal = refusal;
  }
}

/** The balance at a block and how many of the relayer's transactions were mined by then. */
interface ChainState {
  readonly confirmed: number;
  readonly balance: bigint;
  readonly seq: number;
}

/** Fees at least 12.5% above `previous`'s (a node's replacement rule), or the current ones if higher. */
function bumpedFees(
  previous: { maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint },
  current: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
) {
  const bump = (old: bigint | undefined, now: bigint) => {
    const raised = ((old ?? 0n) * 1125n) / 1000n + 1n;
    return raised > now ? raised : now;
  };
  return {
    maxFeePerGas: bump(previous.maxFeePerGas, current.maxFeePerGas),
    maxPriorityFeePerGas: bump(previous.maxPriorityFeePerGas, current.maxPriorityFeePerGas),
  };
}

/** The version with the highest fee cap: the one a node would keep. */
function dearest(txs: readonly TxRow[]): TxRow {
  const capOf = (tx: TxRow) => {
    try {
      return parseTransaction(tx.raw).maxFeePerGas ?? 0n;
    } catch {
      return 0n;
    }
  };
  return txs.reduce((best, tx) => (capOf(tx) >= capOf(best) ? tx : best));
}

/** A filler's gas: a plain transfer's. */
const FILLER_GAS = 21_000n;

/** How many times a fresh transaction refused for its fees is signed again with fresh ones. */
const MAX_RESIGNS = 2;

/** Most nonces one repair sends at (each one the node lacked). */
const MAX_REPAIR_ROUNDS = 256;

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
