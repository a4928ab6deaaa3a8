import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { parseUnits } from "../core/money/index.ts";
import { DomainError, type Exchange } from "../application/index.ts";
import { parseDemoCredentials, readDemoCredentials } from "./credentials.ts";
import { creditDemoDeposits, DEMO_USERS, demoDepositAmount, ensureDemoUsers } from "./users.ts";

// ensureDemoUsers against a stand-in of the Exchange with the same methods: the real one
// needs the store and is covered when the server runs with EXCHANGE_DEMO=true.

/** The demo market's currencies once the seed's first tokens are listed, without importing the store. */
const DEMO_CURRENCIES = [
  { code: "USDT", decimals: 6, canDeposit: true },
  { code: "ETH", decimals: 18, canDeposit: true },
  { code: "ALPHA", decimals: 18, canDeposit: true },
  { code: "BETA", decimals: 18, canDeposit: true },
  { code: "GAMMA", decimals: 18, canDeposit: true },
];

interface FakeUser {
  id: string;
  level: number;
  address: string | null;
}

function fakeExchange(
  currencyRows: readonly { code: string; decimals: number; canDeposit: boolean }[] = DEMO_CURRENCIES,
) {
  const users = new Map<string, FakeUser>();
  const keys = new Map<string, { userId: string; privateKey: string }>();
  const deposits: { userId: string; currency: string; amount: string; depositId?: string }[] = [];
  const currencies = new Map(
    currencyRows.map((row) => [row.code, { row, spec: { code: row.code, decimals: row.decimals } }]),
  );
  const fake = {
    reference: { currencies },
    user: (id: string) => users.get(id),
    resolveKey: (publicKey: string) => keys.get(publicKey),
    createUser: async (level: number, address: string | null) => {
      const user = { id: randomUUID(), level, address: address?.toLowerCase() ?? null, createdAt: 0 };
      users.set(user.id, user);
      return user;
    },
    issueApiKey: async (userId: string) => {
      const pair = { publicKey: `pub-${randomUUID()}`, privateKey: `priv-${randomUUID()}` };
      keys.set(pair.publicKey, { userId, privateKey: pair.privateKey });
      return pair;
    },
    deposit: async (args: {
      userId: string;
      currency: string;
      amount: string;
      reference: string | null;
      depositId?: string;
    }) => {
      const spec = currencies.get(args.currency)!.spec;
      const parsed = parseUnits(args.amount, spec.decimals, "exact");
      assert.ok(parsed.ok && parsed.value > 0n, `${args.amount} is not an exact ${args.currency} amount`);
      assert.ok(args.depositId === undefined || args.depositId.length <= 100);
      if (args.depositId !== undefined && deposits.some((d) => d.depositId === args.depositId))
        throw new DomainError("DUPLICATE_DEPOSIT", `Deposit ${args.depositId} was already credited`);
      deposits.push(args);
    },
  };
  const list = (code: string) =>
    currencies.set(code, { row: { code, decimals: 18, canDeposit: true }, spec: { code, decimals: 18 } });
  return { exchange: fake as unknown as Exchange, users, keys, deposits, list };
}

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
async function tempFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "demo-users-"));
  dirs.push(dir);
  return join(dir, "nested", "demo-credentials.json");
}

