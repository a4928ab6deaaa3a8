// Exact decimals for the consumer: JSON numbers kept as their source text, compared and
// multiplied as BigInt-scaled integers (written from SPEC.md alone, like the rest of this folder).

// ---------------------------------------------------------------------------------------------
// Exact numbers

/** A JSON number as the server wrote it. */
export class Num {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** An exact decimal: units / 10^scale. */
export interface Dec {
  readonly units: bigint;
  readonly scale: number;
}

export function dec(value: Num | string): Dec {
  const text = typeof value === "string" ? value : value.text;
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (m === null) throw new Error(`not a JSON number: ${text}`);
  const scale = (m[3]?.length ?? 0) - Number(m[4] ?? 0);
  const units = BigInt(`${m[1]}${m[2]}${m[3] ?? ""}`);
  return scale >= 0 ? { units, scale } : { units: units * 10n ** BigInt(-scale), scale: 0 };
}
export const up = (a: Dec, scale: number) => a.units * 10n ** BigInt(scale - a.scale);
export const cmp = (a: Dec, b: Dec) => {
  const s = Math.max(a.scale, b.scale);
  const [x, y] = [up(a, s), up(b, s)];
  return x < y ? -1 : x > y ? 1 : 0;
};
export const add = (a: Dec, b: Dec): Dec => ({
  units: up(a, Math.max(a.scale, b.scale)) + up(b, Math.max(a.scale, b.scale)),
  scale: Math.max(a.scale, b.scale),
});
export const mul = (a: Dec, b: Dec): Dec => ({ units: a.units * b.units, scale: a.scale + b.scale });
export const ZERO: Dec = { units: 0n, scale: 0 };
export const sum = (values: Dec[]) => values.reduce(add, ZERO);
/** Significant fractional digits (trailing zeros do not count). */
export function fractionDigits(a: Dec): number {
  let { units, scale } = a;
  while (scale > 0 && units % 10n === 0n) [units, scale] = [units / 10n, scale - 1];
  return scale;
}
/** The same value always prints the same text ("0.50" and "0.5" both print "0.5"). */
export function show(a: Dec): string {
  const scale = fractionDigits(a);
  a = { units: a.units / 10n ** BigInt(a.scale - scale), scale };
  const digits = (a.units < 0n ? -a.units : a.units).toString().padStart(a.scale + 1, "0");
  const text = a.scale === 0 ? digits : `${digits.slice(0, -a.scale)}.${digits.slice(-a.scale)}`;
  return a.units < 0n ? `-${text}` : text;
}

/** JSON.parse keeping every number as a Num holding its source text. */
export function parseExact(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: { source?: string }) => {
    if (typeof value !== "number") return value;
    if (context?.source === undefined) throw new Error("JSON.parse source text access needs Node >= 22");
    return new Num(context.source);
  };
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}
