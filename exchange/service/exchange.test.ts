import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createKeyVault, generateApiKeyPair, parseServerKey } from "../auth/index.ts";
import { seedReferenceData } from "../demo/reference-data.ts";
import { createCommitter, migrate, openDb, type Db } from "../store/index.ts";
import { Exchange } from "./exchange.ts";

// A command that throws after it began changing the books or the ledger (a bug) must not leave
// the exchange serving from memory that no longer matches the database: onFatal is called.

describe("Exchange: a throw in the middle of a command is fatal", () => {
  let dir: string;
  let db: Db;
  let exchange: Exchange;
  const fatal: unknown[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "exchange-fatal-"));
    db = await openDb({ dataDir: dir, schema: "exchange" });
    await migrate(db);
    await seedReferenceData(db);
    exchange = await Exchange.open({
      db,
      committer: createCommitter(db),
      vault: createKeyVault(parseServerKey("33".repeat(32))),
      generateKeyPair: generateApiKeyPair,
      onFatal: (error) => fatal.push(error),
    });
  });

  after(async () => {
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("reports a throw during settlement, and not an ordinary rejection", async () => {
    const seller = await exchange.createUser(0, null);
    const buyer = await exchange.createUser(0, null);
    await exchange.deposit({ userId: seller.id, currency: "ALPHA", amount: "100", reference: null });
    await exchange.deposit({ userId: buyer.id, currency: "USDT", amount: "100", reference: null });
    await exchange.placeOrder(seller.id, { currencyPairCode: "ALPHA_USDT", isBid: false, type: "limit", amount: "10", price: "0.5" });
    await assert.rejects(exchange.placeOrder(buyer.id, { currencyPairCode: "ALPHA_USDT", isBid: true, type: "limit", amount: "1000", price: "0.5" }), { code: "INSUFFICIENT_BALANCE" });
    assert.equal(fatal.length, 0, "a refused order is a value, not a fatal error");
    // The fee of a trade is looked up while it settles, after the book has matched.
    exchange.reference.pairFees = () => {
      throw new Error("fee lookup failed");
    };
    await assert.rejects(exchange.placeOrder(buyer.id, { currencyPairCode: "ALPHA_USDT", isBid: true, type: "limit", amount: "10", price: "0.5" }), /fee lookup failed/);
    assert.equal(fatal.length, 1);
    assert.match(String(fatal[0]), /fee lookup failed/);
  });
});
