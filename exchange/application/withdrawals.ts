import { applyEntry, refundWithdrawal } from "../core/ledger/index.ts";
import { DomainError } from "../core/result.ts";
import { KeyedLock } from "../../lib/keyed-lock.ts";
import { balancesTouched } from "./order-rows.ts";
import type { ExchangeStore } from "./ports.ts";
import type { WithdrawalRow, WithdrawalStatus } from "./records.ts";
import type { Sequencer } from "./sequencer.ts";

// A withdrawal's life after its debit (wallet.ts): pending -> sent (txHash) -> completed, or
// failed with a refund; above its currency's approval threshold it waits in pending until an
// operator approves or rejects it. Every change is one command, as fee holds' are: the row (and,
// for a failure, the refund's ledger entry and balances) committed in one transaction before the
// caller hears of it, so the ledger, memory and the database never disagree, and a crash leaves
// the status the last commit wrote.
//
// Commands on one withdrawal run one at a time (KeyedLock), each reading the row as committed:
// the chain sender and the operator's routes cannot interleave on it, and a withdrawal is
// refunded at most once (only pending or sent ones can fail).
//
// Open withdrawals (pending and sent) are kept as last committed, by id, from the committed
// batches: this process is their only writer, so the copy is the database's row, and the
// sender's reads and the commands' own need no query (bench:gateway: a read per send and per
// status change on the embedded database's thread held each send). A miss (a row committed
// before a restart) reads the database; a reload, and any moment the exchange is unavailable,
// bypass the copy, since a commit whose outcome is unknown may have changed the row.

export interface WithdrawalsOptions {
  readonly sequencer: Sequencer;
  /** The guarded store (refuses while the exchange is unavailable). */
  readonly store: ExchangeStore;
}

/** Which statuses each status may move to (a repeat of the same move is answered as it is). */
const NEXT: Record<WithdrawalStatus, readonly WithdrawalStatus[]> = {
  pending: ["sent", "completed", "failed"],
  sent: ["completed", "failed"],
  completed: [],
  failed: [],
};

export class Withdrawals {
  private readonly seq: Sequencer;
  private readonly store: ExchangeStore;
  private readonly perWithdrawal = new KeyedLock();
  /** Pending and sent withdrawals as committed, by id (see above). */
  private readonly open = new Map<string, WithdrawalRow>();

  constructor(options: WithdrawalsOptions) {
    this.seq = options.sequencer;
    this.store = options.store;
    this.seq.onCommitted((units) => {
      for (const unit of units)
        for (const row of unit.withdrawals ?? []) {
          if (row.status === "pending" || row.status === "sent") this.open.set(row.id, row);
          else this.open.delete(row.id);
        }
    });
  }

  /** After a reload: the database is the truth again. */
  forget(): void {
    this.open.clear();
  }

  /** One withdrawal as committed; NOT_FOUND when there is none. */
  async get(id: string): Promise<WithdrawalRow> {
    const key = id.toLowerCase();
    const row = this.cached(key) ?? (UUID.test(id) ? await this.store.getWithdrawal(key) : null);
    if (row === null) throw new DomainError("NOT_FOUND", `No withdrawal ${id}`);
    return row;
  }

  /** The withdrawals of `ids` as committed, those that exist, in the order asked; one query for the ones not kept. */
  async getMany(ids: readonly string[]): Promise<WithdrawalRow[]> {
    const keys = ids.map((id) => id.toLowerCase()).filter((key) => UUID.test(key));
    const missing = keys.filter((key) => this.cached(key) === undefined);
    const read = new Map((await this.store.getWithdrawals(missing)).map((row) => [row.id, row]));
    return keys.flatMap((key) => {
      const row = this.cached(key) ?? read.get(key);
      return row === undefined ? [] : [row];
    });
  }

  private cached(key: string): WithdrawalRow | undefined {
    return this.seq.ready ? this.open.get(key) : undefined;
  }

  /** Withdrawals in `statuses`, oldest first. */
  list(statuses: readonly WithdrawalStatus[], limit: number): Promise<WithdrawalRow[]> {
    return this.store.listWithdrawalsByStatus(statuses, limit);
  }

