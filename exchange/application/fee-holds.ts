import {
  applyEntry,
  balanceOf,
  feeHoldStep,
  holdFee,
  releaseFee,
  settleFee,
  type Entry,
  type FeeHoldAction,
} from "../core/ledger/index.ts";
import { formatUnits, parseCurrencyUnits } from "../core/money/index.ts";
import { DomainError, invalidInput } from "../core/result.ts";
import type { Accounts } from "./accounts.ts";
import { KeyedLock } from "../../lib/keyed-lock.ts";
import { balancesTouched } from "./order-rows.ts";
import type { ExchangeStore } from "./ports.ts";
import type { FeeHoldRow } from "./records.ts";
import type { Sequencer } from "./sequencer.ts";

// Fee holds for on-chain actions (the ecosystem API's spawns): the fee is held from the user's
// available balance before the transaction is sent, then settled (burned: the native token was
// burned on-chain) when it is mined, or released when it fails. The caller names each hold with
// a UUID, so every call can be retried: a repeat answers the hold as it is and never moves money
// twice. Each change is applied to the working ledger and committed with its ledger entry in one
// transaction before the caller is answered, as deposits are.
//
// Commands on one hold id run one at a time (KeyedLock): each sees the previous one committed.
// Open holds live in the working state (Sequencer.feeHolds, rebuilt by a reload); resolved ones
// only in the database, which answers repeats.
//
// A release can arrive before its hold: the caller gave up on a hold still on its way (its
// request timed out, or the process that sent it died and the next one released what its journal
// had open). The release of an unknown id is therefore remembered (a tombstone), and a hold with
// that id arriving later is refused: it would otherwise lock the fee with nobody left to release
// it. Tombstones live in memory for TOMBSTONE_TTL_MS: a hold request cannot outlive the process
// it was sent to (its connection dies with it), and one still in flight lands within seconds.

export interface FeeHoldArgs {
  /** The caller's UUID for the hold. */
  readonly holdId: string;
  readonly userId: string;
  readonly currency: string;
  /** Decimal text in the currency; digits beyond its decimals round up. */
  readonly amount: string;
  readonly memo?: string | null;
}

export interface FeeHoldsOptions {
  readonly sequencer: Sequencer;
  readonly accounts: Accounts;
  /** The guarded store (refuses while the exchange is unavailable). */
  readonly store: ExchangeStore;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** How long the release of an unknown hold id refuses a late hold with that id. */
export const TOMBSTONE_TTL_MS = 60 * 60_000;
/** Most tombstones kept (the oldest go first): bounded memory, whoever releases unknown ids. */
const MAX_TOMBSTONES = 100_000;

export class FeeHolds {
  private readonly seq: Sequencer;
  private readonly accounts: Accounts;
  private readonly store: ExchangeStore;
  private readonly perHold = new KeyedLock();
  /** Hold ids released before any hold: id -> when (ms), oldest first. */
  private readonly tombstones = new Map<string, number>();

  constructor(options: FeeHoldsOptions) {
    this.seq = options.sequencer;
    this.accounts = options.accounts;
    this.store = options.store;
  }

  /**
   * Holds `amount` of the user's available balance. A repeat of the hold id with the same user,
   * currency and amount (after rounding) answers the stored hold, whatever its status
   * (`created: false`); with other fields it is HOLD_CONFLICT.
   */
  async hold(args: FeeHoldArgs): Promise<{ row: FeeHoldRow; created: boolean }> {
    const holdId = holdIdOf(args.holdId);
    this.accounts.requireUser(args.userId);
    const currency = this.seq.reference.currency(args.currency);
    const parsed = parseCurrencyUnits(args.amount, currency.spec, "up");
    if (!parsed.ok && parsed.code === "OUT_OF_RANGE") throw invalidInput("amount", parsed.message);
    if (!parsed.ok || parsed.value <= 0n)
      throw invalidInput("amount", `must be a positive ${currency.row.code} amount`);
    const amount = parsed.value;
    const code = currency.row.code;
    return this.perHold.run([holdId], async () => {
      if (this.tombstoned(holdId))
        throw new DomainError(
          "HOLD_CONFLICT",
          `Fee hold ${holdId} was released before it was held; nothing is held (use a new id for a new hold)`,
        );
      const existing = this.seq.feeHolds.get(holdId) ?? (await this.store.getFeeHold(holdId));
      if (existing !== null) {
        if (existing.userId !== args.userId || existing.currency !== code || existing.amount !== amount)
          throw new DomainError(
            "HOLD_CONFLICT",
            `Fee hold ${holdId} exists with other fields (user ${existing.userId}, ${coins(existing.amount, this.seq.reference.currency(existing.currency).spec.decimals)} ${existing.currency})`,
          );
        return { row: existing, created: false };
      }
      const seq = this.seq;
      const entry = holdFee(seq.ledger, { holdId, userId: args.userId, currency: code, amount });
      if (!entry.ok) {
        if (entry.code === "INSUFFICIENT_FUNDS") {
          const available = balanceOf(seq.ledger, args.userId, code).available;
          throw new DomainError(
            "INSUFFICIENT_BALANCE",
            `Fee hold ${holdId}: ${coins(available, currency.spec.decimals)} ${code} available, ${coins(amount, currency.spec.decimals)} required`,
          );
        }
        throw new Error(`fee hold ${holdId}: ${entry.message}`);
      }
      seq.admit();
      const row: FeeHoldRow = {
        id: holdId,
        userId: args.userId,
        currency: code,
        amount,
        status: "held",
        reference: null,
        memo: args.memo ?? null,
        createdAt: seq.nowMs(),
        resolvedAt: null,
      };
      seq.mutating(() => {
        applyEntry(seq.ledger, entry.value);
        seq.feeHolds.set(holdId, row);
      });
      await this.commit(row, entry.value);
      return { row, created: true };
    });
  }

