import { formatUnits, parseUnits } from "viem";
import { fromScaled, toScaled } from "./decimal.ts";

/**
 * How amounts, prices and times read on every page. Inputs are decimal strings (the APIs') or
 * bigint base units (the chain's); nothing here goes through a float.
 */

const SUBSCRIPT_DIGITS = "₀₁₂₃₄₅₆₇₈₉";

function subscript(n: number): string {
  return [...String(n)].map((d) => SUBSCRIPT_DIGITS[Number(d)]).join("");
}

function group(whole: string): string {
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function splitDecimal(text: string): { negative: boolean; whole: string; fraction: string } {
  const negative = text.startsWith("-");
  const [whole, fraction = ""] = (negative ? text.slice(1) : text).split(".");
  return { negative, whole: whole.replace(/^0+(?=\d)/, ""), fraction };
}

/**
 * An amount for reading: thousands grouped, at most `maxFraction` fractional digits (truncated,
 * never rounded up), trailing zeros dropped. `formatAmount("1234567.891", 2)` is `1,234,567.89`.
 */
export function formatAmount(text: string, maxFraction = 4): string {
  const { negative, whole, fraction } = splitDecimal(text);
  const kept = fraction.slice(0, maxFraction).replace(/0+$/, "");
  if (whole === "0" && kept === "" && /[1-9]/.test(fraction))
    return `${negative ? "-" : ""}<0.${"0".repeat(Math.max(0, maxFraction - 1))}1`;
  return `${negative ? "-" : ""}${group(whole)}${kept ? `.${kept}` : ""}`;
}

/** Base units of a token with `decimals` as an amount for reading (viem's exact formatUnits). */
export function formatUnitsAmount(value: bigint, decimals: number, maxFraction = 4): string {
  return formatAmount(formatUnits(value, decimals), maxFraction);
}

/**
 * A price for reading. Prices of agent tokens can be very small: below 0.0001 the run of zeros
 * after the point is written as a subscript count, DexScreener's style: `0.000000123` is
 * `0.0₆123` (six zeros), with 4 significant digits kept. Larger prices keep 4 significant digits
 * (at least 2 fractional ones below 1,000).
 */
export function formatPrice(text: string, significant = 4): string {
  const { negative, whole, fraction } = splitDecimal(text);
  const sign = negative ? "-" : "";
  if (whole !== "0") {
    const digitsLeft = Math.max(significant - whole.length, whole.length >= 4 ? 0 : 2);
    const kept = fraction.slice(0, digitsLeft).replace(/0+$/, "");
    return `${sign}${group(whole)}${kept ? `.${kept}` : ""}`;
  }
  const zeros = /^0*/.exec(fraction)![0].length;
  if (zeros === fraction.length) return "0";
  const digits = fraction.slice(zeros, zeros + significant).replace(/0+$/, "");
  if (zeros >= 4) return `${sign}0.0${subscript(zeros)}${digits}`;
  return `${sign}0.${"0".repeat(zeros)}${digits}`;
}

/**
 * Large figures (TVL, volume) compactly: `1.23M`, `45.6K`; truncated, exact. Below 10,000 the
 * amount as formatAmount writes it.
 */
export function formatCompact(text: string, maxFraction = 2): string {
  const { negative, whole } = splitDecimal(text);
  const units: [bigint, string][] = [
    [10n ** 12n, "T"],
    [10n ** 9n, "B"],
    [10n ** 6n, "M"],
    [10n ** 3n, "K"],
  ];
  const value = BigInt(whole);
  for (const [size, suffix] of units) {
    if (value >= size && value >= 10_000n) {
      const scaled = (toScaled(negative ? text.slice(1) : text, 2) * 100n) / (size * 100n);
      return `${negative ? "-" : ""}${formatAmount(fromScaled(scaled, 2), maxFraction)}${suffix}`;
    }
  }
  return formatAmount(text, maxFraction);
}

export type ParsedAmount = { ok: true; value: bigint } | { ok: false; error: string };

/**
 * What a user typed as an amount of a token with `decimals`: digits with at most one point, no
 * more fractional digits than the token has, more than zero. Exact (viem's parseUnits).
 */
export function parseAmount(text: string, decimals: number): ParsedAmount {
  const trimmed = text.trim().replace(/,/g, "");
  if (trimmed === "") return { ok: false, error: "Enter an amount" };
  if (!/^\d*\.?\d*$/.test(trimmed) || trimmed === ".") return { ok: false, error: "Enter a number such as 12.5" };
  const fraction = trimmed.split(".")[1] ?? "";
  if (fraction.length > decimals) return { ok: false, error: `At most ${decimals} decimal places` };
  const value = parseUnits(trimmed, decimals);
  if (value === 0n) return { ok: false, error: "Enter an amount above zero" };
  return { ok: true, value };
}

/**
 * A slippage tolerance typed in percent ("0.5") as basis points (50): 0.01% steps, from 0 to
 * 50%, exact.
 */
export function parseSlippageBps(text: string): { ok: true; bps: bigint } | { ok: false; error: string } {
  const trimmed = text.trim();
  if (!/^\d+(\.\d{0,2})?$/.test(trimmed)) return { ok: false, error: "Slippage: a percentage with at most 2 decimals" };
  const bps = parseUnits(trimmed, 2);
  if (bps > 5000n) return { ok: false, error: "Slippage: at most 50%" };
  return { ok: true, bps };
}

/**
 * Change from `from` to `to` as a signed percentage with 2 decimals ("+12.34%", "-0.50%"),
 * truncated toward zero; null when `from` is zero (no change can be said).
 */
export function percentChange(from: string, to: string): string | null {
  const a = toScaled(from, 36);
  const b = toScaled(to, 36);
  if (a === 0n) return null;
  const hundredths = ((b - a) * 10_000n) / a;
  const sign = hundredths > 0n ? "+" : hundredths < 0n ? "-" : "";
  return `${sign}${formatAmount(fromScaled(hundredths < 0n ? -hundredths : hundredths, 2), 2)}%`;
}

/** A fraction ("0.1234") as a percentage with 2 decimals ("12.34%"), truncated. */
export function formatShare(fraction: string): string {
  return `${formatAmount(fromScaled(toScaled(fraction, 4), 2), 2)}%`;
}

/** "just now", "42 s ago", "3 min ago", "5 h ago", "2 days ago"; "in 3 min" for future times. */
export function relativeTime(unixSeconds: number, nowMs: number): string {
  const delta = Math.round(nowMs / 1000) - unixSeconds;
  const future = delta < 0;
  const abs = Math.abs(delta);
  let text: string;
  if (abs < 5) return "just now";
  if (abs < 60) text = `${abs} s`;
  else if (abs < 3600) text = `${Math.floor(abs / 60)} min`;
  else if (abs < 86_400) text = `${Math.floor(abs / 3600)} h`;
  else {
    const days = Math.floor(abs / 86_400);
    text = `${days} day${days === 1 ? "" : "s"}`;
  }
  return future ? `in ${text}` : `${text} ago`;
}

/** An ISO-like UTC stamp for titles and tooltips: "2026-04-29 12:00:05 UTC". */
export function absoluteTime(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().replace("T", " ").slice(0, 19)} UTC`;
}

/** `0x1234…abcd`. */
export function shortAddress(address: string): string {
  return `${address.slice(0, 6)}…${address.slice(-4)}`;
}
