import { compareDecimal, fromScaled, toScaled } from "../lib/decimal.ts";
import type { Commission } from "./types.ts";

/**
 * Amounts typed into the wallet and order forms, as exact decimal strings: checked against a
 * currency's or a pair's digits, rounded down to them, and the withdrawal fee the exchange will
 * take. No float ever holds one.
 */

const DECIMAL = /^\d+(\.\d+)?$/;

export type Checked = { ok: true; value: string } | { ok: false; error: string };

/** A positive amount with at most `digits` decimals, normalized ("01.50" -> "1.5"). */
export function checkAmount(text: string, digits: number): Checked {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, error: "Enter an amount" };
  if (!DECIMAL.test(trimmed)) return { ok: false, error: "Digits and one decimal point only" };
  const fraction = trimmed.split(".")[1] ?? "";
  if (fraction.replace(/0+$/, "").length > digits)
    return { ok: false, error: `At most ${digits} decimal${digits === 1 ? "" : "s"}` };
  const value = fromScaled(toScaled(trimmed, digits), digits);
  if (value === "0") return { ok: false, error: "Must be more than 0" };
  return { ok: true, value };
}

/** `text` rounded down (toward zero) to `digits` decimals; "0" when nothing is left. */
export function roundDown(text: string, digits: number): string {
  return fromScaled(toScaled(text.trim(), digits), digits);
}

/** A commission's fraction as a percentage, exactly: "0.001" -> "0.1%". */
export function percentText(fraction: string): string {
  const scale = 30;
  return `${fromScaled(toScaled(fraction, scale) * 100n, scale)}%`;
}

/** Commission type 2 (SPEC.md: the withdrawal kind), the most specific row for the currency. */
export function withdrawalCommission(rows: readonly Commission[], currency: string): Commission | undefined {
  const matching = rows.filter(
    (r) => r.commissionTypeCode === "2" && r.currencyPairCode === null && (r.currencyCode ?? currency) === currency,
  );
  return matching.find((r) => r.currencyCode === currency) ?? matching[0];
}

/**
 * The fee the exchange takes from a withdrawal of `amount` (exchange/core/ledger/commissions.ts):
 * amount x percent rounded up to `digits`, at least the minimum (when it is in this currency),
 * never above the amount.
 */
export function withdrawalFee(amount: string, rule: Commission | undefined, currency: string, digits: number): string {
  if (rule === undefined) return "0";
  const scale = 36;
  const product = toScaled(amount, digits) * toScaled(rule.percent, scale);
  const unit = 10n ** BigInt(scale);
  const proportional = (product + unit - 1n) / unit;
  const minimumCurrency = rule.commissionCurrencyCode ?? rule.currencyCode;
  const minimum = minimumCurrency === currency ? ceilScaled(rule.minimum, digits) : 0n;
  const fee = proportional > minimum ? proportional : minimum;
  const whole = toScaled(amount, digits);
  return fromScaled(fee > whole ? whole : fee, digits);
}

function ceilScaled(text: string, digits: number): bigint {
  const down = toScaled(text, digits);
  return compareDecimal(fromScaled(down, digits), text) < 0 ? down + 1n : down;
}
