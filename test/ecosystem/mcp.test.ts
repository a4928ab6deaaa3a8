/**
 * The MCP server against a running platform (chain, seed, Ponder serving the ecosystem API), with
 * the SDK's own client over both transports: Streamable HTTP at the API's /mcp, and stdio
 * (`node mcp/main.ts`, as an agent's configuration starts it). Every ecosystem read tool answers
 * what the REST API answers; bad input is a tool error with SPEC.md's code; a subscriber to the
 * live action log hears of an entry recorded on chain. The exchange is not started here: its
 * tools answer UNAVAILABLE, which is what they must do when it is away.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type CallToolResult, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { formatUnits, parseUnits, toHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe } from "vitest";
import { ACCOUNTS, type Activity, activity } from "../../support/ecosystem/activity.ts";
import { failureTracking } from "../../support/ecosystem/failure-tracking.ts";
import {
  type Chain,
  deployAndSeed,
  httpGet,
  makeRunDir,
  type Ponder,
  printLogs,
  type Viem,
  removeRunDir,
  startChain,
  startPonder,
  stopAll,
  waitIndexed,
} from "../../support/ecosystem/harness.ts";
import { freePort } from "../../support/net/free-port.ts";
import { waitFor } from "../../support/wait.ts";
import { stdioServer } from "../../support/mcp/stdio.ts";

const SPEC_TEXT = "# SPEC.md stand-in for the MCP test\n";
const ACTION_LOG = "ecosystem://action-log";

const ctx = {} as {
  runDir: string;
  chain: Chain;
  ponder: Ponder;
  act: Activity;
  alpha: { nftId: bigint; token: `0x${string}`; pool: `0x${string}` };
  viem: Viem;
  closeViem: () => Promise<void>;
  deadExchange: string;
  specPath: string;
};
const { test, run } = failureTracking();
const clients: Client[] = [];

beforeAll(async () => {
  try {
    ctx.runDir = await makeRunDir("mcp");
    ctx.specPath = join(ctx.runDir, "SPEC.md");
    await writeFile(ctx.specPath, SPEC_TEXT);
    // Nothing listens there: the exchange tools must answer UNAVAILABLE, not hang or crash.
    ctx.deadExchange = `http://127.0.0.1:${await freePort()}`;
    ctx.chain = await startChain(ctx.runDir);
    const deployed = await deployAndSeed(ctx.chain, ctx.runDir);
    ctx.closeViem = deployed.close;
    ctx.viem = deployed.viem;
    ctx.act = await activity(deployed.viem, deployed.deployment.contracts);
    ctx.alpha = deployed.summary!.tokens.find((t) => t.symbol === "ALPHA")!;
    ctx.ponder = await startPonder({
      runDir: ctx.runDir,
      chain: ctx.chain,
      deploymentFile: deployed.deploymentFile,
      name: "pglite",
      backend: { kind: "pglite" },
      env: { SSE_POLL_MS: "100", MCP_SPEC_PATH: ctx.specPath, EXCHANGE_URL: ctx.deadExchange },
    });
    await waitIndexed(ctx.ponder, await ctx.chain.blockNumber());
  } catch (error) {
    run.failed = true;
    throw error;
  }
});

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  if (run.failed) printLogs([ctx.chain?.service, ctx.ponder?.service]);
  await ctx.ponder?.stop();
  await ctx.closeViem?.();
  await ctx.chain?.stop();
  await stopAll();
  if (ctx.runDir) await removeRunDir(ctx.runDir);
});

const transports: Record<string, () => Transport> = {
  http: () => new StreamableHTTPClientTransport(new URL(`${ctx.ponder.url}/mcp`)),
  stdio: () =>
    stdioServer({ ECOSYSTEM_API_URL: ctx.ponder.url, EXCHANGE_URL: ctx.deadExchange, MCP_SPEC_PATH: ctx.specPath }),
};

async function connect(kind: string) {
  const client = new Client({ name: `mcp-test-${kind}`, version: "0" });
  clients.push(client);
  await client.connect(transports[kind]!());
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 20_000 })) as CallToolResult;
}
function errorOf(result: CallToolResult) {
  assert.equal(result.isError, true, JSON.stringify(result));
  const [first] = result.content;
  return JSON.parse(first?.type === "text" ? first.text : "null") as { code: string; message: string };
}
async function rest(path: string) {
  const answer = await httpGet(ctx.ponder.url, path);
  assert.equal(answer.status, 200, `${path}: ${answer.text}`);
  return answer.body;
}

for (const kind of Object.keys(transports)) {
  describe(`MCP over ${kind}`, () => {
    test("lists the read tools, and no write tool without credentials", async () => {
      const client = await connect(kind);
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const name of ["get_overview", "list_tokens", "get_token", "list_action_logs", "get_ticker"])
        assert.ok(names.includes(name), name);
      assert.ok(!names.some((n) => /^(spawn|vote|propose|place|cancel|record|buy|sell)/.test(n)), names.join());
      assert.ok(client.getServerCapabilities()?.resources?.subscribe);
    });

    test("every ecosystem read tool answers what the REST API answers", async () => {
      const client = await connect(kind);
      await client.listTools(); // the client then validates each structuredContent against its schema
      const nft = String(ctx.alpha.nftId);
      const proposals = await rest(`/api/agents/workers/${nft}/proposals?pageSize=5`);
      const proposalId: string | undefined = proposals.items[0]?.proposalId;
      const end = Math.floor(Date.now() / 1000) + 30 * 86_400;
      const cases: [string, Record<string, unknown>, string][] = [
        ["get_overview", {}, "/api/agents/overview"],
        ["list_tokens", { sort: "tvl", pageSize: 3 }, "/api/launchpad/tokens?sort=tvl&pageSize=3"],
        ["list_tokens", { boosted: false, poolSide: "STABLE" }, "/api/launchpad/tokens?boosted=false&poolSide=STABLE"],
        ["get_token", { tokenId: nft }, `/api/launchpad/tokens/${nft}`],
        ["get_token", { tokenId: ctx.alpha.token.toUpperCase().replace("0X", "0x") }, `/api/launchpad/tokens/${nft}`],
        ["get_token_pool", { tokenId: nft }, `/api/launchpad/tokens/${nft}/pool`],
        ["get_token_worker", { tokenId: nft }, `/api/launchpad/tokens/${nft}/worker`],
        ["list_token_trades", { tokenId: nft, pageSize: 5 }, `/api/launchpad/tokens/${nft}/trades?pageSize=5`],
        ["list_token_holders", { tokenId: nft }, `/api/launchpad/tokens/${nft}/holders`],
        ["list_workers", { status: "active" }, "/api/agents/workers?status=active"],
        ["get_worker", { tokenId: nft }, `/api/agents/workers/${nft}`],
        [
          "list_action_logs",
          { sourceTier: "queen", pageSize: 10 },
          "/api/agents/action-logs?sourceTier=queen&pageSize=10",
        ],
        ["list_proposals", { tokenId: nft, pageSize: 5 }, `/api/agents/workers/${nft}/proposals?pageSize=5`],
      ];
      if (proposalId) cases.push(["get_proposal", { proposalId }, `/api/agents/proposals/${proposalId}`]);
      for (const [name, args, path] of cases) {
        const result = await call(client, name, args);
        assert.equal(result.isError, undefined, `${name}: ${JSON.stringify(result.content)}`);
        assert.deepEqual(result.structuredContent, await rest(path), name);
      }
      const start = end - 365 * 86_400;
      const candles = await call(client, "get_token_candles", { tokenId: nft, interval: "day", start, end });
      assert.deepEqual(candles.structuredContent, {
        items: await rest(`/api/launchpad/tokens/${nft}/candles?interval=day&start=${start}&end=${end}`),
      });
      assert.ok(proposalId, "the seed opens proposals");
    });

    test("a swap quote is what the pool contract quotes", async () => {
      const client = await connect(kind);
      const pool = await ctx.viem.getContractAt("AgentPool", ctx.alpha.pool);
      const pairAsset = await pool.read.pairAsset();
      // ALPHA is paired with the 6-decimal stable token.
      for (const [side, amountIn, tokenIn, decimals] of [
        ["buy", "12.345678", pairAsset, 6],
        ["sell", "3.000000000000000001", ctx.alpha.token, 18],
      ] as const) {
        const result = await call(client, "quote_swap", { tokenId: String(ctx.alpha.nftId), side, amountIn });
        assert.equal(result.isError, undefined, JSON.stringify(result.content));
        const [amountOut, fee] = await pool.read.quote([tokenIn, parseUnits(amountIn, decimals)]);
        const outDecimals = side === "buy" ? 18 : 6;
        assert.equal(result.structuredContent?.amountOut, formatUnits(amountOut, outDecimals), side);
        assert.equal(result.structuredContent?.fee, formatUnits(fee, decimals), side);
      }
    });

    test("bad input and unknown things are tool errors with SPEC.md codes", async () => {
      const client = await connect(kind);
      const tooBig = errorOf(await call(client, "list_workers", { pageSize: 101 }));
      assert.equal(tooBig.code, "INVALID_PARAM");
      assert.match(tooBig.message, /pageSize/);
      assert.equal(errorOf(await call(client, "get_token", { tokenId: "not a token" })).code, "INVALID_PARAM");
      assert.equal(errorOf(await call(client, "get_token", { tokenId: "999999" })).code, "NOT_FOUND");
      assert.equal(errorOf(await call(client, "get_proposal", { proposalId: "999999" })).code, "PROPOSAL_NOT_FOUND");
      const window = errorOf(await call(client, "list_action_logs", { since: 10, until: 5 }));
      assert.deepEqual(window.code, "INVALID_PARAM");
      assert.equal(errorOf(await call(client, "get_ticker", { currencyPairCode: "ETH_USDT" })).code, "UNAVAILABLE");
      assert.equal(errorOf(await call(client, "nope")).code, "NOT_FOUND");
      // Still serving after all that.
      assert.equal((await call(client, "get_overview")).isError, undefined);
    });

    test("serves SPEC.md and the action log as resources", async () => {
      const client = await connect(kind);
      const spec = await client.readResource({ uri: "ecosystem://spec" });
      assert.deepEqual(spec.contents[0], { uri: "ecosystem://spec", mimeType: "text/markdown", text: SPEC_TEXT });
      const log = await client.readResource({ uri: ACTION_LOG });
      const [entry] = log.contents;
      assert.deepEqual(
        JSON.parse(entry && "text" in entry ? entry.text : "null"),
        await rest("/api/agents/action-logs?pageSize=20"),
      );
    });

    test("a subscriber to the live action log hears of a new entry", async () => {
      const client = await connect(kind);
      const updates: string[] = [];
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
      await client.subscribeResource({ uri: ACTION_LOG });
      // The shared stream connects on the first subscription; give it a moment before the write.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await ctx.act.act(ACCOUNTS.queen, ctx.alpha.nftId, "directive", { instruction: `mcp-${kind}` }, "MCP_TEST");
      await waitFor(
        `${kind}: resources/updated for the action log`,
        async () => updates.includes(ACTION_LOG) || undefined,
        {
          timeoutMs: 30_000,
        },
      );
      const log = await client.readResource({ uri: ACTION_LOG });
      const [entry] = log.contents;
      const newest = JSON.parse(entry && "text" in entry ? entry.text : "null").items[0];
      assert.equal(newest.actionPayload.instruction, `mcp-${kind}`);
    });
  });
}

/** Hardhat's account `index`'s private key (the node's test mnemonic). */
const keyOf = (index: number) =>
  toHex(
    mnemonicToAccount("test test test test test test test test test test test junk", { addressIndex: index }).getHdKey()
      .privateKey!,
  );

