/**
 * The relayed writes when what they call out to fails mid-write, against a real chain and a real
 * exchange (PGlite): the chain's node stops answering (a JSON-RPC gate in front of it stops at a
 * named method and holds every request, as SIGSTOP holds a node process) at the gas estimate or at
 * the broadcast, and a writes process dies with its fee hold in flight. Each answer is a 503 or 504
 * with Retry-After within the chain deadline, nothing stays held or journalled that nobody will
 * finish, and once the node answers again the writes recover by themselves.
 */
import { setTimeout as sleep } from "node:timers/promises";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Address, createPublicClient, http, keccak256, type PublicClient, toHex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, describe, it } from "vitest";
import { openSql, type Sql } from "../../lib/db/index.ts";
import { Journal, Relayer } from "../../relayer/index.ts";
import { WriteChain } from "../../api/writes/chain.ts";
import { ExchangeClient as ApiExchange } from "../../api/writes/exchange-client.ts";
import { parseSpawnBody } from "../../api/writes/index.ts";
import { type WriteOutcome, Writes, type WritesOptions } from "../../api/writes/service.ts";
import { exchangeEnv, parseEnv } from "../../config/env.ts";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { type RunningExchange, startExchange } from "../../exchange/server/start.ts";
import { AgentSpawnerAbi } from "../../indexer/abis.ts";
import { createRateLimiter } from "../../lib/http/index.ts";
import {
  type Chain,
  deployAndSeed,
  makeRunDir,
  printLogs,
  removeRunDir,
  startChain,
  startPonder,
  stopAll,
} from "../../support/ecosystem/harness.ts";
import { signedWrite, writesReady } from "../../support/ecosystem/writes.ts";
import { SigningClient } from "../../support/exchange/signing-client.ts";
import { RpcGate } from "../../support/net/rpc-gate.ts";
import { answered } from "../../support/writes/answered.ts";

const SERVICE_SECRET = "service-secret-for-writes-faults";
const ADMIN_TOKEN = "admin-token-for-writes-faults";
/** The writes' chain deadline here (RPC_TIMEOUT_MS): every call of a write waits at most this. */
const RPC_TIMEOUT_MS = 1_500;

const ctx = {} as {
  runDir: string;
  dataDir: string;
  chain: Chain;
  close: () => Promise<void>;
  client: PublicClient;
  spawner: Address;
  voting: Address;
  registry: Address;
  deploymentFile: string;
  exchange: RunningExchange;
  admin: SigningClient;
  sql: Sql;
  journal: Journal;
  gate: RpcGate;
};

beforeAll(async () => {
  ctx.runDir = await makeRunDir("writes-faults");
  ctx.chain = await startChain(ctx.runDir);
  const deployed = await deployAndSeed(ctx.chain, ctx.runDir, { seed: false });
  ctx.close = deployed.close;
  ctx.spawner = deployed.deployment.contracts.AgentSpawner as Address;
  ctx.voting = deployed.deployment.contracts.WorkerVoting as Address;
  ctx.registry = deployed.deployment.contracts.AgentRegistry as Address;
  ctx.deploymentFile = deployed.deploymentFile;
  ctx.client = createPublicClient({ transport: http(ctx.chain.url) }) as PublicClient;
  ctx.gate = await RpcGate.start(ctx.chain.url);
  ctx.dataDir = await mkdtemp(join(tmpdir(), "writes-faults-"));
  ctx.exchange = await startExchange(
    parseEnv(exchangeEnv, {
      EXCHANGE_PORT: "0",
      EXCHANGE_DATA_DIR: join(ctx.dataDir, "exchange"),
      EXCHANGE_SERVER_KEY: "44".repeat(32),
      EXCHANGE_ADMIN_TOKEN: ADMIN_TOKEN,
      EXCHANGE_SERVICE_SECRET: SERVICE_SECRET,
      RATE_LIMIT_PER_MINUTE: "100000",
      SIGNED_RATE_LIMIT_PER_MINUTE: "100000",
    }),
    { log: () => {}, beforeLoad: seedFixtureBeforeLoad },
  );
  ctx.admin = new SigningClient(ctx.exchange.url, ADMIN_TOKEN);
  ctx.sql = await openSql({
    name: "relayer database",
    dataDir: join(ctx.dataDir, "relayer"),
    schema: "relayer_faults",
    timeoutMs: 5_000,
  });
  ctx.journal = new Journal(ctx.sql);
  await ctx.journal.migrate();
}, 300_000);

