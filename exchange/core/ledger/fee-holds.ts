import { fail, ok, type Result } from "../result.ts";
import { balanceOf, feeHoldKey, holdOf } from "./state.ts";
import type { Entry, LedgerRejectCode, LedgerState } from "./types.ts";

// Fee holds: an on-chain action (a spawn) is paid from the user's exchange balance of the native
// currency. The fee is held (available -> fee-hold, shown as locked) before the transaction is
// sent; when it is mined the hold is settled (fee-hold -> burned: the token was burned on-chain
// and left the exchange); when it fails the hold is released (fee-hold -> available). A hold is
// resolved once: afterwards it is gone from the ledger's holds, so a second settle or release
// finds nothing to move (NO_OPEN_HOLD) and the caller answers from the hold's stored status
// (feeHoldStep).

export type FeeHoldStatus = "held" | "settled" | "released";
export type FeeHoldAction = "settle" | "release";

export interface FeeHoldRequest {
  /** The caller's id for the hold (a UUID); also the key of every later settle or release. */
  readonly holdId: string;
  readonly userId: string;
  readonly currency: string;
  /** Base units of the currency. */
  readonly amount: bigint;
}

/** Moves `amount` of the user's available balance into a hold of its own (locked). */
export function holdFee(state: LedgerState, request: FeeHoldRequest): Result<Entry, LedgerRejectCode> {
  const { holdId, userId, currency, amount } = request;
  if (amount <= 0n) return fail("INVALID_AMOUNT", `fee hold ${holdId}: amount must be positive`);
  if (holdOf(state, feeHoldKey(holdId)) !== undefined)
    return fail("DUPLICATE_HOLD_ID", `fee hold ${holdId} already holds funds`);
  const available = balanceOf(state, userId, currency).available;
  if (available < amount)
    return fail("INSUFFICIENT_FUNDS", `fee hold ${holdId}: needs ${amount} ${currency} units, ${available} available`);
  return ok({
    kind: "fee-hold",
    ref: holdId,
    postings: [
      { account: { kind: "available", userId }, currency, delta: -amount },
      { account: { kind: "fee-hold", userId, holdId }, currency, delta: amount },
    ],
  });
}

/** Burns what an open hold holds: the fee was paid on-chain. NO_OPEN_HOLD when none is open. */
export function settleFee(state: LedgerState, holdId: string): Result<Entry, LedgerRejectCode> {
  const hold = holdOf(state, feeHoldKey(holdId));
  if (hold === undefined) return fail("NO_OPEN_HOLD", `fee hold ${holdId} is not open`);
  return ok({
    kind: "fee-settle",
    ref: holdId,
    postings: [
      { account: { kind: "fee-hold", userId: hold.userId, holdId }, currency: hold.currency, delta: -hold.amount },
      { account: { kind: "burned" }, currency: hold.currency, delta: hold.amount },
    ],
  });
}

/** Returns what an open hold holds to available: the action failed. NO_OPEN_HOLD when none is open. */
export function releaseFee(state: LedgerState, holdId: string): Result<Entry, LedgerRejectCode> {
  const hold = holdOf(state, feeHoldKey(holdId));
  if (hold === undefined) return fail("NO_OPEN_HOLD", `fee hold ${holdId} is not open`);
  return ok({
    kind: "fee-release",
    ref: holdId,
    postings: [
      { account: { kind: "fee-hold", userId: hold.userId, holdId }, currency: hold.currency, delta: -hold.amount },
      { account: { kind: "available", userId: hold.userId }, currency: hold.currency, delta: hold.amount },
    ],
  });
}

/**
 * What a settle or release of a hold in `status` does: "apply" its entry (the hold is open),
 * answer the hold as it is ("repeat": it already ended that way), or refuse ("conflict": it
 * ended the other way). This is the rule that resolves a hold at most once.
 */
export function feeHoldStep(status: FeeHoldStatus, action: FeeHoldAction): "apply" | "repeat" | "conflict" {
  if (status === "held") return "apply";
  return (status === "settled") === (action === "settle") ? "repeat" : "conflict";
}
