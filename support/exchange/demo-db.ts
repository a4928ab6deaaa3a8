import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedReferenceData } from "../../exchange/demo/reference-data.ts";
import { FIXTURE_MARKET } from "./fixture-market.ts";
import { type Db, migrate, openDb } from "../../exchange/adapters/store/index.ts";
import type { Exchange } from "../../exchange/application/index.ts";

/** A migrated PGlite database in a new temporary directory, holding the fixture market (fixture-market.ts). */
export async function openDemoDb(prefix: string): Promise<{ dir: string; db: Db }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const db = await openDb({ dataDir: dir, schema: "exchange" });
  await migrate(db);
  await seedReferenceData(db, FIXTURE_MARKET);
  return { dir, db };
}

/** A funded seller with 10 ALPHA resting at 0.5 USDT, and a buyer holding 100 USDT. */
export async function restingAsk(exchange: Exchange) {
  const seller = await exchange.createUser(0, null);
  const buyer = await exchange.createUser(0, null);
  await exchange.deposit({ userId: seller.id, currency: "ALPHA", amount: "100", reference: null });
  await exchange.deposit({ userId: buyer.id, currency: "USDT", amount: "100", reference: null });
  await exchange.placeOrder(seller.id, {
    currencyPairCode: "ALPHA_USDT",
    isBid: false,
    type: "limit",
    amount: "10",
    price: "0.5",
  });
  return { seller, buyer };
}
