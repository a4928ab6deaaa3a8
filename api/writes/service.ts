import { randomUUID } from "node:crypto";
import { type Address, formatUnits, type TransactionReceipt } from "viem";
import type { RateLimiter } from "../../lib/http/index.ts";
import { UnavailableError } from "../../lib/unavailable.ts";
import {
  type Call,
  type Journal,
  type Relayer,
  TxPendingError,
  type TxRow,
  type WriteKind,
  type WriteRow,
} from "../../relayer/index.ts";
import { answerOf, revertAnswer } from "./answers.ts";
import type { WriteChain } from "./chain.ts";
import { CHAIN_NODE, outboundFailure } from "./outbound.ts";
import {
  isRejection,
  journalledOutcome,
  outcomeOfJournal,
  type Rejection,
  rejection,
  type WriteOutcome,
} from "./outcome.ts";
import { KeyedLock } from "../../lib/keyed-lock.ts";
import { mark, now, span } from "../../lib/stage-trace.ts";
import type { Caller, ExchangeClient } from "./exchange-client.ts";
import type { OperatorBody, ProposeBody, SpawnBody, VoteBody } from "./schemas.ts";

/**
 * The relayed writes: pre-checks (so bad input costs no gas), the fee hold, the transaction, and
 * the answer read from its receipt. Each write is journalled from the moment it commits to act;
 * anything left open by a crash, a lost exchange or a slow chain is finished by reconcile(),
 * which runs at start and then every few seconds: a fee held is settled if a transaction of the
 * write was mined, and released otherwise.
 *
 * A mined write is answered from its receipt at once; settling its fee and journalling its answer
 * follow (completions). The chain has decided by then, so an exchange that is slow or away must
 * not turn a done spawn into an error a client would retry. Until its completion ends, a write
 * is still known here (a retry with its key gets the answer; reconcile leaves it alone).
 *
 * A write comes to a WriteOutcome (outcome.ts): done, or rejected with a stable code. Which HTTP
 * status that is, is the HTTP adapter's (statuses.ts); here are no statuses. Thrown are only
 * UnavailableError (something the write needs cannot serve now; nothing was done) and bugs.
 */

export type { WriteOutcome } from "./outcome.ts";

export interface Request<B> {
  readonly caller: Caller;
  readonly body: B;
  /** The Idempotency-Key header, if sent. */
  readonly idempotencyKey: string | undefined;
  /** Hash of the method, path and exact body: one key, one request. */
  readonly requestHash: string;
}

export interface WritesOptions {
  readonly chain: WriteChain;
  readonly relayer: Relayer;
  readonly journal: Journal;
  readonly exchange: ExchangeClient;
  /** The exchange currency of the chain's native token, from which spawn fees are held. */
  readonly feeCurrency: string;
  /** Votes per user per minute (on top of the per-IP quota). */
  readonly voteLimiter: RateLimiter;
  readonly now?: () => number;
  readonly log?: (message: string, error?: unknown) => void;
  /**
   * Called between the steps of a write (the crash test throws here to stop a write as a killed
   * process would, with no clean-up; another test acts on the chain here). Unset in production.
   */
  readonly step?: (name: WriteStep, writeId: string) => Promise<void> | void;
}

export type WriteStep = "after-hold" | "after-send" | "after-mined";

/** A write of the API's: always a user's (the journal also holds the system's, without one). */
type UserWrite = WriteRow & { readonly userId: string };

/** What a write holds and checks before it is sent. */
interface Plan {
  /** The fee to hold (decimal text in the fee currency), or undefined for none. */
  readonly fee: string | undefined;
  /** The pre-checks (reads and the estimate, no gas): the call to send, or why not. */
  readonly precheck: () => Promise<Call | Rejection>;
}

/** The spawn fee read in the pre-checks is not the one held: the write starts over with it. */
class FeeChangedError extends Error {}

/**
 * Workers looked up on the chain and kept, since a token's or a proposal's worker never changes.
 * Unknown ones are not kept (they may exist a moment later); past 10,000 the memory starts afresh
 * (bounded, never stale).
 */
class KnownWorkers<K> {
  private readonly known = new Map<K, bigint>();

  async get(key: K, read: () => Promise<bigint | undefined>): Promise<bigint | undefined> {
    const kept = this.known.get(key);
    if (kept !== undefined) return kept;
    const workerId = await read();
    if (workerId === undefined) return undefined;
    if (this.known.size >= 10_000) this.known.clear();
    this.known.set(key, workerId);
    return workerId;
  }
}

