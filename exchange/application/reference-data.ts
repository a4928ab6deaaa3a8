import { DomainError, invalidInput } from "../core/result.ts";
import {
  COMMISSION_TYPES,
  commissionsForLevel,
  resolveFeeRule,
  resolvePairFees,
  type FeeRule,
  type PairFees,
} from "../core/ledger/index.ts";
import { definePair, type CurrencySpec, type PairSpec } from "../core/money/index.ts";
import type { CommissionRow, CurrencyRow, PairRow } from "./records.ts";

// Reference data in memory: currencies, pairs and the commission table, with the fee rules each
// user tier resolves to cached, because a trade must not re-scan the commission table.

export interface Currency {
  readonly row: CurrencyRow;
  readonly spec: CurrencySpec;
}

export interface Pair {
  readonly row: PairRow;
  readonly spec: PairSpec;
}

export class ReferenceData {
  readonly currencies = new Map<string, Currency>();
  readonly pairs = new Map<string, Pair>();
  private commissionRows: CommissionRow[] = [];
  private readonly pairFeeCache = new Map<string, PairFees>();
  private readonly levelRows = new Map<number, CommissionRow[]>();
  private currencyChanges = 0;

  constructor(currencies: CurrencyRow[], pairs: PairRow[], commissions: CommissionRow[]) {
    for (const row of currencies) this.addCurrency(row);
    for (const row of pairs) this.setPair(row);
    this.setCommissions(commissions);
  }

  /**
   * Counts changes to the currencies (a listing adds one), so what is
   * derived from them can be cached per reference data object and this count.
   */
  get currenciesVersion(): number {
    return this.currencyChanges;
  }

  addCurrency(row: CurrencyRow): void {
    this.currencies.set(row.code, { row, spec: { code: row.code, decimals: row.decimals } });
    this.currencyChanges++;
  }

  /** Validates the pair's settings against its currencies; throws INVALID_PARAM naming the problem. */
  setPair(row: PairRow): Pair {
    const base = this.currencies.get(row.base);
    const quote = this.currencies.get(row.quote);
    if (base === undefined || quote === undefined) throw invalidInput("pair", `unknown currency in ${row.code}`);
    const spec = definePair({
      code: row.code,
      base: base.spec,
      quote: quote.spec,
      digitsPrice: row.digitsPrice,
      digitsAmount: row.digitsAmount,
      minQuoteAmount: row.minQuoteAmount,
    });
    if (!spec.ok) throw invalidInput("pair", spec.message);
    const pair = { row, spec: spec.value };
    this.pairs.set(row.code, pair);
    this.pairFeeCache.clear();
    return pair;
  }

  get commissions(): readonly CommissionRow[] {
    return this.commissionRows;
  }

  /**
   * Replaces the commission table after resolving every rule it yields (each tier's trade fees
   * on every pair, deposit and withdrawal fees on every currency), so a bad row is refused here,
   * at start-up, and never surfaces halfway through a trade.
   */
  setCommissions(rows: CommissionRow[]): void {
    const previous = this.commissionRows;
    this.commissionRows = rows;
    this.pairFeeCache.clear();
    this.levelRows.clear();
    try {
      for (const level of new Set([0, ...rows.map((row) => row.minLevel)])) {
        for (const pair of this.pairs.values()) this.pairFees(pair, level);
        for (const currency of this.currencies.values()) {
          this.walletFee("refill", currency, level);
          this.walletFee("withdrawal", currency, level);
        }
      }
    } catch (error) {
      this.commissionRows = previous;
      this.pairFeeCache.clear();
      this.levelRows.clear();
      throw new Error(`invalid commission table: ${(error as Error).message}`);
    }
  }

  /** The rows a user of `level` is charged by (tier rows shadow the defaults). */
  commissionsFor(level: number): CommissionRow[] {
    let rows = this.levelRows.get(level);
    if (rows === undefined) {
      rows = commissionsForLevel(this.commissionRows, level);
      this.levelRows.set(level, rows);
    }
    return rows;
  }

  pairFees(pair: Pair, level: number): PairFees {
    const key = `${pair.row.code}\u0000${level}`;
    let fees = this.pairFeeCache.get(key);
    if (fees === undefined) {
      const resolved = resolvePairFees(this.commissionsFor(level), pair.spec);
      if (!resolved.ok) throw new Error(resolved.message);
      fees = resolved.value;
      this.pairFeeCache.set(key, fees);
    }
    return fees;
  }

  walletFee(kind: "refill" | "withdrawal", currency: Currency, level: number): FeeRule {
    const rule = resolveFeeRule(this.commissionsFor(level), {
      typeCode: COMMISSION_TYPES[kind],
      currency: currency.spec,
      adapterCode: currency.row.adapterCode,
    });
    if (!rule.ok) throw new Error(rule.message);
    return rule.value;
  }

  currency(code: string): Currency {
    const currency = this.currencies.get(code);
    if (currency === undefined) throw new DomainError("UNKNOWN_CURRENCY", `Unknown currency ${code}`);
    return currency;
  }

  /** An active pair, or UNKNOWN_PAIR. */
  pair(code: string): Pair {
    const pair = this.pairs.get(code);
    if (pair === undefined || !pair.row.active) throw new DomainError("UNKNOWN_PAIR", `Unknown currency pair ${code}`);
    return pair;
  }
}
