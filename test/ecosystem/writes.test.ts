/**
 * The signed writes end to end: a seeded chain, the exchange (identity, balances, fee holds) and
 * Ponder (the API with its relayer), on every backend (PGlite always, PostgreSQL too when
 * DATABASE_URL is set). Every SPEC.md error code of spawn and vote is produced here; a spawn and
 * votes show up in the read API; 20 concurrent votes and 5 concurrent spawns land with
 * consecutive nonces; an Idempotency-Key never acts twice.
 */
import assert from "node:assert/strict";
import { spawn as spawnProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type Address, createPublicClient, erc20Abi, type Hex, http, keccak256, parseEther, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe } from "vitest";
import { exchangeEnv, parseEnv } from "../../config/env.ts";
import { seedFixtureBeforeLoad } from "../../support/exchange/fixture-market.ts";
import { type RunningExchange, startExchange } from "../../exchange/server/start.ts";
import { WorkerVotingAbi } from "../../indexer/abis.ts";
import { ACCOUNTS, activity } from "../../support/ecosystem/activity.ts";
import {
  backends,
  type Chain,
  createPrivateDatabase,
  deployAndSeed,
  makeRunDir,
  type Ponder,
  printLogs,
  ROOT,
  removeRunDir,
  startChain,
  startPonder,
  stopAll,
  type Viem,
  waitIndexed,
} from "../../support/ecosystem/harness.ts";
import { waitFor } from "../../support/wait.ts";
import { failureTracking } from "../../support/ecosystem/failure-tracking.ts";
import { signedWrite, writesReady } from "../../support/ecosystem/writes.ts";
import { type Credentials, SigningClient } from "../../support/exchange/signing-client.ts";
import { stdioServer } from "../../support/mcp/stdio.ts";

const BACKENDS = backends();
const VOTE_LIMIT = 12;
const SERVICE_SECRET = "service-secret-for-e2e-writes";
const ADMIN_TOKEN = "admin-token-for-e2e-writes";

interface Shared {
  runDir: string;
  chain: Chain;
  viem: Viem;
  closeViem: () => Promise<void>;
  deploymentFile: string;
  contracts: Record<string, Address>;
  act: Awaited<ReturnType<typeof activity>>;
  alpha: Address;
  alphaNftId: bigint;
  alphaWorkerId: bigint;
  client: ReturnType<typeof createPublicClient>;
}
const shared = {} as Shared;
const services: { exchange?: RunningExchange; ponder?: Ponder }[] = [];
/** `test`: `it` that notes a failure in `run.failed`, so the logs of the run are printed at the end. */
const { test, run } = failureTracking();

/** A fresh chain address per label (no ETH needed: the relayer pays the gas). */
const freshAddress = (label: string): Address =>
  privateKeyToAccount(keccak256(toHex(`writes-e2e ${label}`))).address.toLowerCase() as Address;

beforeAll(async () => {
  shared.runDir = await makeRunDir("writes");
  shared.chain = await startChain(shared.runDir);
  const deployed = await deployAndSeed(shared.chain, shared.runDir);
  shared.viem = deployed.viem;
  shared.closeViem = deployed.close;
  shared.deploymentFile = deployed.deploymentFile;
  shared.contracts = deployed.deployment.contracts as Record<string, Address>;
  const alpha = deployed.summary!.tokens.find((t) => t.symbol === "ALPHA")!;
  shared.alpha = alpha.token.toLowerCase() as Address;
  shared.alphaNftId = alpha.nftId;
  shared.act = await activity(deployed.viem, deployed.deployment.contracts);
  shared.alphaWorkerId = alpha.workerId;
  shared.client = createPublicClient({ transport: http(shared.chain.url) });
}, 300_000);

afterAll(async () => {
  if (run.failed) printLogs([shared.chain?.service, ...services.map((s) => s.ponder?.service)]);
  for (const s of services) {
    await s.ponder?.stop();
    await s.exchange?.close();
  }
  await shared.closeViem?.();
  await shared.chain?.stop();
  await stopAll();
  if (shared.runDir) await removeRunDir(shared.runDir);
});