/** What the HTTP layer asks of the writes (in this thread, or on a thread of their own: thread/). */
export type WriteOperations = Pick<Writes, "spawn" | "vote" | "propose" | "setOperator">;

/** Level a user needs to vote (SPEC.md, Limits). */
export const MIN_VOTE_LEVEL = 20;

export class Writes {
  private readonly options: WritesOptions;
  private readonly inflight = new Map<string, Promise<WriteOutcome>>();
  /** Writes answered whose fee and journal steps are still running, with their outcome. */
  private readonly completing = new Map<string, { readonly outcome: WriteOutcome; readonly done: Promise<void> }>();
  /** Token (address or NFT id) -> its worker, and proposal -> its worker: fixed on-chain, so kept. */
  private readonly workerIds = new KnownWorkers<string>();
  private readonly proposalWorkers = new KnownWorkers<bigint>();
  /** The spawner's fee as last read (every spawn reads it again). */
  private spawnFee: bigint | undefined;
  private readonly locks = new KeyedLock();
  private readonly now: () => number;
  private readonly log: (message: string, error?: unknown) => void;
  private reconciling: Promise<void> | undefined;

  constructor(options: WritesOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.log = options.log ?? ((message, error) => console.error(message, error ?? ""));
  }

  async spawn(request: Request<SpawnBody>): Promise<WriteOutcome> {
    const { caller, body } = request;
    const owner = requireAddress(caller);
    if (isRejection(owner)) return owner;
    const { chain } = this.options;
    return this.relay(request, "spawn", [`symbol:${body.symbol}`, `owner:${owner}`], async () => {
      // The fee is read again among the pre-checks; the one last read is what the estimate sends
      // and the hold takes meanwhile (a change, rare, is noticed and the write starts over).
      this.spawnFee ??= await chain.spawnFee();
      const expected = this.spawnFee;
      return {
        fee: expected > 0n ? formatUnits(expected, 18) : undefined,
        precheck: async () => {
          // The estimate runs the spawn itself, so its revert names every rejection in the order
          // the contract checks them (symbol taken, cooldown, fee), which is the API's order too.
          // The fee is read beside it (one batch): the one held must be the one sent.
          const [fee, prepared] = await Promise.all([
            chain.spawnFee(),
            settled(chain.prepare(chain.spawnCall(owner, body, expected))),
          ]);
          if (fee !== expected) {
            this.spawnFee = fee;
            throw new FeeChangedError();
          }
          return prepared.unwrap();
        },
      };
    });
  }

  async vote(request: Request<VoteBody> & { readonly tokenRef: string }): Promise<WriteOutcome> {
    const { caller, body } = request;
    if (caller.level < MIN_VOTE_LEVEL)
      return rejection("LEVEL_TOO_LOW", `voting needs user level ${MIN_VOTE_LEVEL} or more; yours is ${caller.level}`);
    const voter = requireAddress(caller);
    if (isRejection(voter)) return voter;
    const limit = this.options.voteLimiter.hit(caller.userId);
    if (!limit.allowed)
      return rejection(
        "RATE_LIMITED",
        `Too many votes from this user; retry in ${limit.resetSeconds} s`,
        limit.resetSeconds,
      );
    const { chain } = this.options;
    const proposalId = BigInt(body.proposalId);
    return this.relay(request, "vote", [`vote:${proposalId}:${voter}`], async () => ({
      fee: undefined,
      precheck: async () => {
        // The estimate runs the vote itself, so its revert names every rejection in the order the
        // contract checks them (closed, not started, already voted, comment, holdings), which is
        // the API's order too. Only "this proposal is not this token's worker's" is the API's own
        // rule; a proposal's worker never changes, so it is read once and kept, like a token's.
        const [workerId, proposalWorker, prepared] = await Promise.all([
          this.workerOf(request.tokenRef),
          this.proposalWorkers.get(proposalId, () => chain.proposalWorker(proposalId)),
          settled(chain.prepare(chain.voteCall(voter, body))),
        ]);
        if (isRejection(workerId)) return workerId;
        if (proposalWorker === undefined || proposalWorker !== workerId)
          return rejection("PROPOSAL_NOT_FOUND", `no proposal ${proposalId} for the worker of ${request.tokenRef}`);
        return prepared.unwrap();
      },
    }));
  }