async function connectAsAgent(index: number) {
  const client = new Client({ name: `mcp-test-agent-${index}`, version: "0" });
  clients.push(client);
  await client.connect(
    stdioServer({
      ECOSYSTEM_API_URL: ctx.ponder.url,
      EXCHANGE_URL: ctx.deadExchange,
      MCP_SPEC_PATH: ctx.specPath,
      AGENT_PRIVATE_KEY: keyOf(index),
      RPC_URL: ctx.chain.url,
      DEPLOYMENTS_ROOT: ctx.runDir,
    }),
  );
  return client;
}

describe("MCP's on-chain tools with the agent's own key (stdio, AGENT_PRIVATE_KEY)", () => {
  test("a scout records an action once per idempotency key; it is indexed; a stranger is refused", async () => {
    const scout = await connectAsAgent(ACCOUNTS.scouts[0]);
    const names = (await scout.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("record_action") && names.includes("swap"), names.join());
    assert.ok(!names.includes("place_order"), "no exchange key, no exchange write");
    const args = {
      tokenId: ctx.alpha.token,
      actionType: "flag",
      payload: { note: "from an MCP agent" },
      reasonCode: "MCP_TEST",
      idempotencyKey: "mcp-record-1",
    };
    const recorded = await call(scout, "record_action", args);
    assert.ok(!recorded.isError, JSON.stringify(recorded));
    const { txHash, tokenNftId } = recorded.structuredContent as { txHash: string; tokenNftId: string };
    assert.equal(tokenNftId, String(ctx.alpha.nftId));
    const again = await call(scout, "record_action", args);
    assert.equal((again.structuredContent as { txHash: string }).txHash, txHash, "a retry gets the first answer");
    assert.equal(
      errorOf(await call(scout, "record_action", { ...args, reasonCode: "OTHER" })).code,
      "IDEMPOTENCY_KEY_REUSED",
    );
    await waitFor(
      "the recorded action in /api/agents/action-logs",
      async () => {
        const page = await rest(`/api/agents/action-logs?tokenId=${tokenNftId}&actionType=flag&pageSize=100`);
        return (page.items as { txHash?: string }[]).filter((item) => item.txHash === txHash).length === 1;
      },
      { timeoutMs: 30_000 },
    );

    const stranger = await connectAsAgent(19);
    const refused = errorOf(await call(stranger, "record_action", { ...args, idempotencyKey: undefined }));
    assert.equal(refused.code, "UNAUTHORIZED_AGENT", refused.message);
  });

  test("a user buys on a pool with the contracts' quote; beyond the cap nothing is sent", async () => {
    const user = await connectAsAgent(ACCOUNTS.users[0]);
    const quoted = await call(user, "quote_swap", { tokenId: ctx.alpha.token, side: "buy", amountIn: "10" });
    const bought = await call(user, "swap", {
      tokenId: ctx.alpha.token,
      side: "buy",
      amountIn: "10",
      slippageCapBps: 10_000,
    });
    assert.ok(!bought.isError, JSON.stringify(bought));
    const { amountOut, txHash } = bought.structuredContent as { amountOut: string; txHash: string };
    assert.match(txHash, /^0x[0-9a-f]{64}$/);
    assert.equal(formatUnits(BigInt(amountOut), 18), (quoted.structuredContent as { amountOut: string }).amountOut);
    const capped = errorOf(
      await call(user, "swap", { tokenId: ctx.alpha.token, side: "buy", amountIn: "50000", slippageCapBps: 0 }),
    );
    assert.equal(capped.code, "SLIPPAGE_CAP_EXCEEDED");
  });
});
