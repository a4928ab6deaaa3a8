import { randomUUID } from "node:crypto";
import { KeyedLock } from "../../lib/keyed-lock.ts";
import type { ExchangeStore } from "./ports.ts";
import type { CommissionRow, PairRow, TokenListingRows } from "./records.ts";
import { ReferenceData, type Pair } from "./reference-data.ts";
import type { Sequencer } from "./sequencer.ts";

// Listing spawned agent tokens: a token the ecosystem indexed becomes a currency (bound to its
// contract address) and a pair against the listing quote currency, with one template's settings
// (LISTING_TEMPLATE); this is how the demo market gets its agent tokens. A listing is written in one transaction and then added to the working state
// (reference data and a new, empty book), so orders on the new pair are taken at once; a restart
// or a reload after an outage loads it from the database like every other pair.
//
// Exactly once: listings run one at a time; a token already listed under its symbol and address is
// answered "already-listed" and writes nothing. A symbol held by another currency (another
// token's, or one set up without a contract, such as USDT, ETH or a test fixture's agent token)
// and an address listed under another symbol are refused with a stable code, never overwritten.

/** The settings of a listed token's currency, pair and commissions. */
export const LISTING_TEMPLATE = {
  quote: "USDT",
  decimals: 18,
  canDeposit: true,
  canWithdraw: true,
  minWithdraw: "10",
  maxWithdraw: "10000000",
  dailyWithdrawLimit: "20000000",
  withdrawApprovalThreshold: "1000000",
  adapterCode: "ERC20",
  digitsPrice: 4,
  digitsAmount: 2,
  minQuoteAmount: "1",
  /** Withdrawal fee (commission type 2), a flat minimum in the token. */
  withdrawalFeeMinimum: "5",
} as const;

export interface TokenToList {
  readonly symbol: string;
  readonly name: string;
  /** The token contract (any letter case; stored lower-case). */
  readonly contractAddress: string;
}

/** Why a token is not listed. */
export type ListingRefusal = "INVALID_TOKEN" | "SYMBOL_TAKEN" | "ADDRESS_TAKEN" | "NO_QUOTE_CURRENCY";

export type ListingOutcome =
  | { readonly status: "listed"; readonly currency: string; readonly pairCode: string }
  | { readonly status: "already-listed"; readonly currency: string }
  | { readonly status: "refused"; readonly code: ListingRefusal; readonly message: string };

const SYMBOL = /^[A-Z0-9]{1,16}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export interface ListingsOptions {
  readonly sequencer: Sequencer;
  readonly store: ExchangeStore;
  /** Adds a new pair's empty book to the working state (Recovery.openMarket). */
  readonly openMarket: (pair: Pair) => void;
  readonly log: (message: string) => void;
}

export class Listings {
  private readonly options: ListingsOptions;
  private readonly lock = new KeyedLock();

  constructor(options: ListingsOptions) {
    this.options = options;
  }

  /** Lists a spawned token once; see the top of this file. Throws only when storage failed (retry). */
  list(token: TokenToList): Promise<ListingOutcome> {
    return this.lock.run(["listing"], async () => {
      const outcome = await this.decide(token);
      if (outcome.status === "refused")
        this.options.log(
          `exchange: not listing ${JSON.stringify(token.symbol)} (${token.contractAddress}): ${outcome.code} ${outcome.message}`,
        );
      return outcome;
    });
  }

