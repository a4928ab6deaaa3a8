import { parseUnits } from "../money/decimal.ts";
import type { CurrencySpec, PairSpec } from "../money/pair.ts";
import { applyRateRoundingUp, parseRate, ZERO_RATE, type Rate } from "../money/rate.ts";
import type { TradeEvent } from "../matching/types.ts";
import { fail, ok, type Result } from "../result.ts";

/** A row of SPEC.md's commission table, decimals kept as text so none passes through a float. */
export interface CommissionRecord {
  readonly commissionId: string;
  readonly currencyCode: string | null;
  readonly currencyPairCode: string | null;
  readonly currencyAdapterCode: string | null;
  /** Fraction: "0.001" is 0.1%. */
  readonly percent: string;
  /** Least fee in commissionCurrencyCode (or currencyCode when that is null). */
  readonly minimum: string;
  readonly commissionCurrencyCode: string | null;
  readonly commissionTypeCode: string;
}

/** SPEC.md fixes "1" (Refill, a deposit); the other codes are ours. */
export const COMMISSION_TYPES = {
  refill: "1",
  withdrawal: "2",
  tradeMaker: "3",
  tradeTaker: "4",
} as const;

/** A commission resolved for one currency: fee = max(amount x rate rounded up, minimum), never above amount. */
export interface FeeRule {
  readonly rate: Rate;
  /** In base units of the currency the fee is charged in. */
  readonly minimum: bigint;
}

export const NO_FEE: FeeRule = { rate: ZERO_RATE, minimum: 0n };

export function feeFor(amount: bigint, rule: FeeRule): bigint {
  const proportional = applyRateRoundingUp(amount, rule.rate);
  const fee = proportional > rule.minimum ? proportional : rule.minimum;
  // A fee is taken from the amount it is charged on, so it can at most swallow it.
  return fee < amount ? fee : amount;
}

export interface FeeQuery {
  readonly typeCode: string;
  /** The currency the fee is charged in: for trades, the currency the user receives. */
  readonly currency: CurrencySpec;
  readonly pairCode?: string | null;
  readonly adapterCode?: string | null;
}

/**
 * Picks the most specific record that applies (pair over currency over adapter over a
 * default row with all three null; the first listed on a tie). No matching record
 * means no fee. The `minimum` applies only when it is measured in the fee's own
 * currency: converting it would need a price, which has no place in a pure ledger.
 */
export function resolveFeeRule(
  records: readonly CommissionRecord[],
  query: FeeQuery,
): Result<FeeRule, "INVALID_COMMISSION"> {
  let best: CommissionRecord | undefined;
  let bestScore = -1;
  for (const record of records) {
    if (record.commissionTypeCode !== query.typeCode) continue;
    if (!matches(record.currencyPairCode, query.pairCode)) continue;
    if (!matches(record.currencyCode, query.currency.code)) continue;
    if (!matches(record.currencyAdapterCode, query.adapterCode)) continue;
    const score =
      (record.currencyPairCode !== null ? 4 : 0) +
      (record.currencyCode !== null ? 2 : 0) +
      (record.currencyAdapterCode !== null ? 1 : 0);
    if (score > bestScore) {
      best = record;
      bestScore = score;
    }
  }
  if (best === undefined) return ok(NO_FEE);
  const rate = parseRate(best.percent);
  if (!rate.ok) return fail("INVALID_COMMISSION", `commission ${best.commissionId}: ${rate.message}`);
  const minimumCurrency = best.commissionCurrencyCode ?? best.currencyCode;
  if (minimumCurrency !== query.currency.code) return ok({ rate: rate.value, minimum: 0n });
  const minimum = parseUnits(best.minimum, query.currency.decimals, "up");
  if (!minimum.ok || minimum.value < 0n) {
    return fail(
      "INVALID_COMMISSION",
      `commission ${best.commissionId}: minimum ${best.minimum} is not a ${query.currency.code} amount`,
    );
  }
  return ok({ rate: rate.value, minimum: minimum.value });
}

/** Trade fees of one pair, by role and by the currency received: buyers get base, sellers quote. */
export interface PairFees {
  readonly maker: { readonly base: FeeRule; readonly quote: FeeRule };
  readonly taker: { readonly base: FeeRule; readonly quote: FeeRule };
}

/**
 * Fees of one trade when they depend on who trades (user tiers): maker rules from the maker's
 * tier, taker rules from the taker's. A plain PairFees is the same for everyone.
 */
export type TradeFees = PairFees | ((trade: TradeEvent) => PairFees);

export function feesOfTrade(fees: TradeFees, trade: TradeEvent): PairFees {
  return typeof fees === "function" ? fees(trade) : fees;
}

/**
 * The commission rows that apply to a user of `level`: rows carry the least level they apply
 * to (0 for the default rows), and of rows for the same slot (type, currency, pair, adapter)
 * the one with the highest least level not above the user's wins, so a tier row overrides the
 * default row it shadows and nothing else.
 */
export function commissionsForLevel<R extends CommissionRecord & { readonly minLevel: number }>(
  records: readonly R[],
  level: number,
): R[] {
  const bySlot = new Map<string, R>();
  for (const record of records) {
    if (record.minLevel > level) continue;
    const slot = slotOf(record);
    const current = bySlot.get(slot);
    if (current === undefined || record.minLevel > current.minLevel) bySlot.set(slot, record);
  }
  return records.filter((record) => bySlot.get(slotOf(record)) === record);
}

function slotOf(record: CommissionRecord): string {
  return [record.commissionTypeCode, record.currencyCode, record.currencyPairCode, record.currencyAdapterCode].join(
    "\u0000",
  );
}

export function resolvePairFees(
  records: readonly CommissionRecord[],
  pair: PairSpec,
): Result<PairFees, "INVALID_COMMISSION"> {
  const rules: FeeRule[] = [];
  for (const typeCode of [COMMISSION_TYPES.tradeMaker, COMMISSION_TYPES.tradeTaker]) {
    for (const currency of [pair.base, pair.quote]) {
      const rule = resolveFeeRule(records, { typeCode, currency, pairCode: pair.code });
      if (!rule.ok) return rule;
      rules.push(rule.value);
    }
  }
  const [makerBase, makerQuote, takerBase, takerQuote] = rules;
  return ok({ maker: { base: makerBase, quote: makerQuote }, taker: { base: takerBase, quote: takerQuote } });
}

function matches(recordValue: string | null, wanted: string | null | undefined): boolean {
  return recordValue === null || recordValue === wanted;
}