  /** Burns the held fee (the action was mined). Settling a settled hold answers it; a released one is HOLD_CONFLICT. */
  settle(holdId: string, reference?: string | null): Promise<FeeHoldRow> {
    return this.resolve(holdIdOf(holdId), "settle", reference ?? null);
  }

  /** Returns the held fee to available (the action failed). Releasing a released hold answers it; a settled one is HOLD_CONFLICT. */
  release(holdId: string): Promise<FeeHoldRow> {
    return this.resolve(holdIdOf(holdId), "release", null);
  }

  /** A hold as committed, whatever its status; NOT_FOUND when there is none. */
  async get(holdId: string): Promise<FeeHoldRow> {
    const id = holdIdOf(holdId);
    const row = await this.store.getFeeHold(id);
    if (row === null) throw new DomainError("NOT_FOUND", `No fee hold ${id}`);
    return row;
  }

  private resolve(holdId: string, action: FeeHoldAction, reference: string | null): Promise<FeeHoldRow> {
    return this.perHold.run([holdId], async () => {
      const seq = this.seq;
      const open = seq.feeHolds.get(holdId);
      if (open === undefined) {
        const stored = await this.store.getFeeHold(holdId);
        if (stored === null) {
          if (action === "release") this.tombstone(holdId);
          throw new DomainError(
            "NOT_FOUND",
            action === "release"
              ? `No fee hold ${holdId}; a hold with this id arriving later is refused`
              : `No fee hold ${holdId}`,
          );
        }
        const step = feeHoldStep(stored.status, action);
        if (step === "repeat") return stored;
        if (step === "conflict")
          throw new DomainError(
            "HOLD_CONFLICT",
            `Fee hold ${holdId} was already ${stored.status}; it cannot be ${action}d`,
          );
        // Held in the database but not in memory: the two are out of step, a bug.
        throw new Error(`fee hold ${holdId} is held in the database but not in the working state`);
      }
      const entry = action === "settle" ? settleFee(seq.ledger, holdId) : releaseFee(seq.ledger, holdId);
      if (!entry.ok) throw new Error(`fee hold ${holdId}: ${entry.message}`);
      seq.admit();
      const row: FeeHoldRow = {
        ...open,
        status: action === "settle" ? "settled" : "released",
        reference: action === "settle" ? reference : null,
        resolvedAt: seq.nowMs(),
      };
      seq.mutating(() => {
        applyEntry(seq.ledger, entry.value);
        seq.feeHolds.delete(holdId);
      });
      await this.commit(row, entry.value);
      return row;
    });
  }

  private tombstone(holdId: string): void {
    const t = this.seq.nowMs();
    this.tombstones.delete(holdId);
    this.tombstones.set(holdId, t);
    for (const [id, at] of this.tombstones) {
      if (this.tombstones.size <= MAX_TOMBSTONES && t - at < TOMBSTONE_TTL_MS) break;
      this.tombstones.delete(id);
    }
  }

  private tombstoned(holdId: string): boolean {
    const at = this.tombstones.get(holdId);
    return at !== undefined && this.seq.nowMs() - at < TOMBSTONE_TTL_MS;
  }

  private commit(row: FeeHoldRow, entry: Entry): Promise<void> {
    return this.seq.commit({ feeHolds: [row], entries: [entry], ...balancesTouched(this.seq.ledger, [entry]) });
  }
}

/** Base units as decimal text without trailing zeros: 0.25, not 0.250000000000000000. */
function coins(units: bigint, decimals: number): string {
  return formatUnits(units, decimals, { trimZeros: true });
}

/** A hold id: a UUID, kept lower-case (as the database returns it) so every lookup finds it. */
function holdIdOf(text: string): string {
  const id = text.toLowerCase();
  if (!UUID.test(id)) throw invalidInput("holdId", "must be a UUID");
  return id;
}
