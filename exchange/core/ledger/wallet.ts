import { MAX_STORED_UNITS } from "../money/decimal.ts";
import type { CurrencySpec } from "../money/pair.ts";
import { fail, ok, type Result } from "../result.ts";
import { feeFor, type FeeRule } from "./commissions.ts";
import { balanceOf, supplyOf } from "./state.ts";
import type { Entry, LedgerRejectCode, LedgerState } from "./types.ts";

export interface DepositRequest {
  /** The deposit's own id, e.g. chain transaction and log index. */
  readonly depositId: string;
  readonly userId: string;
  readonly currency: CurrencySpec;
  readonly amount: bigint;
  /** The Refill commission for this currency (and adapter). */
  readonly fee: FeeRule;
}

/**
 * Credits a deposit less its fee. Money that arrived is refused only when the amount is not
 * positive, or when it would take what the exchange holds of the currency past what storage
 * holds (MAX_STORED_UNITS): no balance could then be written, and a failed commit stops the exchange.
 */
export function deposit(state: LedgerState, request: DepositRequest): Result<Entry, LedgerRejectCode> {
  const { depositId, userId, currency, amount } = request;
  if (amount <= 0n) return fail("INVALID_AMOUNT", `deposit ${depositId}: amount must be positive`);
  const held = supplyOf(state, currency.code);
  if (held + amount > MAX_STORED_UNITS) {
    return fail(
      "OUT_OF_RANGE",
      `deposit ${depositId}: ${currency.code} held would exceed 10^78 - 1 base units (${held} held, ${amount} more)`,
    );
  }
  const fee = feeFor(amount, request.fee);
  return ok({
    kind: "deposit",
    ref: depositId,
    postings: withoutZeros([
      { account: { kind: "external" }, currency: currency.code, delta: -amount },
      { account: { kind: "available", userId }, currency: currency.code, delta: amount - fee },
      { account: { kind: "fees" }, currency: currency.code, delta: fee },
    ]),
  });
}

export interface WithdrawalRequest {
  readonly withdrawalId: string;
  readonly userId: string;
  readonly currency: CurrencySpec;
  /** Debited from the user; amount less the fee leaves the exchange. */
  readonly amount: bigint;
  readonly fee: FeeRule;
}

export function withdraw(state: LedgerState, request: WithdrawalRequest): Result<Entry, LedgerRejectCode> {
  const { withdrawalId, userId, currency, amount } = request;
  if (amount <= 0n) return fail("INVALID_AMOUNT", `withdrawal ${withdrawalId}: amount must be positive`);
  const available = balanceOf(state, userId, currency.code).available;
  if (available < amount) {
    return fail("INSUFFICIENT_FUNDS", `withdrawal ${withdrawalId}: ${amount} requested, ${available} available`);
  }
  const fee = feeFor(amount, request.fee);
  if (fee >= amount)
    return fail("AMOUNT_BELOW_FEE", `withdrawal ${withdrawalId}: the fee ${fee} takes the whole amount`);
  return ok({
    kind: "withdrawal",
    ref: withdrawalId,
    postings: withoutZeros([
      { account: { kind: "available", userId }, currency: currency.code, delta: -amount },
      { account: { kind: "fees" }, currency: currency.code, delta: fee },
      { account: { kind: "external" }, currency: currency.code, delta: amount - fee },
    ]),
  });
}

export interface WithdrawalRefundRequest {
  readonly withdrawalId: string;
  readonly userId: string;
  readonly currency: string;
  /** What the withdrawal debited (its amount, fee included). */
  readonly amount: bigint;
  /** The fee its entry booked. */
  readonly fee: bigint;
}

/**
 * Undoes a withdrawal that never reached the chain (reverted, dropped, rejected by an operator):
 * the exact reverse of its entry, so the amount and the fee return to available and the money
 * counts as the exchange's again (supply grows back by amount - fee).
 */
export function refundWithdrawal(
  state: LedgerState,
  request: WithdrawalRefundRequest,
): Result<Entry, LedgerRejectCode> {
  const { withdrawalId, userId, currency, amount, fee } = request;
  if (amount <= 0n || fee < 0n || fee >= amount)
    return fail(
      "INVALID_AMOUNT",
      `withdrawal refund ${withdrawalId}: amount ${amount} and fee ${fee} are not a withdrawal's`,
    );
  const fees = state.fees.get(currency) ?? 0n;
  // The fee was booked when the withdrawal was debited; a total below it means this entry does not match one.
  if (fees < fee)
    return fail(
      "INVALID_AMOUNT",
      `withdrawal refund ${withdrawalId}: fee ${fee} is more than the ${fees} ${currency} fees held`,
    );
  return ok({
    kind: "withdrawal-refund",
    ref: withdrawalId,
    postings: withoutZeros([
      { account: { kind: "external" }, currency, delta: -(amount - fee) },
      { account: { kind: "fees" }, currency, delta: -fee },
      { account: { kind: "available", userId }, currency, delta: amount },
    ]),
  });
}

export function withoutZeros<T extends { readonly delta: bigint }>(postings: T[]): T[] {
  return postings.filter((posting) => posting.delta !== 0n);
}