/** Account 4 (the demo's ALPHA buyer) gives `amount` whole ALPHA to each address. */
async function giveAlpha(addresses: readonly Address[], amount: string) {
  const [, , , , holder] = await shared.viem.getWalletClients();
  for (const to of addresses) {
    const hash = await holder.writeContract({
      address: shared.alpha,
      abi: erc20Abi,
      functionName: "transfer",
      args: [to, parseEther(amount)],
    });
    await shared.client.waitForTransactionReceipt({ hash });
  }
}

/** A proposal on ALPHA's worker made by account 4, pending for the voting delay. */
async function proposeOnAlpha(description: string): Promise<{ id: bigint; startTime: bigint }> {
  const [, , , , holder] = await shared.viem.getWalletClients();
  const voting = shared.contracts.WorkerVoting;
  const hash = await holder.writeContract({
    address: voting,
    abi: WorkerVotingAbi,
    functionName: "propose",
    args: [shared.alphaWorkerId, { slippageCapBps: 42, mevProtection: 1, signalSubscriptions: ["price"] }, description],
  });
  await shared.client.waitForTransactionReceipt({ hash });
  const id = await shared.client.readContract({ address: voting, abi: WorkerVotingAbi, functionName: "proposalCount" });
  const proposal = await shared.client.readContract({
    address: voting,
    abi: WorkerVotingAbi,
    functionName: "getProposal",
    args: [id],
  });
  return { id, startTime: proposal.startTime };
}

async function openVoting(startTime: bigint) {
  const test = await shared.viem.getTestClient();
  const block = await shared.client.getBlock();
  if (block.timestamp < startTime) {
    await test.setNextBlockTimestamp({ timestamp: startTime });
    await test.mine({ blocks: 1 });
  }
}

async function startPonderFor(label: string, backend: (typeof BACKENDS)[number], exchangeUrl: string, env = {}) {
  const postgres =
    backend.kind === "postgres" ? await createPrivateDatabase(backend.url, `writes_${label}`) : undefined;
  const ponder = await startPonder({
    name: `writes-${label}`,
    runDir: shared.runDir,
    chain: shared.chain,
    deploymentFile: shared.deploymentFile,
    backend: postgres ? { kind: "postgres", url: postgres.url } : { kind: "pglite" },
    env: {
      EXCHANGE_URL: exchangeUrl,
      EXCHANGE_SERVICE_SECRET: SERVICE_SECRET,
      VOTE_RATE_LIMIT_PER_MINUTE: String(VOTE_LIMIT),
      RELAYER_DB_SCHEMA: `relayer_${label.replace(/[^a-z0-9]/g, "_")}`,
      MCP_HTTP_AUTH: "api-key",
      ...env,
    },
  });
  return { ponder, dropDatabase: postgres?.drop };
}

async function nonceOf(hash: Hex): Promise<number> {
  return (await shared.client.getTransaction({ hash })).nonce;
}

function consecutive(nonces: number[]): boolean {
  const sorted = [...nonces].sort((a, b) => a - b);
  return sorted.every((n, i) => i === 0 || n === sorted[i - 1]! + 1);
}

