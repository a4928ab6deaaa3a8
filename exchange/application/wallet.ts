import { randomUUID } from "node:crypto";
import { applyEntry, deposit as depositEntry, withdraw as withdrawEntry, type Entry } from "../core/ledger/index.ts";
import { formatUnits, parseCurrencyUnits } from "../core/money/index.ts";
import { KeyedLock } from "../../lib/keyed-lock.ts";
import { DomainError, invalidInput } from "../core/result.ts";
import type { Accounts } from "./accounts.ts";
import { InFlight } from "./in-flight.ts";
import { balancesTouched } from "./order-rows.ts";
import type { ExchangeStore } from "./ports.ts";
import type { CommissionRow, DepositRow, Page, WithdrawalRow } from "./records.ts";
import type { Currency } from "./reference-data.ts";
import type { Sequencer } from "./sequencer.ts";

// Balances, deposits and withdrawals, and the commissions a user is charged.

export interface WithdrawArgs {
  readonly userId: string;
  readonly currency: string;
  /** Decimal text in the currency. */
  readonly amount: string;
  readonly address: string;
  readonly clientWithdrawalId?: string;
}

/**
 * What a chain gateway checks before a withdrawal is debited (the address is one its chain takes
 * and not the exchange's own, the currency is one it can send): throws a DomainError to refuse.
 * Without a gateway, every address the HTTP schema lets through is taken (the withdrawal stays
 * pending).
 */
export interface WithdrawalGate {
  check(request: { readonly address: string; readonly currency: string }): void;
  /** Whether it can send `currency` at all (the aggregator's can_withdraw). */
  sends(currency: string): boolean;
  /** How deep a sent withdrawal's transaction is, as last seen (blocks, its own counted); undefined when not known. */
  confirmationsOf(withdrawalId: string): number | undefined;
  /** Why a pending withdrawal is not sent yet (the hot wallet short of the coin, the node refusing); undefined when nothing holds it. */
  waitingReasonOf(withdrawalId: string): string | undefined;
  /** The operator's switch of the sending (its withdrawals-paused kill switch). */
  readonly sending?: SendingSwitch;
}

/**
 * Paused, the sender sends no withdrawal: requests are still taken (debited, pending, with a
 * waiting reason) and go once sending resumes; ones already sent are still followed to completed.
 */
export interface SendingSwitch {
  readonly paused: boolean;
  pause(): void;
  resume(): void;
}

/** The daily limit's window: a rolling 24 h. */
export const DAILY_WINDOW_MS = 24 * 60 * 60_000;

export interface DepositArgs {
  readonly userId: string;
  readonly currency: string;
  /** Decimal text in the currency. */
  readonly amount: string;
  readonly reference: string | null;
  readonly depositId?: string;
}

export interface WalletOptions {
  readonly sequencer: Sequencer;
  readonly accounts: Accounts;
  /** The guarded store (refuses while the exchange is unavailable). */
  readonly store: ExchangeStore;
}

export class Wallet {
  private readonly seq: Sequencer;
  private readonly accounts: Accounts;
  private readonly store: ExchangeStore;
  private readonly depositIds = new InFlight<DepositRow>();
  private readonly withdrawalIds = new InFlight<WithdrawalRow>();
  /** One withdrawal per user and currency at a time: the daily limit's sum then sees every earlier one committed. */
  private readonly perUserCurrency = new KeyedLock();
  private gate: WithdrawalGate | undefined;

  constructor(options: WalletOptions) {
    this.seq = options.sequencer;
    this.accounts = options.accounts;
    this.store = options.store;
  }

  /** Installs (or with undefined removes) the chain gateway's check of withdrawal requests. */
  setWithdrawalGate(gate: WithdrawalGate | undefined): void {
    this.gate = gate;
  }

  /** Deposits of `code` are on and, with a chain gateway, it watches for them (the same asset it sends). */
  canDeposit(code: string): boolean {
    const currency = this.seq.reference.currencies.get(code);
    return currency?.row.canDeposit === true && (this.gate?.sends(code) ?? true);
  }

  /** Withdrawals of `code` are on and, with a chain gateway, it can send them. */
  canWithdraw(code: string): boolean {
    const currency = this.seq.reference.currencies.get(code);
    return currency?.row.canWithdraw === true && (this.gate?.sends(code) ?? true);
  }

  /** The gate's confirmation count of a sent withdrawal, when it knows one. */
  confirmationsOf(withdrawalId: string): number | undefined {
    return this.gate?.confirmationsOf(withdrawalId);
  }

