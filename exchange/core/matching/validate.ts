import type { PlaceCommand, RejectCode } from "./types.ts";

/**
 * Checks that need no book. Shared by the fast and the model book: it is small
 * enough to read at a glance, and the unit tests pin every code it returns.
 */
export function validatePlace(command: PlaceCommand): RejectCode | null {
  if (!isPositiveSafeInteger(command.amount)) return "INVALID_AMOUNT";
  if (command.type === "limit") {
    if (!isPositiveSafeInteger(command.price)) return "INVALID_PRICE";
    if (command.quoteBudget !== undefined) return "INVALID_QUOTE_BUDGET";
    if (command.postOnly && command.timeInForce !== "GTC") return "INVALID_POST_ONLY";
    return null;
  }
  if (command.price !== undefined) return "INVALID_PRICE";
  // A market order never rests, so "good till cancelled" would be a promise we cannot keep.
  if (command.timeInForce === "GTC") return "INVALID_TIME_IN_FORCE";
  if (command.postOnly) return "INVALID_POST_ONLY";
  if (command.quoteBudget !== undefined && (!command.isBid || command.quoteBudget <= 0n)) return "INVALID_QUOTE_BUDGET";
  return null;
}

export function isPositiveSafeInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}