  /** Opens a proposal on the token's worker for the caller (beyond SPEC.md; the voters' rules apply). */
  async propose(request: Request<ProposeBody> & { readonly tokenRef: string }): Promise<WriteOutcome> {
    const { caller, body } = request;
    if (caller.level < MIN_VOTE_LEVEL)
      return rejection(
        "LEVEL_TOO_LOW",
        `proposing needs user level ${MIN_VOTE_LEVEL} or more; yours is ${caller.level}`,
      );
    const proposer = requireAddress(caller);
    if (isRejection(proposer)) return proposer;
    const limit = this.options.voteLimiter.hit(caller.userId);
    if (!limit.allowed)
      return rejection(
        "RATE_LIMITED",
        `Too many votes and proposals from this user; retry in ${limit.resetSeconds} s`,
        limit.resetSeconds,
      );
    const { chain } = this.options;
    return this.relay(request, "propose", [`propose:${proposer}`], async () => ({
      fee: undefined,
      precheck: async () => {
        const workerId = await this.workerOf(request.tokenRef);
        return isRejection(workerId) ? workerId : chain.prepare(chain.proposeCall(proposer, workerId, body));
      },
    }));
  }

  /**
   * Hands the token's worker to another operator for the token's owner (beyond SPEC.md; issue 28,
   * bring your own agent). The caller is the owner only if its linked chain address owns the
   * token's agent NFT: the registry checks that itself (setWorkerOperatorFor), so the estimate
   * answers NOT_TOKEN_OWNER before any gas is spent, and a transfer of the NFT in between makes
   * the transaction revert rather than act for a former owner.
   */
  async setOperator(request: Request<OperatorBody> & { readonly tokenRef: string }): Promise<WriteOutcome> {
    const owner = requireAddress(request.caller);
    if (isRejection(owner)) return owner;
    const { chain } = this.options;
    return this.relay(request, "set_operator", [`operator:${request.tokenRef.toLowerCase()}`], async () => ({
      fee: undefined,
      precheck: async () => {
        const workerId = await this.workerOf(request.tokenRef);
        return isRejection(workerId) ? workerId : chain.prepare(chain.operatorCall(owner, workerId, request.body));
      },
    }));
  }

  /**
   * Finishes every open write nobody is working on: at start (after a crash) and periodically
   * (a receipt that came after its request gave up, an exchange that was away). Runs once at a time.
   */
  reconcile(): Promise<void> {
    this.reconciling ??= this.reconcileOpen().finally(() => (this.reconciling = undefined));
    return this.reconciling;
  }

  /** Resolves once every write answered so far has settled its fee and journalled its answer (or failed to: reconcile's then). */
  async completions(): Promise<void> {
    while (this.completing.size > 0) await Promise.all([...this.completing.values()].map((c) => c.done));
  }

  /** A chain started afresh: nothing journalled can be mined any more, so every held fee goes back. */
  async forgetChain(): Promise<void> {
    for (const write of await this.options.journal.openWrites())
      if (write.feeHeld) await this.options.exchange.release(write.id);
    await this.options.journal.clear();
  }

  /**
   * The worker of a token named by address or NFT id (NOT_FOUND for an unknown one), from the
   * chain. Fixed at spawn, so it is kept (bounded): a vote then costs no read for it.
   */
  private async workerOf(tokenRef: string): Promise<bigint | Rejection> {
    const key = tokenRef.toLowerCase();
    const workerId = await this.workerIds.get(key, () => this.options.chain.workerOfToken(key));
    return workerId ?? rejection("NOT_FOUND", `No agent token ${tokenRef}`);
  }

  /**
   * Runs a write once (a retry with its key answers the first one). A call out that fails before
   * the transaction is sent (the journal, the chain's pre-checks, the exchange) throws
   * UnavailableError, with nothing held or journalled left behind; after it is sent, the write is
   * rejected TX_PENDING or WRITE_PENDING (execute): its outcome is not known yet.
   */
  private async relay(
    request: Request<unknown>,
    kind: WriteKind,
    lockKeys: string[],
    plan: () => Promise<Plan>,
  ): Promise<WriteOutcome> {
    try {
      return await this.relayOnce(request, kind, lockKeys, plan);
    } catch (error) {
      throw outboundFailure(error) ?? error;
    }
  }