afterEach(() => ctx.gate?.resume());

afterAll(async () => {
  await ctx.gate?.close();
  await ctx.sql?.close();
  await ctx.exchange?.close();
  await ctx.close?.();
  await ctx.chain?.stop();
  await stopAll();
  if (ctx.dataDir) await rm(ctx.dataDir, { recursive: true, force: true });
  if (ctx.runDir) await removeRunDir(ctx.runDir);
});

/** Hardhat's account #1, the deployment's relayer. */
const relayerAccount = mnemonicToAccount("test test test test test test test test test test test junk", {
  addressIndex: 1,
});

/**
 * One writes process as start.ts builds it, reaching the chain through the gate: its transport
 * times out after RPC_TIMEOUT_MS and retries once, and each of its calls is bounded at
 * RPC_TIMEOUT_MS in all.
 */
function writesProcess(options: { exchange?: ApiExchange; step?: WritesOptions["step"] } = {}) {
  const client = createPublicClient({
    transport: http(ctx.gate.url, { timeout: RPC_TIMEOUT_MS, retryCount: 1 }),
  }) as PublicClient;
  const relayer = new Relayer({
    client,
    account: relayerAccount,
    chainId: 31337,
    journal: ctx.journal,
    receiptTimeoutMs: 30_000,
    replaceAfterMs: 30_000,
    pollMs: 50,
    minBalanceWei: 0n,
  });
  const writes = new Writes({
    chain: new WriteChain(
      client,
      { spawner: ctx.spawner, voting: ctx.voting, registry: ctx.registry },
      relayerAccount.address,
      { deadlineMs: RPC_TIMEOUT_MS },
    ),
    relayer,
    journal: ctx.journal,
    exchange:
      options.exchange ??
      new ApiExchange({ baseUrl: ctx.exchange.url, serviceSecret: SERVICE_SECRET, timeoutMs: 2_000 }),
    feeCurrency: "ETH",
    voteLimiter: createRateLimiter({ limit: 100 }),
    step: options.step,
    log: () => {},
  });
  return { writes, relayer };
}

const newUser = async (label: string) => {
  const address = privateKeyToAccount(keccak256(toHex(`writes-faults ${label}`))).address.toLowerCase() as Address;
  const credentials = await ctx.admin.user(20, { ETH: "1" }, address);
  return { userId: credentials.userId, level: 20, address, credentials };
};
type User = Awaited<ReturnType<typeof newUser>>;

/** A symbol of 5 letters, unique per label. */
const symbolOf = (label: string) =>
  [...keccak256(toHex(label)).slice(2, 12)]
    .map((c) => String.fromCharCode(65 + (Number.parseInt(c, 16) % 26)))
    .join("")
    .slice(0, 5);

const spawnRequest = (user: User, symbol: string, key?: string) => {
  const parsed = parseSpawnBody({ name: `Faulty ${symbol}`, symbol });
  assert.ok(parsed.ok);
  return { caller: user, body: parsed.body, idempotencyKey: key, requestHash: `spawn ${symbol}` };
};

const ethOf = async (user: User) => {
  const answer = await ctx.admin.signed(user.credentials, "GET", "/api/balances");
  const eth = (answer.body as { currencyCode: string; available: number; locked: number }[]).find(
    (b) => b.currencyCode === "ETH",
  )!;
  return [String(eth.available), String(eth.locked)];
};

const symbolTaken = (symbol: string) =>
  ctx.client.readContract({
    address: ctx.spawner,
    abi: AgentSpawnerAbi,
    functionName: "isSymbolTaken",
    args: [symbol],
  });

/** The error answer a write comes to (status, code, message, headers), and how long it took. */
async function failureOf(
  work: Promise<WriteOutcome>,
): Promise<{ error: { status: number; code: string; message: string; headers: Record<string, string> }; ms: number }> {
  const started = Date.now();
  const answer = await answered(work);
  const ms = Date.now() - started;
  if (answer.status < 400) assert.fail(`expected the write to fail: ${JSON.stringify(answer.body)}`);
  return { error: { status: answer.status, ...answer.body, headers: answer.headers }, ms };
}

