/**
 * The relayed spawn against a real chain and a real exchange, stopped at every step as a killed
 * API process would stop (after the fee hold, after the transaction is journalled but before it
 * is broadcast, after the broadcast, after the receipt): a new process (a new relayer and service
 * on the same journal) settles or releases the fee so that the user is charged exactly when the
 * token exists on the chain, and a retry with the same Idempotency-Key never spawns or charges
 * twice. Also: a spawn that reverts for a reason the pre-checks cannot see answers 500
 * SPAWNER_FAILED with its transaction hash and gives the fee back; a transaction not mined in time
 * is replaced with the same nonce and higher fees; a relayer short of funds answers 503 and
 * charges nothing. On PGlite, and on PostgreSQL too when DATABASE_URL is set.
 */
import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, createPublicClient, http, keccak256, type PublicClient, toHex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, it } from "vitest";
import { openSql, type Sql } from "../../lib/db/index.ts";
import { Journal, Relayer } from "../../relayer/index.ts";
import { WriteChain } from "../../api/writes/chain.ts";
import { ExchangeClient as ApiExchange } from "../../api/writes/exchange-client.ts";
import { parseSpawnBody } from "../../api/writes/index.ts";
import { type WriteStep, Writes } from "../../api/writes/service.ts";
import { createRateLimiter } from "../../lib/http/index.ts";
import { exchangeEnv, parseEnv } from "../../config/env.ts";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { type RunningExchange, startExchange } from "../../exchange/server/start.ts";
import { AgentSpawnerAbi } from "../../indexer/abis.ts";
import {
  type Chain,
  deployAndSeed,
  makeRunDir,
  removeRunDir,
  startChain,
  stopAll,
  type Viem,
} from "../../support/ecosystem/harness.ts";
import { backendKinds } from "../../support/exchange/backends.ts";
import { SigningClient } from "../../support/exchange/signing-client.ts";
import { answered, type WriteAnswer } from "../../support/writes/answered.ts";

const SERVICE_SECRET = "service-secret-for-relayer-tests";
const ADMIN_TOKEN = "admin-token-for-relayer-tests";
const RELAYER_ROLE = keccak256(toHex("RELAYER_ROLE"));

const ctx = {} as {
  runDir: string;
  chain: Chain;
  viem: Viem;
  close: () => Promise<void>;
  client: PublicClient;
  spawner: Address;
  voting: Address;
  registry: Address;
};

beforeAll(async () => {
  ctx.runDir = await makeRunDir("relayer");
  ctx.chain = await startChain(ctx.runDir);
  const deployed = await deployAndSeed(ctx.chain, ctx.runDir, { seed: false });
  ctx.viem = deployed.viem;
  ctx.close = deployed.close;
  ctx.spawner = deployed.deployment.contracts.AgentSpawner as Address;
  ctx.voting = deployed.deployment.contracts.WorkerVoting as Address;
  ctx.registry = deployed.deployment.contracts.AgentRegistry as Address;
  ctx.client = createPublicClient({ transport: http(ctx.chain.url) }) as PublicClient;
}, 300_000);

afterAll(async () => {
  await ctx.close?.();
  await ctx.chain?.stop();
  await stopAll();
  if (ctx.runDir) await removeRunDir(ctx.runDir);
});

/** Hardhat's account #1, the deployment's relayer. */
const relayerAccount = mnemonicToAccount("test test test test test test test test test test test junk", {
  addressIndex: 1,
});
const owner = (label: string): Address =>
  privateKeyToAccount(keccak256(toHex(`relayer-e2e ${label}`))).address.toLowerCase() as Address;
/** A symbol of 5 letters, unique per label. */
const symbolOf = (label: string) =>
  [...keccak256(toHex(label)).slice(2, 12)]
    .map((c) => String.fromCharCode(65 + (Number.parseInt(c, 16) % 26)))
    .join("")
    .slice(0, 5);