  /** The chain sender's pause switch; undefined without a chain gateway. */
  sendingSwitch(): SendingSwitch | undefined {
    return this.gate?.sending;
  }

  /** The gate's reason for holding a pending withdrawal back, when there is one. */
  waitingReasonOf(withdrawalId: string): string | undefined {
    return this.gate?.waitingReasonOf(withdrawalId);
  }

  /** A user's committed balances in every currency. */
  balances(userId: string): { currency: string; available: bigint; locked: bigint }[] {
    return [...this.seq.reference.currencies.keys()].map((currency) => ({
      currency,
      ...this.seq.committed.balance(userId, currency),
    }));
  }

  /** A user's credited deposits, newest first. */
  deposits(userId: string, page: number, pageSize: number): Promise<Page<DepositRow>> {
    return this.store.listDeposits(userId, page, pageSize);
  }

  /** A user's withdrawals, newest first. */
  withdrawals(userId: string, page: number, pageSize: number): Promise<Page<WithdrawalRow>> {
    return this.store.listWithdrawals(userId, page, pageSize);
  }

  /** The commission rows a user is charged by (SPEC.md's GET /api/currencies/user/commissions). */
  commissionsOf(userId: string): CommissionRow[] {
    return this.seq.reference.commissionsFor(this.accounts.levelOf(userId));
  }

  /** Credits a deposit less its Refill commission; a repeated id returns the first deposit. */
  async deposit(args: DepositArgs): Promise<DepositRow> {
    this.accounts.requireUser(args.userId);
    const currency = this.seq.reference.currency(args.currency);
    if (!currency.row.canDeposit)
      throw new DomainError("DEPOSITS_DISABLED", `Deposits of ${currency.row.code} are disabled`);
    const amount = positiveAmount(currency, args.amount);
    const id = args.depositId ?? randomUUID();
    // A deposit id repeated while the first is still being credited, or after, is refused: it
    // must never be credited twice.
    const { value, replay } = await this.depositIds.once(
      id,
      () => this.store.getDeposit(id),
      () => this.credit(id, args.userId, currency, amount, args.reference),
    );
    if (replay) throw new DomainError("DUPLICATE_DEPOSIT", `Deposit ${id} was already credited`);
    return value;
  }

  private async credit(
    id: string,
    userId: string,
    currency: Currency,
    amount: bigint,
    reference: string | null,
  ): Promise<DepositRow> {
    const seq = this.seq;
    const fee = seq.reference.walletFee("refill", currency, this.accounts.levelOf(userId));
    const entry = depositEntry(seq.ledger, { depositId: id, userId, currency: currency.spec, amount, fee });
    if (!entry.ok) throw invalidInput("amount", entry.message);
    seq.admit();
    seq.mutating(() => applyEntry(seq.ledger, entry.value));
    const row: DepositRow = {
      id,
      userId,
      currency: currency.row.code,
      amount,
      fee: feeOfEntry(entry.value),
      reference,
      createdAt: seq.nowMs(),
    };
    await seq.commit({
      deposits: [row],
      entries: [entry.value],
      ...balancesTouched(seq.ledger, [entry.value]),
    });
    return row;
  }

  /**
   * Debits a withdrawal (the fee comes out of the amount) and queues it for sending. With a
   * clientWithdrawalId, a repeat (a client retrying after a timeout) returns the first withdrawal
   * as a replay and never debits twice.
   */
  async withdraw(args: WithdrawArgs): Promise<{ withdrawal: WithdrawalRow; replay: boolean }> {
    const clientId = args.clientWithdrawalId;
    if (clientId === undefined) return { withdrawal: await this.debit(args), replay: false };
    const { value, replay } = await this.withdrawalIds.once(
      `${args.userId}\u0000${clientId}`,
      () => this.store.getWithdrawalByClientId(args.userId, clientId),
      () => this.debit(args),
    );
    return { withdrawal: value, replay };
  }