  /**
   * Records the transaction that carries a pending withdrawal, or a newer one of a sent
   * withdrawal (a replacement, or a resend after the first was dropped and its nonce filled).
   */
  markSent(id: string, txHash: string): Promise<WithdrawalRow> {
    return this.change(id, (row) => {
      if (row.status === "sent" && row.txHash === txHash) return row;
      if (row.status !== "sent") this.require(row, "sent");
      return { ...row, status: "sent", txHash, sentAt: row.sentAt ?? this.seq.nowMs() };
    });
  }

  /** The transaction `txHash` is mined and deep enough: the withdrawal is done. */
  markCompleted(id: string, txHash: string): Promise<WithdrawalRow> {
    return this.change(id, (row) => {
      if (row.status === "completed") return row;
      this.require(row, "completed");
      const t = this.seq.nowMs();
      return { ...row, status: "completed", txHash, sentAt: row.sentAt ?? t, completedAt: t };
    });
  }

  /**
   * The withdrawal will never reach the chain (reverted, dropped, an address the chain refuses):
   * failed, and its amount and fee return to available. A failed one is answered as it is.
   */
  markFailed(id: string, reason: string, txHash?: string | null): Promise<WithdrawalRow> {
    return this.change(id, (row) => {
      if (row.status === "failed") return row;
      this.require(row, "failed");
      return {
        ...row,
        status: "failed",
        failureReason: reason,
        failedAt: this.seq.nowMs(),
        txHash: txHash ?? row.txHash,
      };
    });
  }

  /** An operator lets a withdrawal that waits for approval be sent. */
  approve(id: string): Promise<WithdrawalRow> {
    return this.change(id, (row) => {
      this.requireAwaitingApproval(row, "approved");
      return { ...row, approvedAt: this.seq.nowMs() };
    });
  }

  /** An operator refuses a withdrawal that waits for approval: failed and refunded. */
  reject(id: string, reason: string | null): Promise<WithdrawalRow> {
    return this.change(id, (row) => {
      this.requireAwaitingApproval(row, "rejected");
      return {
        ...row,
        status: "failed",
        failureReason: `rejected by an operator${reason ? `: ${reason}` : ""}`,
        failedAt: this.seq.nowMs(),
      };
    });
  }

  private require(row: WithdrawalRow, next: WithdrawalStatus): void {
    if (!NEXT[row.status].includes(next))
      throw new DomainError(
        "WITHDRAWAL_NOT_PENDING",
        `Withdrawal ${row.id} is ${row.status}; it cannot become ${next}`,
      );
  }

  private requireAwaitingApproval(row: WithdrawalRow, what: string): void {
    if (row.status !== "pending" || !row.approvalRequired || row.approvedAt !== null)
      throw new DomainError(
        "WITHDRAWAL_NOT_PENDING",
        `Withdrawal ${row.id} is not waiting for approval (${row.status}${row.approvedAt !== null ? ", approved" : ""}); it cannot be ${what}`,
      );
  }

  /** Reads the row as committed, applies `next` and commits it (with a refund when it turns failed). */
  private change(id: string, next: (row: WithdrawalRow) => WithdrawalRow): Promise<WithdrawalRow> {
    const key = id.toLowerCase();
    return this.perWithdrawal.run([key], async () => {
      const row = await this.get(key);
      const changed = next(row);
      if (changed === row) return row;
      const seq = this.seq;
      if (changed.status !== "failed") {
        seq.admit();
        await seq.commit({ withdrawals: [changed] });
        return changed;
      }
      const entry = refundWithdrawal(seq.ledger, {
        withdrawalId: row.id,
        userId: row.userId,
        currency: row.currency,
        amount: row.amount,
        fee: row.fee,
      });
      if (!entry.ok) throw new Error(`withdrawal ${row.id}: ${entry.message}`);
      seq.admit();
      seq.mutating(() => applyEntry(seq.ledger, entry.value));
      await seq.commit({
        withdrawals: [changed],
        entries: [entry.value],
        ...balancesTouched(seq.ledger, [entry.value]),
      });
      return changed;
    });
  }
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
