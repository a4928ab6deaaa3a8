import { LISTING_TEMPLATE } from "../../exchange/application/index.ts";
import { exchangeEnv, parseEnv } from "../../config/env.ts";
import { type CurrencyRow, type Db, migrate, openDb } from "../../exchange/adapters/store/index.ts";
import {
  commission,
  DEMO_BASE_MARKET,
  type ReferenceDataSeed,
  seedReferenceData,
} from "../../exchange/demo/reference-data.ts";

// The market of exchange-only tests and benches, which run without a chain or an ecosystem API
// to list tokens from: the demo's base market (USDT, ETH, ETH_USDT) plus fixed agent tokens
// ALPHA, BETA and GAMMA with the settings a listing gives (LISTING_TEMPLATE), but no contract,
// and pairs ALPHA_USDT, BETA_USDT and one against the native asset, GAMMA_ETH.

const agentToken = (code: string, name: string, position: number): CurrencyRow => ({
  code,
  name,
  decimals: LISTING_TEMPLATE.decimals,
  canDeposit: LISTING_TEMPLATE.canDeposit,
  canWithdraw: LISTING_TEMPLATE.canWithdraw,
  minWithdraw: LISTING_TEMPLATE.minWithdraw,
  maxWithdraw: LISTING_TEMPLATE.maxWithdraw,
  dailyWithdrawLimit: LISTING_TEMPLATE.dailyWithdrawLimit,
  withdrawApprovalThreshold: LISTING_TEMPLATE.withdrawApprovalThreshold,
  unifiedCryptoassetId: null,
  adapterCode: LISTING_TEMPLATE.adapterCode,
  position,
});

const agentPair = (base: string) => ({
  code: `${base}_${LISTING_TEMPLATE.quote}`,
  base,
  quote: LISTING_TEMPLATE.quote,
  digitsPrice: LISTING_TEMPLATE.digitsPrice,
  digitsAmount: LISTING_TEMPLATE.digitsAmount,
  minQuoteAmount: LISTING_TEMPLATE.minQuoteAmount,
  active: true,
});

const withdrawalFee = (code: string) =>
  commission("2", code, LISTING_TEMPLATE.adapterCode, "0", LISTING_TEMPLATE.withdrawalFeeMinimum, 0);

export const FIXTURE_MARKET: ReferenceDataSeed = {
  currencies: [
    ...DEMO_BASE_MARKET.currencies,
    agentToken("ALPHA", "Alpha Agent", 3),
    agentToken("BETA", "Beta Agent", 4),
    agentToken("GAMMA", "Gamma Agent", 5),
  ],
  pairs: [
    ...DEMO_BASE_MARKET.pairs,
    agentPair("ALPHA"),
    agentPair("BETA"),
    {
      code: "GAMMA_ETH",
      base: "GAMMA",
      quote: "ETH",
      digitsPrice: 8,
      digitsAmount: 2,
      minQuoteAmount: "0.0005",
      active: true,
    },
  ],
  commissions: [...DEMO_BASE_MARKET.commissions, withdrawalFee("ALPHA"), withdrawalFee("BETA"), withdrawalFee("GAMMA")],
};

/** startExchange's beforeLoad for exchange-only tests: the fixture market on an empty database. */
export async function seedFixtureBeforeLoad(db: Db): Promise<void> {
  await seedReferenceData(db, FIXTURE_MARKET);
}

/**
 * Writes the fixture market into the database an exchange process started with `vars` will use,
 * before it starts: its EXCHANGE_DEMO then finds currencies and leaves them as they are.
 */
export async function seedFixtureMarketFor(vars: Record<string, string>): Promise<void> {
  const env = parseEnv(exchangeEnv, vars);
  const db = await openDb({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.EXCHANGE_DATA_DIR,
    schema: env.EXCHANGE_DB_SCHEMA,
  });
  try {
    await migrate(db);
    await seedReferenceData(db, FIXTURE_MARKET);
  } finally {
    await db.close();
  }
}