  private async debit(args: WithdrawArgs): Promise<WithdrawalRow> {
    const seq = this.seq;
    const currency = seq.reference.currency(args.currency);
    if (!currency.row.canWithdraw)
      throw new DomainError("WITHDRAWALS_DISABLED", `Withdrawals of ${currency.row.code} are disabled`);
    const amount = positiveAmount(currency, args.amount);
    this.gate?.check({ address: args.address, currency: currency.row.code });
    const min =
      currency.row.minWithdraw === null ? null : parseCurrencyUnits(currency.row.minWithdraw, currency.spec, "up");
    const max =
      currency.row.maxWithdraw === null ? null : parseCurrencyUnits(currency.row.maxWithdraw, currency.spec, "down");
    if (min?.ok && amount < min.value)
      throw new DomainError(
        "BELOW_MIN_WITHDRAW",
        `amount: the minimum ${currency.row.code} withdrawal is ${currency.row.minWithdraw}`,
      );
    if (max?.ok && amount > max.value)
      throw new DomainError(
        "ABOVE_MAX_WITHDRAW",
        `amount: the maximum ${currency.row.code} withdrawal is ${currency.row.maxWithdraw}`,
      );
    const daily = limitOf(currency, currency.row.dailyWithdrawLimit, "down");
    const threshold = limitOf(currency, currency.row.withdrawApprovalThreshold, "down");
    const code = currency.row.code;
    return this.perUserCurrency.run([`${args.userId}\u0000${code}`], async () => {
      if (daily !== null) {
        const since = seq.nowMs() - DAILY_WINDOW_MS;
        const used = await this.store.withdrawnSince(args.userId, code, since);
        if (used + amount > daily)
          throw new DomainError(
            "DAILY_LIMIT_EXCEEDED",
            `amount: the ${code} daily withdrawal limit is ${currency.row.dailyWithdrawLimit}; ${formatUnits(used, currency.spec.decimals, { trimZeros: true })} withdrawn in the last 24 h, ${formatUnits(daily - used > 0n ? daily - used : 0n, currency.spec.decimals, { trimZeros: true })} left`,
          );
      }
      return this.debitChecked(args, currency, amount, threshold !== null && amount > threshold);
    });
  }

  private async debitChecked(
    args: WithdrawArgs,
    currency: Currency,
    amount: bigint,
    approvalRequired: boolean,
  ): Promise<WithdrawalRow> {
    const seq = this.seq;
    const id = randomUUID();
    const fee = seq.reference.walletFee("withdrawal", currency, this.accounts.levelOf(args.userId));
    const entry = withdrawEntry(seq.ledger, {
      withdrawalId: id,
      userId: args.userId,
      currency: currency.spec,
      amount,
      fee,
    });
    if (!entry.ok) {
      if (entry.code === "INSUFFICIENT_FUNDS") throw new DomainError("INSUFFICIENT_BALANCE", entry.message);
      if (entry.code === "AMOUNT_BELOW_FEE") throw new DomainError("AMOUNT_BELOW_FEE", entry.message);
      throw new DomainError("INVALID_PARAM", entry.message);
    }
    seq.admit();
    seq.mutating(() => applyEntry(seq.ledger, entry.value));
    const row: WithdrawalRow = {
      id,
      userId: args.userId,
      clientWithdrawalId: args.clientWithdrawalId ?? null,
      currency: currency.row.code,
      amount,
      fee: feeOfEntry(entry.value),
      address: args.address,
      status: "pending",
      createdAt: seq.nowMs(),
      txHash: null,
      sentAt: null,
      completedAt: null,
      failedAt: null,
      failureReason: null,
      approvalRequired,
      approvedAt: null,
    };
    await seq.commit({
      withdrawals: [row],
      entries: [entry.value],
      ...balancesTouched(seq.ledger, [entry.value]),
    });
    return row;
  }
}

/** A configured limit in base units; null when not configured (or not a valid amount: no limit, as min/max). */
function limitOf(currency: Currency, text: string | null | undefined, round: "up" | "down"): bigint | null {
  if (text == null) return null;
  const parsed = parseCurrencyUnits(text, currency.spec, round);
  return parsed.ok ? parsed.value : null;
}

function feeOfEntry(entry: Entry): bigint {
  return entry.postings
    .filter((posting) => posting.account.kind === "fees")
    .reduce((sum, posting) => sum + posting.delta, 0n);
}

/** A deposit's or withdrawal's amount in base units: positive, within the currency's decimals and storage. */
function positiveAmount(currency: Currency, text: string): bigint {
  const amount = parseCurrencyUnits(text, currency.spec);
  if (!amount.ok && amount.code === "OUT_OF_RANGE") throw invalidInput("amount", amount.message);
  if (!amount.ok || amount.value <= 0n)
    throw invalidInput(
      "amount",
      `must be a positive ${currency.row.code} amount with at most ${currency.spec.decimals} decimals`,
    );
  return amount.value;
}