for (const backend of BACKENDS) {
  describe(`signed writes on ${backend.kind}`, () => {
    const label = backend.kind;
    let exchange: RunningExchange;
    let admin: SigningClient;
    let api: SigningClient;
    let ponder: Ponder;
    const users: Record<string, Credentials> = {};
    const voters: Credentials[] = [];
    /** Agents over MCP: each holds ALPHA from before the proposal and ETH for a spawn's fee. */
    const agents: Record<"http" | "stdio", Credentials> = {} as never;
    let proposal: { id: bigint; startTime: bigint };

    const user = async (level: number, address: string | null, eth = "1") =>
      admin.user(level, eth === "0" ? {} : { ETH: eth }, address);
    const ethBalance = async (who: Credentials) => {
      const answer = await new SigningClient(exchange.url, ADMIN_TOKEN).signed(who, "GET", "/api/balances");
      const eth = (answer.body as { currencyCode: string; available: string; locked: string }[]).find(
        (b) => b.currencyCode === "ETH",
      )!;
      return { available: String(eth.available), locked: String(eth.locked) };
    };

    beforeAll(async () => {
      const vars: Record<string, string> = {
        EXCHANGE_PORT: "0",
        EXCHANGE_DATA_DIR: join(shared.runDir, `exchange-${label}`, "data"),
        EXCHANGE_SERVER_KEY: "22".repeat(32),
        EXCHANGE_ADMIN_TOKEN: ADMIN_TOKEN,
        EXCHANGE_SERVICE_SECRET: SERVICE_SECRET,
        RATE_LIMIT_PER_MINUTE: "100000",
        SIGNED_RATE_LIMIT_PER_MINUTE: "100000",
      };
      if (backend.kind === "postgres") {
        vars.DATABASE_URL = backend.url;
        vars.EXCHANGE_DB_SCHEMA = `x_writes_${process.pid}_${Date.now().toString(36)}`;
      }
      exchange = await startExchange(parseEnv(exchangeEnv, vars), {
        log: () => {},
        beforeLoad: seedFixtureBeforeLoad,
      });
      const started = await startPonderFor(label, backend, exchange.url);
      ponder = started.ponder;
      services.push({ exchange, ponder });
      await waitIndexed(ponder, await shared.chain.blockNumber(), 120_000);
      admin = new SigningClient(exchange.url, ADMIN_TOKEN);
      api = new SigningClient(ponder.url, ADMIN_TOKEN);

      // 20 voters holding ALPHA before the proposal, plus the users each error needs.
      const addresses = Array.from({ length: 20 }, (_, i) => freshAddress(`${label} voter ${i}`));
      const agentAddresses = { http: freshAddress(`${label} mcp http`), stdio: freshAddress(`${label} mcp stdio`) };
      await giveAlpha([...addresses, ...Object.values(agentAddresses)], "10");
      for (const address of addresses) voters.push(await user(20, address));
      agents.http = await user(20, agentAddresses.http);
      agents.stdio = await user(20, agentAddresses.stdio);
      users.spawner = await user(20, freshAddress(`${label} spawner`));
      users.poor = await user(20, freshAddress(`${label} poor`), "0");
      users.noAddress = await user(25, null);
      users.newcomer = await user(5, freshAddress(`${label} newcomer`));
      users.noTokens = await user(20, freshAddress(`${label} no tokens`));
      users.limited = await user(20, freshAddress(`${label} limited`));
      proposal = await proposeOnAlpha(`e2e writes on ${label}`);
      await writesReady(api, users.spawner);
    }, 300_000);

    const vote = (who: Credentials, body: object, token: string = shared.alpha, headers: Record<string, string> = {}) =>
      signedWrite(api, who, `/api/agents/workers/${token}/vote`, body, {
        tamper: (h) => Object.assign(h, headers),
      });
    const spawn = (who: Credentials, body: object, headers: Record<string, string> = {}) =>
      signedWrite(api, who, "/api/launchpad/spawn", body, { tamper: (h) => Object.assign(h, headers) });
    const expectError = (answer: { status: number; body: any }, status: number, code: string) =>
      assert.deepEqual([answer.status, answer.body?.code], [status, code], JSON.stringify(answer.body));

    test("a pending proposal answers 409 VOTING_NOT_STARTED with its start time", async () => {
      const answer = await vote(voters[0]!, { proposalId: String(proposal.id), vote: "yes" });
      expectError(answer, 409, "VOTING_NOT_STARTED");
      assert.match(answer.body.message, new RegExp(String(proposal.startTime)));
      await openVoting(proposal.startTime);
    });

    test("bad, missing and replayed signatures answer 401 UNAUTHORIZED", async () => {
      const body = { proposalId: String(proposal.id), vote: "yes" };
      expectError(await vote(voters[0]!, body, shared.alpha, { "API-Signature": "0".repeat(64) }), 401, "UNAUTHORIZED");
      const missing = await fetch(`${ponder.url}/api/launchpad/spawn`, {
        method: "POST",
        body: JSON.stringify({ name: "A", symbol: "ABC" }),
      });
      expectError({ status: missing.status, body: await missing.json() }, 401, "UNAUTHORIZED");
      const stamp = Date.now();
      const first = await api.signed(users.newcomer!, "POST", `/api/agents/workers/${shared.alpha}/vote`, body, {
        timestamp: stamp,
      });
      expectError(first, 403, "LEVEL_TOO_LOW");
      const replay = await api.signed(users.newcomer!, "POST", `/api/agents/workers/${shared.alpha}/vote`, body, {
        timestamp: stamp,
      });
      expectError(replay, 401, "UNAUTHORIZED");
    });

    test("a captured write signed without API-Timestamp cannot be replayed in its signer's name: 401, nothing sent", async () => {
      const before = await shared.client.getTransactionCount({ address: await relayerAddress() });
      const body = {
        config: { slippageCapBps: 77, mevProtection: "off", signalSubscriptions: ["price"] },
        description: "x",
      };
      // Signed as SPEC.md shows (no timestamp): the exchange's own routes still take it; the
      // writes do not, since whoever captured it could send it again and again.
      for (let i = 0; i < 2; i++) {
        const answer = await api.signed(voters[2]!, "POST", `/api/agents/workers/${shared.alpha}/proposals`, body);
        expectError(answer, 401, "UNAUTHORIZED");
        assert.match(answer.body.message, /API-Timestamp/);
      }
      assert.equal(await shared.client.getTransactionCount({ address: await relayerAddress() }), before);
    });

    test("junk headers sent among honest writes answer 4xx, and never fail the honest ones' checks (no 5xx)", async () => {
      const body = { proposalId: String(proposal.id), vote: "yes" };
      const path = `/api/agents/workers/${shared.alpha}/vote`;
      const junk = (headers: Record<string, string>) =>
        signedWrite(api, users.newcomer!, path, body, { tamper: (h) => Object.assign(h, headers) });
      const answers = await Promise.all([
        ...Array.from({ length: 4 }, () => vote(users.newcomer!, body)),
        junk({ "Idempotency-Key": "k".repeat(10_000) }),
        junk({ "API-PublicKey": "p".repeat(300) }),
        junk({ "API-Signature": "s".repeat(10_000) }),
        junk({ "API-Timestamp": "9".repeat(30) }),
        ...Array.from({ length: 4 }, () => vote(users.newcomer!, body)),
      ]);
      const seen = answers.map((a) => `${a.status} ${a.body?.code}`);
      assert.deepEqual(
        seen,
        [
          ...Array(4).fill("403 LEVEL_TOO_LOW"),
          "400 INVALID_PARAM",
          "401 UNAUTHORIZED",
          "401 UNAUTHORIZED",
          "401 UNAUTHORIZED",
          ...Array(4).fill("403 LEVEL_TOO_LOW"),
        ],
        JSON.stringify(answers.map((a) => a.body)),
      );
    });

    test("every vote rejection of SPEC.md, before any gas is spent", async () => {
      const id = String(proposal.id);
      const before = await shared.client.getTransactionCount({ address: await relayerAddress() });
      expectError(await vote(users.newcomer!, { proposalId: id, vote: "yes" }), 403, "LEVEL_TOO_LOW");
      expectError(await vote(users.noAddress!, { proposalId: id, vote: "yes" }), 403, "NO_CHAIN_ADDRESS");
      expectError(await vote(users.noTokens!, { proposalId: id, vote: "yes" }), 403, "NO_HOLDINGS");
      expectError(await vote(voters[0]!, { proposalId: "999999", vote: "yes" }), 404, "PROPOSAL_NOT_FOUND");
      // Proposal 3 is GAMMA's: not this token's worker's.
      expectError(await vote(voters[0]!, { proposalId: "3", vote: "yes" }), 404, "PROPOSAL_NOT_FOUND");
      expectError(await vote(voters[0]!, { proposalId: "1", vote: "yes" }), 409, "PROPOSAL_CLOSED");
      expectError(await vote(voters[0]!, { proposalId: id, vote: "maybe" }), 400, "INVALID_PARAM");
      expectError(await vote(voters[0]!, { proposalId: id, vote: "yes", extra: 1 }), 400, "INVALID_PARAM");
      expectError(await vote(voters[0]!, { proposalId: id, vote: "yes" }, `0x${"ab".repeat(20)}`), 404, "NOT_FOUND");
      assert.equal(await shared.client.getTransactionCount({ address: await relayerAddress() }), before);
    });

    test("20 concurrent votes by different users all land, with consecutive nonces, and show in the reads", async () => {
      const id = String(proposal.id);
      const answers = await Promise.all(
        voters.map((v, i) => vote(v, { proposalId: id, vote: i % 3 === 2 ? "no" : "yes" })),
      );
      for (const answer of answers) assert.equal(answer.status, 201, JSON.stringify(answer.body));
      const nonces = await Promise.all(answers.map((a) => nonceOf(a.body.txHash)));
      assert.equal(new Set(nonces).size, 20);
      assert.ok(consecutive(nonces), `nonces ${nonces}`);
      const last = answers.reduce((a, b) => (Number(b.body.voteId) > Number(a.body.voteId) ? b : a));
      assert.equal(last.body.weight, 10);
      assert.equal(last.body.proposalId, id);
      const yes = answers.filter((a) => a.body.vote === "yes").length;
      assert.equal(last.body.currentTally.yesWeight, yes * 10);
      assert.equal(last.body.currentTally.noWeight, (20 - yes) * 10);
      // Each answer's tally is the one just after its own vote (votes sent together share a
      // broadcast batch, but not a tally), and its votedAt is its own block's time.
      const inOrder = [...answers].sort((a, b) => Number(a.body.voteId) - Number(b.body.voteId));
      const totals = inOrder.map((a) => a.body.currentTally.yesWeight + a.body.currentTally.noWeight);
      assert.deepEqual(
        totals.slice(1).map((t, k) => t - totals[k]!),
        Array(19).fill(10),
        `tallies in vote order: ${totals}`,
      );
      for (const answer of answers) {
        const receipt = await shared.client.getTransactionReceipt({ hash: answer.body.txHash });
        const block = await shared.client.getBlock({ blockNumber: receipt.blockNumber });
        assert.equal(answer.body.votedAt, Number(block.timestamp));
      }
      // The read API shows them within seconds.
      const shown = await waitFor(
        "the votes in the proposal read",
        async () => {
          const response = await fetch(`${ponder.url}/api/agents/proposals/${id}?pageSize=100`);
          const body = (await response.json()) as any;
          // Ponder flushes the proposal row and the vote rows apart: wait for both.
          return body.voteCount === 20 && body.votes.items.length === 20 ? body : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      assert.deepEqual(shown.tally, last.body.currentTally);
      assert.equal(shown.votes.items.length, 20);
      assert.ok(shown.votes.items.every((v: any) => v.relayed === true));
      expectError(await vote(voters[0]!, { proposalId: id, vote: "yes" }), 409, "ALREADY_VOTED");
    });

    // MCP is a client of the API: one backend shows it, whichever it is.
    if (backend === BACKENDS[0])
      test("an agent over MCP (HTTP with its key pair in headers, stdio) spawns, votes, places and cancels", async () => {
        const clients: Client[] = [];
        const connect = async (transport: Transport) => {
          const client = new Client({ name: `writes-mcp-${label}`, version: "0" });
          clients.push(client);
          await client.connect(transport);
          return client;
        };
        const keyHeaders = (who: Credentials) => ({ "API-PublicKey": who.publicKey, "API-PrivateKey": who.privateKey });
        try {
          const http = await connect(
            new StreamableHTTPClientTransport(new URL(`${ponder.url}/mcp`), {
              requestInit: { headers: keyHeaders(agents.http) },
            }),
          );
          const stdio = await connect(
            stdioServer({
              ECOSYSTEM_API_URL: ponder.url,
              EXCHANGE_URL: exchange.url,
              API_PUBLIC_KEY: agents.stdio.publicKey,
              API_PRIVATE_KEY: agents.stdio.privateKey,
            }),
          );
          const call = async (client: Client, name: string, args: Record<string, unknown>) => {
            const result = (await client.callTool({ name, arguments: args }, undefined, {
              timeout: 30_000,
            })) as CallToolResult;
            assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result.content)}`);
            return result.structuredContent as any;
          };
          for (const [kind, client] of [
            ["http", http],
            ["stdio", stdio],
          ] as const) {
            const names = (await client.listTools()).tools.map((t) => t.name);
            for (const name of ["spawn_token", "vote", "propose", "set_worker_operator", "place_order", "cancel_order"])
              assert.ok(names.includes(name), `${kind} lists ${name}: ${names}`);
            const body = {
              name: `MCP ${kind}`,
              symbol: kind === "http" ? "MCPH" : "MCPS",
              idempotencyKey: `mcp-${kind}`,
            };
            const spawned = await call(client, "spawn_token", body);
            assert.equal(spawned.token.symbol, body.symbol);
            assert.equal(spawned.token.owner, freshAddress(`${label} mcp ${kind}`));
            assert.equal((await shared.client.getTransactionReceipt({ hash: spawned.txHash })).status, "success");
            assert.deepEqual(
              await call(client, "spawn_token", body),
              spawned,
              "a retry under its key is the first spawn",
            );
            const order = await call(client, "place_order", {
              isBid: true,
              currencyPairCode: "GAMMA_ETH",
              amount: "1",
              price: "0.001",
              idempotencyKey: `mcp-order-${kind}`,
            });
            assert.equal(order.status, "open", JSON.stringify(order));
            await call(client, "cancel_order", { id: order.id });
            const orders = await call(client, "list_orders", { status: "all" });
            assert.equal(orders.items.find((o: any) => o.id === order.id)?.status, "cancelled", JSON.stringify(orders));
          }
          // HTTP votes with the tool; stdio votes with mcp/README.md's ten-line agent, run as written.
          const id = String(proposal.id);
          const voted = await call(http, "vote", { tokenId: shared.alpha, proposalId: id, vote: "yes" });
          assert.deepEqual([voted.proposalId, voted.vote, voted.weight], [id, "yes", 10]);
          assert.equal((await shared.client.getTransactionReceipt({ hash: voted.txHash })).status, "success");
          await runReadmeAgent(agents.stdio);
          const shown = await waitFor(
            "both MCP votes in the proposal read",
            async () => {
              const body = (await (await fetch(`${ponder.url}/api/agents/proposals/${id}?pageSize=100`)).json()) as any;
              const voterSet = new Set(body.votes.items.map((v: any) => v.voter));
              return voterSet.has(freshAddress(`${label} mcp http`)) && voterSet.has(freshAddress(`${label} mcp stdio`))
                ? body
                : undefined;
            },
            { timeoutMs: 30_000, intervalMs: 200 },
          );
          assert.ok(shown.votes.items.every((v: any) => v.relayed === true));
        } finally {
          await Promise.all(clients.map((client) => client.close().catch(() => {})));
        }
      });

    /**
     * mcp/README.md's agent, its keys filled in: the newest action names ALPHA (recorded here), whose
     * open proposal it votes on. It runs from the checkout, as the README says.
     */
    async function runReadmeAgent(who: Credentials) {
      await shared.act.act(
        ACCOUNTS.queen,
        shared.alphaNftId,
        "directive",
        { instruction: "readme agent" },
        "MCP_README",
      );
      await waitFor(
        "the README agent's action indexed",
        async () => {
          const body = (await (await fetch(`${ponder.url}/api/agents/action-logs?pageSize=1`)).json()) as any;
          return body.items[0]?.reasonCode === "MCP_README" ? true : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      const readme = await readFile(join(ROOT, "mcp/README.md"), "utf8");
      const section = readme.slice(readme.indexOf("## An agent in ten lines"));
      const code = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
      let filled = 0;
      const script = code.replace(/"…"/g, () => JSON.stringify([who.publicKey, who.privateKey][filled++]));
      assert.equal(filled, 2, "the README agent names both keys");
      const child = spawnProcess(process.execPath, ["--input-type=module-typescript"], {
        cwd: ROOT,
        env: { ...process.env, ECOSYSTEM_API_URL: ponder.url, EXCHANGE_URL: exchange.url },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      child.stdin.end(script);
      const exitCode = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      assert.equal(exitCode, 0, output);
      assert.match(output, /txHash/, output);
      assert.doesNotMatch(output, /isError: true/, output);
    }

    test("a holder opens a proposal through the API; it is pending, names the holder and shows in the reads", async () => {
      const config = { slippageCapBps: 120, mevProtection: "batch_auction", signalSubscriptions: ["price", "news"] };
      const propose = (who: Credentials, body: object) =>
        signedWrite(api, who, `/api/agents/workers/${shared.alpha}/proposals`, body);
      expectError(await propose(users.newcomer!, { config, description: "x" }), 403, "LEVEL_TOO_LOW");
      expectError(await propose(users.noTokens!, { config, description: "x" }), 403, "NO_HOLDINGS");
      expectError(await propose(users.noAddress!, { config, description: "x" }), 403, "NO_CHAIN_ADDRESS");
      expectError(
        await propose(voters[1]!, { config: { ...config, slippageCapBps: 10_001 }, description: "x" }),
        400,
        "INVALID_PARAM",
      );
      const answer = await propose(voters[1]!, { config, description: `relayed on ${label}` });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      const created = answer.body;
      assert.equal(created.proposer, freshAddress(`${label} voter 1`));
      assert.equal(created.tokenAddress, shared.alpha);
      assert.deepEqual([created.state, created.open, created.voteCount], ["pending", false, 0]);
      assert.deepEqual(created.config, config);
      assert.equal(created.snapshot, created.startsAt - 1);
      const shown = await waitFor(
        "the relayed proposal in the reads",
        async () => {
          const response = await fetch(`${ponder.url}/api/agents/proposals/${created.proposalId}`);
          return response.status === 200 ? ((await response.json()) as any) : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      const { votes: _votes, ...proposalRead } = shown;
      assert.deepEqual(proposalRead, created);
    });

    test("the per-user vote limit answers 429 past VOTE_RATE_LIMIT_PER_MINUTE", async () => {
      const statuses: number[] = [];
      for (let i = 0; i <= VOTE_LIMIT; i++)
        statuses.push((await vote(users.limited!, { proposalId: "1", vote: "yes" })).status);
      assert.deepEqual(statuses, [...Array(VOTE_LIMIT).fill(409), 429]);
    });

    test("a spawn answers SPEC.md's shape, charges the fee once and shows in the reads", async () => {
      const before = await ethBalance(users.spawner!);
      const key = `spawn-${label}`;
      const body = { name: `E2E ${label}`, symbol: label === "pglite" ? "EEPG" : "EEPS", poolSide: "WRAPPED_NATIVE" };
      const answer = await spawn(users.spawner!, body, { "Idempotency-Key": key });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      const { token, pool, worker, txHash } = answer.body;
      assert.deepEqual(
        [token.name, token.symbol, token.totalSupply, token.owner],
        [body.name, body.symbol, "1000000000", freshAddress(`${label} spawner`)],
      );
      assert.equal(pool.side, "WRAPPED_NATIVE");
      assert.ok(Number.isInteger(worker.id) && Number.isInteger(worker.agentNftId));
      assert.equal((await shared.client.getTransactionReceipt({ hash: txHash })).status, "success");
      // A retry with the same key answers the same spawn and charges nothing more.
      const again = await spawn(users.spawner!, body, { "Idempotency-Key": key });
      assert.deepEqual([again.status, again.body], [201, answer.body]);
      expectError(
        await spawn(users.spawner!, { ...body, name: "Other" }, { "Idempotency-Key": key }),
        409,
        "IDEMPOTENCY_KEY_REUSED",
      );
      // The fee is settled just after the answer (the chain has decided by then).
      const after = await waitFor(
        "the spawn fee settled",
        async () => {
          const balance = await ethBalance(users.spawner!);
          return balance.locked === "0" ? balance : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      assert.deepEqual([before.available, after.available], ["1", "0.99"]);
      const listed = await waitFor(
        "the spawned token in the reads",
        async () => {
          const tokens = (await (await fetch(`${ponder.url}/api/launchpad/tokens?pageSize=100`)).json()) as any;
          const workers = (await (
            await fetch(`${ponder.url}/api/agents/workers?tokenAddress=${token.address}`)
          ).json()) as any;
          const item = tokens.items.find((t: any) => t.address === token.address);
          return item && workers.items.length === 1 ? { item, worker: workers.items[0] } : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      assert.equal(listed.item.symbol, body.symbol);
      assert.equal(listed.worker.workerId, worker.id);
      // The owner's cooldown is now active.
      expectError(await spawn(users.spawner!, { name: "Again", symbol: "AGAIN" }), 400, "COOLDOWN_ACTIVE");
    });

    test("every spawn rejection of SPEC.md, before any gas is spent", async () => {
      const before = await shared.client.getTransactionCount({ address: await relayerAddress() });
      expectError(await spawn(voters[0]!, { name: "A", symbol: "ab1" }), 400, "INVALID_SYMBOL");
      expectError(await spawn(voters[0]!, { name: "A", symbol: "ALPHA" }), 400, "SYMBOL_TAKEN");
      expectError(await spawn(users.poor!, { name: "A", symbol: "POOR" }), 402, "INSUFFICIENT_FEE");
      expectError(await spawn(users.noAddress!, { name: "A", symbol: "NOADR" }), 403, "NO_CHAIN_ADDRESS");
      for (const body of [
        { name: "x".repeat(51), symbol: "LONG" },
        { name: "A", symbol: "SIDE", poolSide: "BOTH" },
        { name: "A", symbol: "SUPP", totalSupply: "1.5" },
        { name: 5, symbol: "TYPE" },
        { name: "A", symbol: "XTRA", unknown: true },
      ])
        expectError(await spawn(voters[0]!, body), 400, "INVALID_PARAM");
      expectError(
        await spawn(voters[0]!, { name: "A", symbol: "HUGE", metadata: { description: "x".repeat(17_000) } }),
        413,
        "PAYLOAD_TOO_LARGE",
      );
      assert.equal(await shared.client.getTransactionCount({ address: await relayerAddress() }), before);
      // The poor user's balance was never touched.
      assert.deepEqual(await ethBalance(users.poor!), { available: "0", locked: "0" });
    });

    test("5 concurrent spawns by different users all land with consecutive nonces", async () => {
      const spawners = voters.slice(0, 5);
      const answers = await Promise.all(
        spawners.map((who, i) =>
          spawn(who, { name: `Parallel ${i}`, symbol: `P${label === "pglite" ? "G" : "S"}${"ABCDE"[i]}` }),
        ),
      );
      for (const answer of answers) assert.equal(answer.status, 201, JSON.stringify(answer.body));
      const nonces = await Promise.all(answers.map((a) => nonceOf(a.body.txHash)));
      assert.ok(consecutive(nonces), `nonces ${nonces}`);
      for (const who of spawners) assert.equal((await ethBalance(who)).available, "0.99");
    });
  });
}

let relayer: Address | undefined;
async function relayerAddress(): Promise<Address> {
  relayer ??= (JSON.parse(await (await import("node:fs/promises")).readFile(shared.deploymentFile, "utf8")) as any)
    .accounts.relayer as Address;
  return relayer!;
}