describe("ensureDemoUsers", () => {
  it("creates the six demo users with a key and a deposit in every currency, in an owner-only file", async () => {
    const { exchange, users, deposits } = fakeExchange();
    const file = await tempFile();
    const result = await ensureDemoUsers(exchange, file);
    assert.deepEqual(result.created, [
      "trader-1",
      "trader-2",
      "market-maker",
      "market-taker",
      "voter-no-tokens",
      "newcomer",
    ]);
    assert.equal(users.size, 6);
    assert.equal(deposits.length, 6 * DEMO_CURRENCIES.length);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const written = parseDemoCredentials(await readFile(file, "utf8"));
    assert.deepEqual(written, result.credentials);
    const byLabel = new Map(written.map((entry) => [entry.label, entry]));
    assert.deepEqual(byLabel.get("trader-1")!.address, "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65");
    assert.deepEqual(byLabel.get("trader-2")!.address, "0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc");
    // Hardhat's default accounts #13 and #14.
    assert.deepEqual(byLabel.get("voter-no-tokens")!.address, "0x1cbd3b2770909d4e10f157cabc84c7264073c9ec");
    assert.deepEqual(byLabel.get("newcomer")!.address, "0xdf3e18d64bc6a983f673ab319ccae4f1a57c7097");
    assert.deepEqual(
      written.map((entry) => [entry.label, entry.level]),
      [
        ["trader-1", 20],
        ["trader-2", 25],
        ["market-maker", 50],
        ["market-taker", 20],
        ["voter-no-tokens", 20],
        ["newcomer", 5],
      ],
    );
    for (const entry of written)
      assert.deepEqual(Object.keys(entry).sort(), ["address", "label", "level", "privateKey", "publicKey", "userId"]);
    const maker = byLabel.get("market-maker")!.userId;
    assert.equal(deposits.find((d) => d.userId === maker && d.currency === "USDT")!.amount, "2500000");
    for (const label of ["voter-no-tokens", "newcomer"]) {
      const eth = deposits.find((d) => d.userId === byLabel.get(label)!.userId && d.currency === "ETH");
      assert.equal(eth?.amount, "100", `${label} has ETH on the exchange to pay fees from`);
    }
  });

  it("keeps a file whose users and keys the exchange knows", async () => {
    const { exchange, users } = fakeExchange();
    const file = await tempFile();
    const first = await ensureDemoUsers(exchange, file);
    const before = await readFile(file, "utf8");
    const again = await ensureDemoUsers(exchange, file);
    assert.deepEqual(again.created, []);
    assert.deepEqual(again.credentials, first.credentials);
    assert.equal(await readFile(file, "utf8"), before);
    assert.equal(users.size, 6);
  });

  it("starts afresh when the database no longer knows a user (reset database)", async () => {
    const file = await tempFile();
    const old = fakeExchange();
    const first = await ensureDemoUsers(old.exchange, file);
    const fresh = fakeExchange();
    const second = await ensureDemoUsers(fresh.exchange, file);
    assert.equal(second.created.length, 6);
    assert.equal(fresh.users.size, 6);
    assert.notDeepEqual(
      second.credentials.map((e) => e.userId),
      first.credentials.map((e) => e.userId),
    );
    assert.deepEqual(await readDemoCredentials(file), second.credentials);
  });

  it("starts afresh when a key does not match", async () => {
    const { exchange, keys } = fakeExchange();
    const file = await tempFile();
    const first = await ensureDemoUsers(exchange, file);
    keys.get(first.credentials[0].publicKey)!.privateKey = "rotated";
    const second = await ensureDemoUsers(exchange, file);
    assert.equal(second.created.length, 6);
  });

  it("adds missing labels to a valid file", async () => {
    const { exchange, users } = fakeExchange();
    const file = await tempFile();
    const first = await ensureDemoUsers(exchange, file, DEMO_USERS.slice(0, 2));
    assert.equal(first.credentials.length, 2);
    const second = await ensureDemoUsers(exchange, file);
    assert.deepEqual(second.created, ["market-maker", "market-taker", "voter-no-tokens", "newcomer"]);
    assert.deepEqual(second.credentials.slice(0, 2), first.credentials);
    assert.equal(users.size, 6);
  });

  it("replaces an unreadable file", async () => {
    const { exchange } = fakeExchange();
    const file = await tempFile();
    await ensureDemoUsers(exchange, file);
    await writeFile(file, "{not json");
    const result = await ensureDemoUsers(exchange, file);
    assert.equal(result.created.length, 6);
  });
});

describe("creditDemoDeposits", () => {
  it("gives every demo user its deposit in a token listed after it was created, once", async () => {
    const base = DEMO_CURRENCIES.filter((c) => c.code === "USDT" || c.code === "ETH");
    const { exchange, deposits, list } = fakeExchange(base);
    const { credentials } = await ensureDemoUsers(exchange, await tempFile());
    assert.equal(deposits.length, 6 * 2);
    list("ALPHA");
    list("DELTA");
    const credited = await creditDemoDeposits(exchange, credentials, ["ALPHA"]);
    assert.equal(credited.length, 6);
    assert.ok(credited.includes("market-maker ALPHA"));
    const maker = credentials.find((entry) => entry.label === "market-maker")!.userId;
    assert.equal(deposits.find((d) => d.userId === maker && d.currency === "ALPHA")!.amount, "5000000");
    // Everything, again: only DELTA is new; repeats credit nothing.
    assert.equal((await creditDemoDeposits(exchange, credentials)).length, 6);
    assert.deepEqual(await creditDemoDeposits(exchange, credentials), []);
    assert.equal(deposits.length, 6 * 4);
  });
});

describe("demoDepositAmount", () => {
  it("is an exact amount for every demo currency, ten times larger for the market maker", () => {
    for (const currency of DEMO_CURRENCIES) {
      const trader = demoDepositAmount(currency.code, "trader");
      const maker = demoDepositAmount(currency.code, "market-maker");
      const t = parseUnits(trader, currency.decimals, "exact");
      const m = parseUnits(maker, currency.decimals, "exact");
      assert.ok(t.ok && m.ok && t.value > 0n);
      assert.equal(m.value, t.value * 10n);
    }
    assert.equal(demoDepositAmount("NEWCOIN", "trader"), "100000");
  });
});

describe("parseDemoCredentials", () => {
  it("refuses malformed content with the entry named", () => {
    assert.throws(() => parseDemoCredentials("{"), /not JSON/);
    assert.throws(() => parseDemoCredentials("{}"), /JSON array/);
    assert.throws(
      () => parseDemoCredentials(`[{"userId":"u","level":1,"address":null,"publicKey":"p","label":"l"}]`),
      /entry 0: privateKey/,
    );
    assert.throws(
      () =>
        parseDemoCredentials(
          `[{"userId":"u","level":"1","address":null,"publicKey":"p","privateKey":"s","label":"l"}]`,
        ),
      /entry 0: level/,
    );
    assert.deepEqual(parseDemoCredentials(`[{"userId":"u","level":1,"publicKey":"p","privateKey":"s","label":"l"}]`), [
      { userId: "u", level: 1, address: null, publicKey: "p", privateKey: "s", label: "l" },
    ]);
  });

  it("reads a missing file as undefined", async () => {
    assert.equal(await readDemoCredentials(join(tmpdir(), `missing-${randomUUID()}.json`)), undefined);
  });
});