  private async decide(token: TokenToList): Promise<ListingOutcome> {
    const { sequencer: seq, store, log } = this.options;
    const refuse = (code: ListingRefusal, message: string): ListingOutcome => ({ status: "refused", code, message });
    if (!SYMBOL.test(token.symbol))
      return refuse("INVALID_TOKEN", "the symbol is not a currency code (A-Z 0-9, 1 to 16)");
    if (!ADDRESS.test(token.contractAddress))
      return refuse("INVALID_TOKEN", "the contract address is not 0x and 40 hex digits");
    const symbol = token.symbol;
    const address = token.contractAddress.toLowerCase();
    const reference = seq.reference;
    const quote = reference.currencies.get(LISTING_TEMPLATE.quote);
    if (quote === undefined) return refuse("NO_QUOTE_CURRENCY", `the exchange has no ${LISTING_TEMPLATE.quote}`);
    for (const currency of reference.currencies.values()) {
      if (currency.row.contractAddress !== address) continue;
      if (currency.row.code === symbol) return { status: "already-listed", currency: symbol };
      return refuse("ADDRESS_TAKEN", `the contract is listed as ${currency.row.code}`);
    }
    const same = reference.currencies.get(symbol);
    if (same !== undefined) {
      const row = same.row;
      return refuse(
        "SYMBOL_TAKEN",
        row.contractAddress != null
          ? `${symbol} is the token at ${row.contractAddress}`
          : `${symbol} is a currency of the exchange, not a listed token`,
      );
    }
    const rows = listingRows(symbol, cleanName(token.name, symbol), address, reference);
    // Checked against the reference data before anything is written, so memory cannot refuse
    // what the database took.
    new ReferenceData(
      [...[...reference.currencies.values()].map((c) => c.row), rows.currency],
      [...[...reference.pairs.values()].map((p) => p.row), rows.pair],
      [...reference.commissions, ...rows.commissions],
    );
    const written = await store.insertListing(rows);
    if (!written.inserted) {
      // Only when memory is behind the database (a write whose answer was lost): a reload (which
      // such a loss starts) brings the rows in, and the retry then finds them.
      throw new Error(
        `exchange: the database already has ${written.existing.map((c) => `${c.code} (${c.contractAddress ?? "no contract"})`).join(", ")}; retry after the reload`,
      );
    }
    this.apply(rows);
    log(`exchange: listed ${symbol} (${address}) as ${rows.pair.code}`);
    return { status: "listed", currency: symbol, pairCode: rows.pair.code };
  }

  /** Adds committed listing rows to the working state, unless a reload already loaded them. */
  private apply(rows: TokenListingRows): void {
    const { sequencer: seq, openMarket } = this.options;
    const reference = seq.reference;
    if (reference.currencies.has(rows.currency.code) || seq.markets.has(rows.pair.code)) return;
    seq.mutating(() => {
      reference.addCurrency(rows.currency);
      reference.setCommissions([...reference.commissions, ...rows.commissions]);
      openMarket(reference.setPair(rows.pair));
    });
  }
}

function listingRows(symbol: string, name: string, address: string, reference: ReferenceData): TokenListingRows {
  const t = LISTING_TEMPLATE;
  const position = Math.max(0, ...[...reference.currencies.values()].map((c) => c.row.position)) + 1;
  const pair: PairRow = {
    code: `${symbol}_${t.quote}`,
    base: symbol,
    quote: t.quote,
    digitsPrice: t.digitsPrice,
    digitsAmount: t.digitsAmount,
    minQuoteAmount: t.minQuoteAmount,
    active: true,
  };
  const withdrawalFee: CommissionRow = {
    commissionId: randomUUID(),
    currencyCode: symbol,
    currencyPairCode: null,
    currencyAdapterCode: t.adapterCode,
    percent: "0",
    minimum: t.withdrawalFeeMinimum,
    commissionCurrencyCode: symbol,
    commissionTypeCode: "2",
    minLevel: 0,
  };
  return {
    currency: {
      code: symbol,
      name,
      decimals: t.decimals,
      canDeposit: t.canDeposit,
      canWithdraw: t.canWithdraw,
      minWithdraw: t.minWithdraw,
      maxWithdraw: t.maxWithdraw,
      dailyWithdrawLimit: t.dailyWithdrawLimit,
      withdrawApprovalThreshold: t.withdrawApprovalThreshold,
      unifiedCryptoassetId: null,
      adapterCode: t.adapterCode,
      position,
      contractAddress: address,
    },
    pair,
    commissions: [withdrawalFee],
  };
}

/** A token name as stored: well-formed text without control characters, at most 100 characters. */
export function cleanName(name: string, symbol: string): string {
  const wellFormed = name.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
  const printable = [...wellFormed].filter((ch) => {
    const code = ch.codePointAt(0)!;
    return code >= 0x20 && code !== 0x7f;
  });
  const clean = [...printable.join("").trim()].slice(0, 100).join("");
  return clean === "" ? symbol : clean;
}
