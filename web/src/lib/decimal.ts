/**
 * Exact decimal strings as bigints at a fixed scale: the book's levels, candle prices and
 * percentage changes are compared, summed and divided here, never as floats.
 */

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** `text` (a decimal string, or a JSON number's exact source text) times 10^scale, truncated. */
export function toScaled(text: string, scale: number): bigint {
  const normalized = expandExponent(text.trim());
  if (!DECIMAL.test(normalized)) throw new Error(`not a decimal number: ${text}`);
  const negative = normalized.startsWith("-");
  const [whole, fraction = ""] = (negative ? normalized.slice(1) : normalized).split(".");
  const digits = BigInt(whole + fraction.slice(0, scale).padEnd(scale, "0"));
  return negative ? -digits : digits;
}

/** The decimal string of `value / 10^scale`, without trailing zeros. */
export function fromScaled(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** Compares two decimal strings numerically: -1, 0 or 1. */
export function compareDecimal(a: string, b: string): number {
  const scale = Math.max(fractionDigits(a), fractionDigits(b));
  const x = toScaled(a, scale);
  const y = toScaled(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function addDecimal(a: string, b: string): string {
  const scale = Math.max(fractionDigits(a), fractionDigits(b));
  return fromScaled(toScaled(a, scale) + toScaled(b, scale), scale);
}

export function isZeroDecimal(a: string): boolean {
  return toScaled(a, fractionDigits(a)) === 0n;
}

export function fractionDigits(text: string): number {
  const normalized = expandExponent(text);
  const dot = normalized.indexOf(".");
  return dot < 0 ? 0 : normalized.length - dot - 1;
}

/** `1e-7` -> `0.0000001`: JSON numbers may come in exponent form; decimals never do here. */
function expandExponent(text: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?[eE]([+-]?\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction = "", exponentText] = match;
  const exponent = Number(exponentText);
  const digits = whole + fraction;
  const point = whole.length + exponent;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