describe("the writes when the chain's node stops answering", () => {
  it("stopped at the gas estimate (the fee read, the row journalled, the fee held): 503 UNAVAILABLE with Retry-After within the deadline, nothing left held or open; resumed, the same key spawns", async () => {
    const user = await newUser("stopped at estimate");
    const symbol = symbolOf("stopped at estimate");
    const key = "outage-estimate";
    const { writes } = writesProcess();
    const nonce = await ctx.client.getTransactionCount({ address: relayerAccount.address });
    const stopped = ctx.gate.pauseAt("eth_estimateGas");
    const { error, ms } = await failureOf(writes.spawn(spawnRequest(user, symbol, key)));
    await stopped;
    assert.deepEqual([error.status, error.code], [503, "UNAVAILABLE"], String(error));
    assert.equal(error.headers?.["Retry-After"], "5");
    assert.match(error.message, /chain's node/);
    // One deadline for the estimate (the fee was read before the stop), then the clean-up on the
    // exchange and the journal, which still answer.
    assert.ok(ms < RPC_TIMEOUT_MS + 3_000, `answered after ${ms} ms`);
    assert.deepEqual(await ethOf(user), ["1", "0"], "the fee hold was released");
    assert.deepEqual(await ctx.journal.openWrites(), [], "no journal row left open");
    assert.equal(await ctx.client.getTransactionCount({ address: relayerAccount.address }), nonce, "nothing sent");

    ctx.gate.resume();
    const answer = await answered(writes.spawn(spawnRequest(user, symbol, key)));
    await writes.completions();
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(await symbolTaken(symbol), true);
    assert.deepEqual(await ethOf(user), ["0.99", "0"]);
  });

  it("stopped before the first read of the spawn fee: 503 within the deadline, nothing held", async () => {
    const user = await newUser("stopped at first read");
    // A fresh process has no spawn fee in memory: its first read is the one that hangs.
    const { writes } = writesProcess();
    ctx.gate.pause();
    const { error, ms } = await failureOf(writes.spawn(spawnRequest(user, symbolOf("stopped at first read"))));
    assert.deepEqual([error.status, error.code, error.headers?.["Retry-After"]], [503, "UNAVAILABLE", "5"]);
    assert.ok(ms < RPC_TIMEOUT_MS + 3_000, `answered after ${ms} ms`);
    assert.deepEqual(await ethOf(user), ["1", "0"]);
    assert.deepEqual(await ctx.journal.openWrites(), []);
  });

  it("stopped at the broadcast: 504 WRITE_PENDING with Retry-After (the outcome is the chain's); resumed, reconcile settles the fee and the key answers the spawn", async () => {
    const user = await newUser("stopped at broadcast");
    const symbol = symbolOf("stopped at broadcast");
    const key = "outage-broadcast";
    const { writes } = writesProcess();
    const stopped = ctx.gate.pauseAt("eth_sendRawTransaction");
    const { error, ms } = await failureOf(writes.spawn(spawnRequest(user, symbol, key)));
    await stopped;
    assert.deepEqual([error.status, error.code], [504, "WRITE_PENDING"], String(error));
    assert.equal(error.headers?.["Retry-After"], "5");
    assert.match(error.message, /Idempotency-Key/);
    // The broadcast's wait and the receipt's, each a transport timeout and its one retry.
    assert.ok(ms < 4 * RPC_TIMEOUT_MS + 3_000, `answered after ${ms} ms`);
    assert.deepEqual(await ethOf(user), ["0.99", "0.01"], "held while the outcome is unknown");
    assert.equal((await ctx.journal.openWrites()).length, 1, "open, for reconcile to finish");

    ctx.gate.resume();
    for (let pass = 0; pass < 50 && (await ctx.journal.openWrites()).length > 0; pass++) {
      await writes.reconcile();
      await sleep(100);
    }
    assert.deepEqual(await ctx.journal.openWrites(), []);
    assert.equal(await symbolTaken(symbol), true);
    assert.deepEqual(await ethOf(user), ["0.99", "0"], "charged once");
    const answer = await answered(writes.spawn(spawnRequest(user, symbol, key)));
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal((answer.body as { token: { symbol: string } }).token.symbol, symbol);
  });
});

describe("a writes process that dies with its fee hold in flight", () => {
  it("leaves nothing locked: the next process's reconcile releases first, and the late hold is refused", async () => {
    const user = await newUser("late hold");
    const symbol = symbolOf("late hold");
    // The dead process's hold request is on its way to the exchange (slow network, a busy
    // exchange) when the process dies: it lands only after the next process has reconciled.
    let sendHold!: () => void;
    const holdMayLand = new Promise<void>((resolve) => (sendHold = resolve));
    let holdSent!: () => void;
    const holdOnItsWay = new Promise<void>((resolve) => (holdSent = resolve));
    let landed!: (status: number) => void;
    const lateStatus = new Promise<number>((resolve) => (landed = resolve));
    const slowFetch = (async (url: string | URL | Request, init?: RequestInit) => {
      if (!String(init?.body).includes('"action":"hold"')) return fetch(url, init);
      holdSent();
      await holdMayLand;
      const answer = await fetch(url, init);
      landed(((await answer.clone().json()) as { results: { status: number }[] }).results[0]!.status);
      return answer;
    }) as typeof fetch;
    // Killed as SIGKILL would: it never gets past its hold (no clean-up runs).
    const dead = writesProcess({
      exchange: new ApiExchange({
        baseUrl: ctx.exchange.url,
        serviceSecret: SERVICE_SECRET,
        timeoutMs: 60_000,
        fetch: slowFetch,
      }),
      step: () => new Promise<never>(() => {}),
    });
    void dead.writes.spawn(spawnRequest(user, symbol)).catch(() => {});
    await holdOnItsWay;
    assert.equal((await ctx.journal.openWrites()).length, 1, "the write is journalled, its hold in flight");

    const next = writesProcess();
    await next.writes.reconcile();
    assert.deepEqual(await ctx.journal.openWrites(), [], "reconcile released the hold id and forgot the row");
    sendHold();
    assert.equal(await lateStatus, 409, "the late hold was refused");
    assert.deepEqual(await ethOf(user), ["1", "0"], "the user's fee is not locked");
    assert.equal(await symbolTaken(symbol), false);
  });
});

describe("POST /api/launchpad/spawn while the chain's node is stopped (the API as it runs, writes on their thread)", () => {
  it("answers 503 UNAVAILABLE with Retry-After within the deadline, not 500 after 20 s; holds nothing; the same key spawns once the node is back", async () => {
    // Ponder (the reads and the writes) reaches the chain through the gate; the exchange does not.
    const ponder = await startPonder({
      name: "writes-faults",
      runDir: ctx.runDir,
      chain: ctx.chain,
      deploymentFile: ctx.deploymentFile,
      backend: { kind: "pglite" },
      env: {
        RPC_URL: ctx.gate.url,
        RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
        EXCHANGE_URL: ctx.exchange.url,
        EXCHANGE_SERVICE_SECRET: SERVICE_SECRET,
        RELAYER_DB_SCHEMA: "relayer_faults_api",
        WRITES_THREAD: "on",
      },
    });
    let failed = true;
    try {
      const api = new SigningClient(ponder.url, ADMIN_TOKEN);
      const user = await newUser("over http");
      await writesReady(api, user.credentials);
      const body = { name: "Outage", symbol: symbolOf("over http") };
      const headers = { "Idempotency-Key": "outage-over-http" };
      const stopped = ctx.gate.pauseAt("eth_estimateGas");
      const started = Date.now();
      const answer = await signedWrite(api, user.credentials, "/api/launchpad/spawn", body, {
        tamper: (h) => Object.assign(h, headers),
      });
      const ms = Date.now() - started;
      await stopped;
      assert.deepEqual([answer.status, answer.body.code], [503, "UNAVAILABLE"], answer.text);
      assert.equal(answer.headers.get("retry-after"), "5");
      assert.ok(ms < 2 * RPC_TIMEOUT_MS + 3_000, `answered after ${ms} ms`);
      assert.deepEqual(await ethOf(user), ["1", "0"], "no fee left held");
      // The reads still answer meanwhile, from the index.
      assert.equal((await fetch(`${ponder.url}/api/launchpad/tokens`)).status, 200);

      ctx.gate.resume();
      const retried = await signedWrite(api, user.credentials, "/api/launchpad/spawn", body, {
        tamper: (h) => Object.assign(h, headers),
      });
      assert.equal(retried.status, 201, `nothing of the first try was left journalled: ${retried.text}`);
      assert.equal(await symbolTaken(body.symbol), true);
      failed = false;
    } finally {
      if (failed) printLogs([ponder.service]);
      await ponder.stop();
    }
  });
});
