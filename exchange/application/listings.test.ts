import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createKeyVault, generateApiKeyPair, parseServerKey } from "../adapters/auth/index.ts";
import { createCommitter, exchangeStore, type Db, type GroupCommitter } from "../adapters/store/index.ts";
import { DEMO_BASE_MARKET } from "../demo/reference-data.ts";
import { openDemoDb } from "../../support/exchange/demo-db.ts";
import { Exchange } from "./exchange.ts";
import { cleanName, LISTING_TEMPLATE } from "./listings.ts";

const FOO = { symbol: "FOO", name: "Foo Agent", contractAddress: `0x${"AB".repeat(20)}` };
const fooAddress = FOO.contractAddress.toLowerCase();

describe("Exchange.listToken", () => {
  let dir: string;
  let db: Db;
  let committer: GroupCommitter;
  let exchange: Exchange;
  const logs: string[] = [];

  const open = async () => {
    committer = createCommitter(db);
    return Exchange.open({
      store: exchangeStore(db),
      committer,
      vault: createKeyVault(parseServerKey("44".repeat(32))),
      generateKeyPair: generateApiKeyPair,
      log: (message) => logs.push(message),
    });
  };
  const count = async (table: string) =>
    Number((await db.query<{ n: string }>(`select count(*)::text as n from ${table}`))[0]!.n);

  beforeAll(async () => {
    ({ dir, db } = await openDemoDb("exchange-listings-"));
    exchange = await open();
  });

  afterAll(async () => {
    await exchange?.close();
    await committer?.close();
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("lists against the demo market's quote currency, which has no agent token of its own", () => {
    const codes = DEMO_BASE_MARKET.currencies.map((c) => c.code);
    assert.ok(codes.includes(LISTING_TEMPLATE.quote));
    // Every agent token of `npm start` is a listing: none is set up without a contract.
    assert.deepEqual(codes, ["USDT", "ETH"]);
    assert.deepEqual(
      DEMO_BASE_MARKET.pairs.map((p) => p.code),
      ["ETH_USDT"],
    );
  });

  it("lists a token: currency, pair and withdrawal fee stored in one go, and the pair trades at once", async () => {
    const [currencies, pairs, commissions] = [
      await count("currencies"),
      await count("pairs"),
      await count("commissions"),
    ];
    const outcome = await exchange.listToken(FOO);
    assert.deepEqual(outcome, { status: "listed", currency: "FOO", pairCode: "FOO_USDT" });
    assert.deepEqual(
      [await count("currencies"), await count("pairs"), await count("commissions")],
      [currencies + 1, pairs + 1, commissions + 1],
    );
    const currency = exchange.reference.currency("FOO").row;
    assert.equal(currency.contractAddress, fooAddress);
    assert.equal(currency.position, 6);
    assert.equal(currency.decimals, 18);
    assert.equal(exchange.reference.pair("FOO_USDT").row.digitsPrice, 4);
    assert.equal(
      exchange.reference.walletFee("withdrawal", exchange.reference.currency("FOO"), 0).minimum,
      5n * 10n ** 18n,
    );

    const seller = await exchange.createUser(0, null);
    const buyer = await exchange.createUser(0, null);
    await exchange.deposit({ userId: seller.id, currency: "FOO", amount: "100", reference: null });
    await exchange.deposit({ userId: buyer.id, currency: "USDT", amount: "100", reference: null });
    await exchange.placeOrder(seller.id, {
      currencyPairCode: "FOO_USDT",
      isBid: false,
      type: "limit",
      amount: "10",
      price: "2",
    });
    await exchange.placeOrder(seller.id, {
      currencyPairCode: "FOO_USDT",
      isBid: false,
      type: "limit",
      amount: "5",
      price: "3",
    });
    const taken = await exchange.placeOrder(buyer.id, {
      currencyPairCode: "FOO_USDT",
      isBid: true,
      type: "limit",
      amount: "4",
      price: "2",
    });
    assert.equal(taken.order.status, "filled");
    assert.ok((await exchange.reconcile()).every((row) => row.balanced));
  });

  it("lists a token exactly once: repeats, also racing, write nothing", async () => {
    const before = await count("currencies");
    const outcomes = await Promise.all([exchange.listToken(FOO), exchange.listToken({ ...FOO, name: "Other name" })]);
    for (const outcome of outcomes) assert.deepEqual(outcome, { status: "already-listed", currency: "FOO" });
    assert.equal(await count("currencies"), before);
    const race = await Promise.all([
      exchange.listToken({ symbol: "RACE", name: "Race", contractAddress: `0x${"01".repeat(20)}` }),
      exchange.listToken({ symbol: "RACE", name: "Race", contractAddress: `0x${"01".repeat(20)}` }),
    ]);
    assert.deepEqual(
      race.map((o) => o.status),
      ["listed", "already-listed"],
    );
  });

  it("refuses a symbol or a contract held by another currency, never overwriting it", async () => {
    const before = await count("currencies");
    const other = `0x${"cd".repeat(20)}`;
    const refused = async (token: { symbol: string; name: string; contractAddress: string }, code: string) => {
      const outcome = await exchange.listToken(token);
      assert.equal(outcome.status, "refused", JSON.stringify(token));
      assert.equal(outcome.status === "refused" && outcome.code, code);
    };
    await refused({ symbol: "USDT", name: "Fake Tether", contractAddress: other }, "SYMBOL_TAKEN");
    await refused({ symbol: "ETH", name: "Fake Ether", contractAddress: other }, "SYMBOL_TAKEN");
    await refused({ symbol: "FOO", name: "Another Foo", contractAddress: other }, "SYMBOL_TAKEN");
    await refused({ symbol: "BAR", name: "Foo renamed", contractAddress: FOO.contractAddress }, "ADDRESS_TAKEN");
    await refused({ symbol: "foo", name: "lower", contractAddress: other }, "INVALID_TOKEN");
    await refused({ symbol: "BAZ", name: "bad address", contractAddress: "0x1234" }, "INVALID_TOKEN");
    assert.equal(await count("currencies"), before);
    assert.equal(exchange.reference.currency("USDT").row.contractAddress, undefined);
    assert.equal(exchange.reference.currency("FOO").row.name, "Foo Agent");
    assert.ok(logs.some((line) => line.includes("not listing") && line.includes("SYMBOL_TAKEN")));
  });

  it("refuses the symbol of a currency set up without a contract (a fixture's ALPHA), leaving it as it was", async () => {
    const outcome = await exchange.listToken({
      symbol: "ALPHA",
      name: "Alpha",
      contractAddress: `0x${"aa".repeat(20)}`,
    });
    assert.equal(outcome.status === "refused" && outcome.code, "SYMBOL_TAKEN");
    assert.equal(exchange.reference.currency("ALPHA").row.contractAddress, undefined);
    assert.equal(exchange.reference.pairs.has("ALPHA_USDT"), true);
  });

  it("keeps listings and their books across a restart", async () => {
    const book = exchange.committed.levels("FOO_USDT", false, 10);
    await exchange.close();
    await committer.close();
    exchange = await open();
    assert.equal(exchange.reference.pair("FOO_USDT").row.base, "FOO");
    assert.equal(exchange.reference.currency("FOO").row.contractAddress, fooAddress);
    assert.equal(exchange.reference.currency("ALPHA").row.contractAddress, undefined);
    assert.deepEqual(exchange.committed.levels("FOO_USDT", false, 10), book);
    assert.equal((await exchange.listToken(FOO)).status, "already-listed");
    assert.ok((await exchange.reconcile()).every((row) => row.balanced));
  });

  it("stores names as clean text", () => {
    assert.equal(cleanName("  A\u0000gent\n ", "FOO"), "Agent");
    assert.equal(cleanName("\u0001", "FOO"), "FOO");
    assert.equal(cleanName("x\ud800y", "FOO"), "x\ufffdy");
    assert.equal(cleanName("n".repeat(300), "FOO").length, 100);
  });
});
