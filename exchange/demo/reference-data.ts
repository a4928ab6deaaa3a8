import { randomUUID } from "node:crypto";
import {
  insertCommission,
  insertCurrency,
  upsertPair,
  type CommissionRow,
  type CurrencyRow,
  type Db,
  type PairRow,
} from "../adapters/store/index.ts";

// The demo market `npm start` opens: the chain's native asset and a stable coin, the pair
// between them, and a commission table with default rows and a lower tier for level 20 and
// above. The agent tokens come later, as ordinary listings of the tokens the chain's seed spawns
// (application/listings.ts, adapters/listing): a currency <SYMBOL>, a pair <SYMBOL>_USDT and a
// withdrawal fee in the token. Exchange-only tests, which have no chain, add fixed agent tokens
// to this market (support/exchange/fixture-market.ts).

export interface ReferenceDataSeed {
  readonly currencies: CurrencyRow[];
  readonly pairs: PairRow[];
  readonly commissions: Omit<CommissionRow, "commissionId">[];
}

export const DEMO_BASE_MARKET: ReferenceDataSeed = {
  currencies: [
    {
      code: "USDT",
      name: "Tether USD",
      decimals: 6,
      canDeposit: true,
      canWithdraw: true,
      minWithdraw: "5",
      maxWithdraw: "1000000",
      // Per user, any 24 h; above the threshold an operator approves (exchange/README.md, Withdrawals).
      dailyWithdrawLimit: "2000000",
      withdrawApprovalThreshold: "50000",
      unifiedCryptoassetId: 825,
      adapterCode: "ERC20",
      position: 1,
    },
    {
      code: "ETH",
      name: "Ether",
      decimals: 18,
      canDeposit: true,
      canWithdraw: true,
      minWithdraw: "0.005",
      maxWithdraw: "1000",
      dailyWithdrawLimit: "2000",
      withdrawApprovalThreshold: "50",
      unifiedCryptoassetId: 1027,
      adapterCode: "EVM",
      position: 2,
    },
  ],
  pairs: [
    {
      code: "ETH_USDT",
      base: "ETH",
      quote: "USDT",
      digitsPrice: 2,
      digitsAmount: 4,
      minQuoteAmount: "1",
      active: true,
    },
  ],
  commissions: [
    // Trades: maker and taker, default and from level 20 (SPEC.md: privileged traders pay less).
    commission("3", null, null, "0.001", "0", 0),
    commission("4", null, null, "0.002", "0", 0),
    commission("3", null, null, "0.0005", "0", 20),
    commission("4", null, null, "0.001", "0", 20),
    // Deposits (type 1, Refill) are free; withdrawals cost a flat minimum per currency (a listed
    // token's own row comes with its listing: LISTING_TEMPLATE.withdrawalFeeMinimum).
    commission("1", null, null, "0", "0", 0),
    commission("2", "USDT", "ERC20", "0", "1", 0),
    commission("2", "ETH", "EVM", "0", "0.001", 0),
  ],
};

export function commission(
  typeCode: string,
  currencyCode: string | null,
  adapterCode: string | null,
  percent: string,
  minimum: string,
  minLevel: number,
) {
  return {
    currencyCode,
    currencyPairCode: null,
    currencyAdapterCode: adapterCode,
    percent,
    minimum,
    commissionCurrencyCode: currencyCode,
    commissionTypeCode: typeCode,
    minLevel,
  };
}

/** Writes the reference data into an empty exchange; a database that has currencies is left alone. */
export async function seedReferenceData(db: Db, data: ReferenceDataSeed = DEMO_BASE_MARKET): Promise<boolean> {
  const [{ count }] = await db.query<{ count: string }>("select count(*)::text as count from currencies");
  if (Number(count) > 0) return false;
  for (const row of data.currencies) await insertCurrency(db, row);
  for (const row of data.pairs) await upsertPair(db, row);
  for (const row of data.commissions) await insertCommission(db, { commissionId: randomUUID(), ...row });
  return true;
}

/** startExchange's beforeLoad for the demo market (`npm start`): its base market on an empty database. */
export async function seedDemoBeforeLoad(db: Db): Promise<void> {
  await seedReferenceData(db);
}