  private async relayOnce(
    request: Request<unknown>,
    kind: WriteKind,
    lockKeys: string[],
    plan: () => Promise<Plan>,
  ): Promise<WriteOutcome> {
    const { caller, idempotencyKey: key, requestHash } = request;
    const { journal } = this.options;
    const earlier = async () => {
      const prior = key === undefined ? undefined : await journal.byKey(caller.userId, key);
      return prior && this.replay(prior, requestHash);
    };
    const first = await earlier();
    if (first) return first;
    const lockAt = now();
    return this.locks.run(lockKeys, async () => {
      mark("keyLock", lockAt);
      // A retry that waited on the lock finds its first request done.
      const again = await earlier();
      if (again) return again;
      for (let attempt = 1; ; attempt++) {
        const { fee, precheck } = await plan();
        const write: UserWrite = {
          id: randomUUID(),
          userId: caller.userId,
          kind,
          idempotencyKey: key ?? null,
          requestHash,
          feeHeld: fee !== undefined,
          state: "open",
          answerStatus: null,
          answerBody: null,
          createdAt: this.now(),
        };
        // Known as running before its row exists: reconcile() leaves it alone from the start.
        const run = this.admit(write, fee, precheck);
        this.inflight.set(write.id, run);
        try {
          return await run;
        } catch (error) {
          if (!(error instanceof FeeChangedError)) throw error;
          if (attempt >= 3) throw new UnavailableError(CHAIN_NODE, "the spawn fee keeps changing on the chain; retry");
        } finally {
          this.inflight.delete(write.id);
        }
      }
    });
  }

  /**
   * Journals the write, holds its fee and runs its pre-checks, then sends it. The pre-checks
   * (reads and an estimate: no gas) run while the row is inserted and the fee held: the hold only
   * once the row is in, so a crash never leaves a hold the journal does not know. Nothing is sent
   * before all three have passed; a failed pre-check gives the fee back and forgets the row. The
   * failures are judged in a fixed order: pre-checks, journal, hold.
   */
  private async admit(
    write: UserWrite,
    fee: string | undefined,
    precheck: () => Promise<Call | Rejection>,
  ): Promise<WriteOutcome> {
    const { journal, exchange, feeCurrency } = this.options;
    const checked = settled(span("precheck", precheck));
    const inserting = span("insertWrite", () => journal.insertWrite(write));
    const holding = inserting.then(async (taken) => {
      if (taken !== null || fee === undefined) return undefined;
      return span("hold", () =>
        exchange.hold({
          holdId: write.id,
          userId: write.userId,
          currency: feeCurrency,
          amount: fee,
          memo: `${write.kind} fee`,
        }),
      );
    });
    const [check, inserted, held] = await Promise.all([checked, settled(inserting), settled(holding)]);
    let taken: WriteRow | null;
    try {
      taken = inserted.unwrap();
    } catch (error) {
      const prechecked = check.unwrap();
      if (isRejection(prechecked)) return prechecked;
      throw error;
    }
    if (taken) return this.replay(taken, write.requestHash);
    let call: Call | Rejection;
    try {
      call = check.unwrap();
      if (!isRejection(call)) call = held.unwrap() ?? call;
    } catch (error) {
      await this.abandon(write).catch((cleanup) => this.log(`write ${write.id}: left for reconcile`, cleanup));
      throw error;
    }
    if (isRejection(call)) {
      await this.abandon(write).catch((cleanup) => this.log(`write ${write.id}: left for reconcile`, cleanup));
      return call;
    }
    if (fee !== undefined) await this.options.step?.("after-hold", write.id);
    return this.execute(write, call);
  }

  /** The first request's outcome, for a request with its Idempotency-Key. */
  private async replay(prior: WriteRow, requestHash: string): Promise<WriteOutcome> {
    if (prior.requestHash !== requestHash)
      return rejection(
        "IDEMPOTENCY_KEY_REUSED",
        "this Idempotency-Key was used for a different request; use a new key for a new request",
      );
    if (prior.state === "done") return outcomeOfJournal(prior.answerStatus, prior.answerBody!);
    const running = this.inflight.get(prior.id);
    if (running) return running;
    const answered = this.completing.get(prior.id);
    if (answered) return answered.outcome;
    return rejection(
      "REQUEST_IN_PROGRESS",
      "the first request with this Idempotency-Key is still being processed (its transaction is not mined yet); retry with the same key later",
    );
  }

