import { type Hex, HttpRequestError, parseTransaction, TimeoutError } from "viem";

/**
 * What a node's answer to a broadcast means for the nonce the bytes carry.
 * - `known`: the node has these bytes already (a success).
 * - `taken`: the nonce is used or held by another transaction ("nonce too low", or "replacement
 *   transaction underpriced" for bytes that were not meant to replace anything): no gap.
 * - `early`: a nonce below is missing (Hardhat's automine, which refuses what geth would queue).
 * - `fees`: the fees were too low for the block or the pool: the same write, re-signed, may pass.
 * - `lost`: no answer (timeout, connection, a busy node): the node may have the bytes.
 * - `refused`: anything else (insufficient funds, gas limits, a bad transaction): these bytes will
 *   not be taken, and their nonce is free unless something else is sent with it.
 */
export type Refusal = "known" | "taken" | "early" | "fees" | "lost" | "refused";

export function refusalOf(error: unknown): Refusal {
  if (error instanceof HttpRequestError || error instanceof TimeoutError) return "lost";
  const text = String((error as Error)?.message ?? error);
  if (/already known|known transaction|already imported/i.test(text)) return "known";
  if (/nonce too low|replacement transaction underpriced/i.test(text)) return "taken";
  if (/nonce too high/i.test(text)) return "early";
  if (/base fee|too low for the next block|fee cap less than|transaction underpriced|fee too low/i.test(text))
    return "fees";
  if (/timeout|timed out|rate limit|too many requests|try again|temporarily/i.test(text)) return "lost";
  return "refused";
}

/** The most a transaction can take from its sender's balance: value plus gas limit times fee cap. */
export const costOf = ({ value, gas, maxFeePerGas }: { value: bigint; gas: bigint; maxFeePerGas: bigint }) =>
  value + gas * maxFeePerGas;

/** costOf signed bytes; 0 for bytes that do not parse (nothing the node would take). */
export function costOfRaw(raw: Hex): bigint {
  try {
    const tx = parseTransaction(raw);
    return costOf({ value: tx.value ?? 0n, gas: tx.gas ?? 0n, maxFeePerGas: tx.maxFeePerGas ?? tx.gasPrice ?? 0n });
  } catch {
    return 0n;
  }
}

/**
 * What the relayer's transactions not yet mined may still spend, by nonce (the dearest version at
 * each: the write's, a replacement's or a filler's). Read against a balance taken at a block
 * where `confirmed` nonces were mined: those are spent in that balance, every later one not yet.
 */
export class InFlight {
  private readonly costs = new Map<number, bigint>();

  commit(nonce: number, cost: bigint): void {
    const before = this.costs.get(nonce);
    if (before === undefined || cost > before) this.costs.set(nonce, cost);
  }

  /** Only `cost` is left at `nonce` (a filler took it: the write's refused bytes are in no pool). */
  set(nonce: number, cost: bigint): void {
    this.costs.set(nonce, cost);
  }

  /** The nonce is used by someone else's transaction: nothing of ours will spend there. */
  forget(nonce: number): void {
    this.costs.delete(nonce);
  }

  /** The total at `confirmed` and after; what is below is mined and forgotten. */
  committed(confirmed: number): bigint {
    let total = 0n;
    for (const [nonce, cost] of this.costs) {
      if (nonce < confirmed) this.costs.delete(nonce);
      else total += cost;
    }
    return total;
  }
}