for (const kind of backendKinds()) {
  describe(`the relayed spawn on ${kind}`, () => {
    let exchange: RunningExchange;
    let admin: SigningClient;
    let sql: Sql;
    let journal: Journal;
    let dataDir: string;
    const schema = `relayer_test_${process.pid}_${Date.now().toString(36)}`;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), "relayer-test-"));
      const vars: Record<string, string> = {
        EXCHANGE_PORT: "0",
        EXCHANGE_DATA_DIR: join(dataDir, "exchange"),
        EXCHANGE_SERVER_KEY: "33".repeat(32),
        EXCHANGE_ADMIN_TOKEN: ADMIN_TOKEN,
        EXCHANGE_SERVICE_SECRET: SERVICE_SECRET,
        RATE_LIMIT_PER_MINUTE: "100000",
        SIGNED_RATE_LIMIT_PER_MINUTE: "100000",
      };
      if (kind === "postgres") {
        vars.DATABASE_URL = process.env.DATABASE_URL!;
        vars.EXCHANGE_DB_SCHEMA = `x_${schema}`;
      }
      exchange = await startExchange(parseEnv(exchangeEnv, vars), {
        log: () => {},
        beforeLoad: seedFixtureBeforeLoad,
      });
      admin = new SigningClient(exchange.url, ADMIN_TOKEN);
      sql = await openSql({
        name: "relayer database",
        databaseUrl: kind === "postgres" ? process.env.DATABASE_URL : undefined,
        dataDir: join(dataDir, "relayer"),
        schema,
        timeoutMs: 5_000,
      });
      journal = new Journal(sql);
      await journal.migrate();
    }, 120_000);

    afterAll(async () => {
      if (kind === "postgres") await sql?.query(`drop schema if exists "${schema}" cascade`);
      await sql?.close();
      await exchange?.close();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    const exchangeClient = (baseUrl = exchange.url) =>
      new ApiExchange({ baseUrl, serviceSecret: SERVICE_SECRET, timeoutMs: 2_000 });

    /** One API process's writes: a fresh relayer (no nonce in memory) and service on the shared journal. */
    const apiProcess = (
      options: {
        step?: (name: WriteStep, writeId: string) => Promise<void> | void;
        beforeBroadcast?: () => Promise<void> | void;
        minBalanceWei?: bigint;
        replaceAfterMs?: number;
        receiptTimeoutMs?: number;
        exchangeUrl?: string;
        exchange?: ApiExchange;
      } = {},
    ) => {
      const relayer = new Relayer({
        client: ctx.client,
        account: relayerAccount,
        chainId: 31337,
        journal,
        receiptTimeoutMs: options.receiptTimeoutMs ?? 30_000,
        replaceAfterMs: options.replaceAfterMs ?? 30_000,
        pollMs: 50,
        minBalanceWei: options.minBalanceWei ?? 0n,
        beforeBroadcast: options.beforeBroadcast,
      });
      const writes = new Writes({
        chain: new WriteChain(
          ctx.client,
          { spawner: ctx.spawner, voting: ctx.voting, registry: ctx.registry },
          relayerAccount.address,
        ),
        relayer,
        journal,
        exchange: options.exchange ?? exchangeClient(options.exchangeUrl),
        feeCurrency: "ETH",
        voteLimiter: createRateLimiter({ limit: 100 }),
        step: options.step,
        log: () => {},
      });
      return { writes, relayer };
    };

    const newUser = async (label: string) => {
      const address = owner(`${kind} ${label}`);
      const credentials = await admin.user(20, { ETH: "1" }, address);
      return { userId: credentials.userId, level: 20, address, credentials };
    };
    const spawnRequest = (user: Awaited<ReturnType<typeof newUser>>, symbol: string, key?: string) => {
      const parsed = parseSpawnBody({ name: `Relayed ${symbol}`, symbol });
      assert.ok(parsed.ok);
      const body = parsed.body;
      return { caller: user, body, idempotencyKey: key, requestHash: `spawn ${symbol}` };
    };
    const ethOf = async (user: Awaited<ReturnType<typeof newUser>>) => {
      const answer = await admin.signed(user.credentials, "GET", "/api/balances");
      const eth = (answer.body as { currencyCode: string; available: number; locked: number }[]).find(
        (b) => b.currencyCode === "ETH",
      )!;
      return [String(eth.available), String(eth.locked)];
    };
    const holdOf = async (holdId: string) => {
      const response = await fetch(`${exchange.url}/internal/fee-holds/${holdId}`, {
        headers: { "X-Service-Secret": SERVICE_SECRET },
      });
      return (await response.json()) as { status: string; reference: string | null };
    };
    const symbolTaken = (symbol: string) =>
      ctx.client.readContract({
        address: ctx.spawner,
        abi: AgentSpawnerAbi,
        functionName: "isSymbolTaken",
        args: [symbol],
      });
    const never = () => new Promise<never>(() => {});

    for (const step of ["after-hold", "before-broadcast", "after-send", "after-mined"] as const) {
      const charged = step !== "after-hold";
      it(`a process stopped ${step} is finished by the next one: charged ${charged ? "once, as the token exists" : "nothing, as nothing was sent"}`, async () => {
        const user = await newUser(step);
        const symbol = symbolOf(`${kind} ${step}`);
        const key = `crash-${step}`;
        let writeId: string | undefined;
        let reached!: () => void;
        const stopped = new Promise<void>((resolve) => (reached = resolve));
        // The dead process: it never gets past `step` (as SIGKILL, no clean-up runs).
        const dead = apiProcess({
          step: (name, id) => {
            writeId = id;
            if (name === step) {
              reached();
              return never();
            }
          },
          beforeBroadcast: () => {
            if (step === "before-broadcast") {
              reached();
              return never();
            }
          },
        });
        void dead.writes.spawn(spawnRequest(user, symbol, key));
        await stopped;
        assert.ok(writeId);
        assert.deepEqual(await ethOf(user), ["0.99", "0.01"], "held while the process is down");

        const next = apiProcess();
        for (let pass = 0; pass < 20 && (await holdOf(writeId!)).status === "held"; pass++) {
          await next.writes.reconcile();
          await sleep(100);
        }
        const hold = await holdOf(writeId!);
        assert.equal(hold.status, charged ? "settled" : "released");
        assert.equal(await symbolTaken(symbol), charged);
        assert.deepEqual(await ethOf(user), [charged ? "0.99" : "1", "0"]);
        if (charged) {
          const receipt = await ctx.client.getTransactionReceipt({ hash: hold.reference as `0x${string}` });
          assert.equal(receipt.status, "success");
        }

        // The client retries with its key: the first spawn's answer, or (nothing was sent) a spawn now.
        const retried = await answered(next.writes.spawn(spawnRequest(user, symbol, key)));
        // A write is answered from its receipt; its fee is settled just after.
        await next.writes.completions();
        assert.equal(retried.status, 201);
        assert.equal((retried.body as { token: { symbol: string } }).token.symbol, symbol);
        assert.equal(await symbolTaken(symbol), true);
        assert.deepEqual(await ethOf(user), ["0.99", "0"], "charged exactly once");
      });
    }

    it("a spawn reverting for a reason no pre-check sees answers 500 SPAWNER_FAILED with its hash, and gives the fee back", async () => {
      const user = await newUser("reverted");
      const [admin0] = await ctx.viem.getWalletClients();
      const spawner = await ctx.viem.getContractAt("AgentSpawner", ctx.spawner);
      const wait = async (hash: Promise<`0x${string}`>) => ctx.client.waitForTransactionReceipt({ hash: await hash });
      // After the pre-checks passed and the fee is held, the relayer loses its role.
      const { writes } = apiProcess({
        step: async (name) => {
          if (name === "after-hold")
            await wait(spawner.write.revokeRole([RELAYER_ROLE, relayerAccount.address], { account: admin0.account }));
        },
      });
      try {
        const symbol = symbolOf(`${kind} reverted`);
        const answer = await answered(writes.spawn(spawnRequest(user, symbol)));
        assert.equal(answer.status, 500);
        await writes.completions();
        const body = answer.body as { code: string; message: string };
        assert.equal(body.code, "SPAWNER_FAILED");
        const hash = /0x[0-9a-f]{64}/.exec(body.message)?.[0] as `0x${string}`;
        assert.equal((await ctx.client.getTransactionReceipt({ hash })).status, "reverted");
        assert.deepEqual(await ethOf(user), ["1", "0"]);
        assert.equal(await symbolTaken(symbol), false);
      } finally {
        await wait(spawner.write.grantRole([RELAYER_ROLE, relayerAccount.address], { account: admin0.account }));
      }
    });

    it("a spawn fee changed since the last spawn is held, sent and charged at its new value", async () => {
      const [admin0] = await ctx.viem.getWalletClients();
      const spawner = await ctx.viem.getContractAt("AgentSpawner", ctx.spawner);
      const wait = async (hash: Promise<`0x${string}`>) => ctx.client.waitForTransactionReceipt({ hash: await hash });
      const fee = await spawner.read.spawnFee();
      // One process: its first spawn leaves the fee it read in memory, which the second one expects.
      const { writes } = apiProcess();
      const first = await newUser("fee before");
      assert.equal((await answered(writes.spawn(spawnRequest(first, symbolOf(`${kind} fee before`))))).status, 201);
      await writes.completions();
      assert.deepEqual(await ethOf(first), ["0.99", "0"]);
      await wait(spawner.write.setSpawnFee([fee * 2n], { account: admin0.account }));
      try {
        const second = await newUser("fee after");
        const symbol = symbolOf(`${kind} fee after`);
        assert.equal((await answered(writes.spawn(spawnRequest(second, symbol)))).status, 201);
        await writes.completions();
        assert.equal(await symbolTaken(symbol), true);
        assert.deepEqual(await ethOf(second), ["0.98", "0"], "the new fee, held and charged once");
      } finally {
        await wait(spawner.write.setSpawnFee([fee], { account: admin0.account }));
      }
    });

    it("a transaction not mined in time is replaced with the same nonce and higher fees; the mined one answers", async () => {
      const user = await newUser("replaced");
      let writeId: string | undefined;
      const { writes } = apiProcess({
        replaceAfterMs: 1_000,
        step: (_, id) => {
          writeId = id;
        },
      });
      await ctx.chain.rpc("evm_setAutomine", [false]);
      let answer: Promise<WriteAnswer>;
      try {
        answer = answered(writes.spawn(spawnRequest(user, symbolOf(`${kind} replaced`))));
        const replaced = async () => (writeId ? (await journal.txsOf(writeId)).length >= 2 : false);
        for (let i = 0; i < 100 && !(await replaced()); i++) await sleep(100);
      } finally {
        await ctx.chain.rpc("evm_setAutomine", [true]);
        await ctx.chain.rpc("evm_mine");
      }
      const done = await answer!;
      assert.equal(done.status, 201, JSON.stringify(done.body));
      const txs = await journal.txsOf(writeId!);
      assert.ok(txs.length >= 2, `${txs.length} versions`);
      assert.equal(new Set(txs.map((tx) => tx.nonce)).size, 1, "one nonce");
      const minedHash = (done.body as { txHash: string }).txHash;
      assert.ok(txs.some((tx) => tx.hash === minedHash));
      await writes.completions();
      assert.deepEqual(await ethOf(user), ["0.99", "0"]);
    });

    it("not mined in time: 504 TX_PENDING, 409 REQUEST_IN_PROGRESS for the same key, then the first answer", async () => {
      const user = await newUser("pending");
      const symbol = symbolOf(`${kind} pending`);
      const key = "pending-1";
      const { writes } = apiProcess({ receiptTimeoutMs: 1_000 });
      await ctx.chain.rpc("evm_setAutomine", [false]);
      try {
        const pending = await answered(writes.spawn(spawnRequest(user, symbol, key)));
        assert.deepEqual([pending.status, pending.body.code, pending.headers["Retry-After"]], [504, "TX_PENDING", "5"]);
        assert.match(pending.body.message, /0x[0-9a-f]{64}/);
        const again = await answered(writes.spawn(spawnRequest(user, symbol, key)));
        assert.deepEqual([again.status, again.body.code], [409, "REQUEST_IN_PROGRESS"]);
        assert.deepEqual(await ethOf(user), ["0.99", "0.01"], "held while the transaction is pending");
      } finally {
        await ctx.chain.rpc("evm_setAutomine", [true]);
        await ctx.chain.rpc("evm_mine");
      }
      await writes.reconcile();
      const answer = await answered(writes.spawn(spawnRequest(user, symbol, key)));
      assert.equal(answer.status, 201);
      assert.equal((answer.body as { token: { symbol: string } }).token.symbol, symbol);
      await writes.completions();
      assert.deepEqual(await ethOf(user), ["0.99", "0"]);
    });

    it("a mined spawn answers 201 though the exchange fails its settle; the next reconcile settles it", async () => {
      const user = await newUser("settle fails");
      const symbol = symbolOf(`${kind} settle fails`);
      let settles = 0;
      // The real exchange, except that the first settle fails as an exchange gone away would.
      const flaky = new (class extends ApiExchange {
        override async settle(holdId: string, reference: string): Promise<void> {
          if (settles++ === 0) throw new Error("exchange away");
          return super.settle(holdId, reference);
        }
      })({ baseUrl: exchange.url, serviceSecret: SERVICE_SECRET, timeoutMs: 2_000 });
      let writeId: string | undefined;
      const { writes } = apiProcess({
        exchange: flaky,
        step: (_, id) => {
          writeId = id;
        },
      });
      const key = "settle-fails";
      const answer = await answered(writes.spawn(spawnRequest(user, symbol, key)));
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      await writes.completions();
      assert.equal(settles, 1);
      assert.equal((await holdOf(writeId!)).status, "held");
      assert.equal((await journal.byId(writeId!))?.state, "open", "left for reconcile");
      // A retry with the key meanwhile is told in progress, never spawned again.
      const inProgress = await answered(writes.spawn(spawnRequest(user, symbol, key)));
      assert.deepEqual([inProgress.status, inProgress.body.code], [409, "REQUEST_IN_PROGRESS"]);
      await writes.reconcile();
      const hold = await holdOf(writeId!);
      assert.deepEqual([hold.status, hold.reference], ["settled", (answer.body as { txHash: string }).txHash]);
      assert.deepEqual(await ethOf(user), ["0.99", "0"]);
      assert.deepEqual(await answered(writes.spawn(spawnRequest(user, symbol, key))), answer);
    });

    it("an exchange that does not answer makes a spawn 503 UNAVAILABLE before anything is sent", async () => {
      const user = await newUser("exchange away");
      const before = await ctx.client.getTransactionCount({ address: relayerAccount.address });
      const { writes } = apiProcess({ exchangeUrl: "http://127.0.0.1:9" });
      const away = await answered(writes.spawn(spawnRequest(user, symbolOf(`${kind} away`))));
      assert.deepEqual([away.status, away.body.code], [503, "UNAVAILABLE"]);
      assert.equal(await ctx.client.getTransactionCount({ address: relayerAccount.address }), before);
      assert.deepEqual(await ethOf(user), ["1", "0"]);
    });

    it("a relayer short of funds answers 503 UNAVAILABLE, sends nothing and charges nothing", async () => {
      const user = await newUser("poor relayer");
      const before = await ctx.client.getTransactionCount({ address: relayerAccount.address });
      const { writes } = apiProcess({ minBalanceWei: 10n ** 30n });
      const poor = await answered(writes.spawn(spawnRequest(user, symbolOf(`${kind} poor relayer`))));
      assert.deepEqual([poor.status, poor.body.code], [503, "UNAVAILABLE"]);
      assert.match(poor.body.message, /top it up/);
      assert.deepEqual(await ethOf(user), ["1", "0"]);
      assert.equal(await ctx.client.getTransactionCount({ address: relayerAccount.address }), before);
    });
  });
}