  private async execute(write: WriteRow, call: Call): Promise<WriteOutcome> {
    const { relayer } = this.options;
    let sent: TxRow;
    try {
      sent = await span("send", () => relayer.send(write.id, call));
    } catch (error) {
      await this.abandon(write).catch((cleanup) => this.log(`write ${write.id}: left for reconcile`, cleanup));
      throw notSent(error);
    }
    await this.options.step?.("after-send", write.id);
    // From here the transaction is the node's: whatever fails, it may be mined. The fee stays held
    // and the row open; reconcile() settles or releases once the chain answers again.
    let receipt: TransactionReceipt;
    try {
      receipt = await span("mined", () => relayer.mined(write.id, { sent }));
    } catch (error) {
      if (error instanceof TxPendingError)
        return rejection(
          "TX_PENDING",
          `transaction ${error.hash} is sent but not mined yet; it stays queued and is replaced if stuck. Retry with the same Idempotency-Key for the result`,
        );
      this.log(`write ${write.id}: its transaction ${sent.hash} is sent; its receipt is left for reconcile`, error);
      return rejection(
        "WRITE_PENDING",
        `transaction ${sent.hash} is sent, but the chain's node did not answer for its receipt; it may still be mined. Retry with the same Idempotency-Key for the result`,
      );
    }
    await this.options.step?.("after-mined", write.id);
    let outcome: WriteOutcome;
    try {
      outcome = await this.answerFor(write, receipt);
    } catch (error) {
      if (outboundFailure(error) === undefined) throw error;
      return rejection(
        "WRITE_PENDING",
        `transaction ${receipt.transactionHash} is mined, but its answer could not be read from the chain now. Retry with the same Idempotency-Key for it`,
      );
    }
    // Registered before this returns, so the write is never unknown between the two maps.
    const done = this.complete(write, receipt, outcome)
      .catch((error) => this.log(`write ${write.id}: fee or answer left for reconcile`, error))
      .finally(() => this.completing.delete(write.id));
    this.completing.set(write.id, { outcome, done });
    return outcome;
  }

  /** Nothing of the write reached the chain: give back its fee, then forget it. */
  private async abandon(write: WriteRow): Promise<void> {
    if (write.feeHeld) await this.options.exchange.release(write.id);
    await this.options.journal.forget(write.id);
  }

  /** The outcome of a write one of whose transactions was mined, from its receipt. */
  private answerFor(write: WriteRow, receipt: TransactionReceipt): Promise<WriteOutcome> {
    return receipt.status === "success"
      ? span("answer", () => answerOf(this.options.chain, write.kind, receipt))
      : revertAnswer(this.options.chain, this.options.journal, write, receipt);
  }

  /**
   * Settles the fee of a mined write (releases it if the transaction reverted), then journals its
   * outcome (outcome.ts: the code and body, no status): done.
   */
  private async complete(write: WriteRow, receipt: TransactionReceipt, outcome: WriteOutcome): Promise<void> {
    const { exchange, journal } = this.options;
    if (write.feeHeld) {
      if (receipt.status === "success") await span("settle", () => exchange.settle(write.id, receipt.transactionHash));
      else await exchange.release(write.id);
    }
    await span("journalFinish", () => journal.finish(write.id, null, journalledOutcome(outcome)));
  }

  private async reconcileOpen(): Promise<void> {
    const { journal, relayer } = this.options;
    for (const write of await journal.openWrites()) {
      if (this.inflight.has(write.id) || this.completing.has(write.id)) continue;
      try {
        const txs = await journal.txsOf(write.id);
        if (txs.length === 0) {
          await this.abandon(write);
          continue;
        }
        const receipt = await relayer.mined(write.id, { timeoutMs: 0, nudge: true }).catch((error) => {
          if (error instanceof TxPendingError) return undefined;
          throw error;
        });
        if (receipt) await this.complete(write, receipt, await this.answerFor(write, receipt));
      } catch (error) {
        this.log(`relayer: write ${write.id} stays open for the next pass`, error);
      }
    }
  }
}

/** A promise's outcome as a value, so parallel reads can be judged in a fixed order. */
async function settled<T>(promise: Promise<T>): Promise<{ unwrap(): T }> {
  try {
    const value = await promise;
    return { unwrap: () => value };
  } catch (error) {
    return {
      unwrap: () => {
        throw error;
      },
    };
  }
}

function requireAddress(caller: Caller): Address | Rejection {
  return (
    caller.address ??
    rejection("NO_CHAIN_ADDRESS", "your exchange account has no chain address linked; link one before acting on-chain")
  );
}

/** The relayer did not send (nothing of this write is the node's): unavailable, with what the operator must know. */
function notSent(error: unknown): UnavailableError {
  return (
    outboundFailure(error) ??
    new UnavailableError(CHAIN_NODE, `the chain did not take the transaction: ${shortMessage(error)}`, { cause: error })
  );
}

function shortMessage(error: unknown): string {
  return ((error as { shortMessage?: string }).shortMessage ?? (error as Error)?.message ?? String(error)).split(
    "\n",
  )[0]!;
}
