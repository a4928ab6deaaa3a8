/**
 * `npm run bench:mcp`: the MCP server's read tools against the same REST call in the same run, and
 * the lag from an action's block to its `notifications/resources/updated` on a subscription.
 *
 * 1. A Hardhat node on a free port, the ecosystem deployed and seeded, Ponder (with the API and
 *    /mcp) on PGlite, or with DATABASE_URL a PostgreSQL database of its own, polling the chain
 *    every BENCH_MCP_POLL_MS (1000, the indexer's default), all in a temp dir. The limiters are
 *    lifted so they are not what is measured: RATE_LIMIT_PER_MINUTE, MCP_CALLS_PER_MINUTE and
 *    MCP_SESSIONS_PER_MINUTE at 10,000,000 (Ponder's and the stdio server's env).
 * 2. Throughput: BENCH_MCP_ROUNDS rounds, each of BENCH_MCP_ROUND_MS per path, the paths taking
 *    turns (REST, MCP over HTTP, MCP over stdio, REST, ...) so noise hits all, each with
 *    BENCH_MCP_CONCURRENCY calls in flight, of one read (BENCH_MCP_TOOL):
 *    - REST: `GET /api/...` with fetch, the body read as JSON;
 *    - MCP HTTP: as many SDK clients (sessions) on `/mcp` (Streamable HTTP), one call in flight each;
 *    - MCP stdio: one SDK client of `node mcp/main.ts` (a client of the same API over HTTP), all
 *      calls in flight on it (BENCH_MCP_STDIO=false leaves it out).
 *    Calls/s, p50/p99, errors, and CPU ms per call of the API process, the stdio server and this
 *    script (the machine's cores are shared, so a heavier client slows the server it measures).
 * 3. Lag: one HTTP session and the stdio session subscribe to `ecosystem://action-log`; scout #1's
 *    key records BENCH_MCP_LAG_ACTIONS `ActionLog.record` flags one at a time (a block each),
 *    each after the previous one's notifications, a second after its receipt and a random pause up
 *    to BENCH_MCP_LAG_GAP_MS (so the actions do not keep step with the indexer's polling); each is
 *    timed from its receipt (polled every 10 ms), and from its block's timestamp, to the first
 *    `notifications/resources/updated` after it was sent.
 * Targets: MCP over HTTP >= 0.8x REST calls/s; lag p99 <= 2 indexer polling intervals + SSE_POLL_MS.
 */
import { deepStrictEqual } from "node:assert";
import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { createPublicClient, encodeFunctionData, http, type PublicClient, stringToHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { ActionLogAbi } from "../../indexer/abis.ts";
import {
  createPrivateDatabase,
  deployAndSeed,
  type Ponder,
  ROOT,
  startChain,
  startPonder,
  stopAll,
  waitIndexed,
} from "../../support/ecosystem/harness.ts";
import { freePort } from "../../support/net/free-port.ts";
import { percentile } from "./indexer/stats.ts";
import { cpuSeconds } from "./proc.ts";
import { envInt } from "./env.ts";

const int = envInt;
const CONCURRENCY = int("BENCH_MCP_CONCURRENCY", 16);
const ROUNDS = int("BENCH_MCP_ROUNDS", 3);
const ROUND_MS = int("BENCH_MCP_ROUND_MS", 4000);
const POLL_MS = int("BENCH_MCP_POLL_MS", 1000);
const SSE_POLL_MS = int("BENCH_MCP_SSE_POLL_MS", 250);
const LAG_ACTIONS = int("BENCH_MCP_LAG_ACTIONS", 30);
const LAG_GAP_MS = int("BENCH_MCP_LAG_GAP_MS", 500);
const TOOL = process.env.BENCH_MCP_TOOL ?? "list_action_logs";
const STDIO = (process.env.BENCH_MCP_STDIO ?? "true") !== "false";
const KEEP_TMP = process.env.BENCH_KEEP_TMP === "true";
/** A directory for V8 CPU profiles of the API's process (written when it stops). */
const PROFILE_DIR = process.env.BENCH_MCP_PROFILE_DIR;
const TARGET = 0.8;
const LAG_TARGET_MS = 2 * POLL_MS + SSE_POLL_MS;
const UNLIMITED = "10000000";
const ACTION_LOG = "ecosystem://action-log";
const MNEMONIC = "test test test test test test test test test test test junk";

const began = performance.now();
const log = (msg: string) =>
  console.log(`[bench ${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${msg}`);

const tmp = await mkdtemp(join(tmpdir(), "bench-mcp-"));
// Ctrl-C: the harness SIGKILLs the chain and Ponder and exits; the temp dir goes here (retried: a
// Ponder killed a moment ago may still be writing into it).
process.once("exit", () => {
  if (KEEP_TMP) console.log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
});

type PathName = "REST" | "MCP HTTP" | "MCP stdio";
interface Round {
  path: PathName;
  round: number;
  calls: number;
  errors: number;
  seconds: number;
  latencies: number[];
  /** CPU seconds in the round: the API's process, the stdio server, this script. */
  cpu: { api: number; stdio: number; bench: number };
}

let ponder: Ponder | undefined;
let dropDatabase: (() => Promise<void>) | undefined;
const clients: Client[] = [];

try {
  log(
    `${TOOL}: ${ROUNDS} rounds of ${ROUND_MS} ms per path, ${CONCURRENCY} in flight; ` +
      `lag: ${LAG_ACTIONS} actions, indexer polling ${POLL_MS} ms, SSE_POLL_MS ${SSE_POLL_MS}`,
  );
  const chain = await startChain(tmp);
  const deployed = await deployAndSeed(chain, tmp);
  const contracts = deployed.deployment.contracts;
  const target = deployed.summary!.tokens[0]!.nftId;
  const postgres = process.env.DATABASE_URL
    ? await createPrivateDatabase(process.env.DATABASE_URL, "bench_mcp")
    : undefined;
  dropDatabase = postgres?.drop;
  // Nothing listens there: no exchange tool is called.
  const deadExchange = `http://127.0.0.1:${await freePort()}`;
  ponder = await startPonder({
    name: "bench-mcp",
    runDir: tmp,
    chain,
    deploymentFile: deployed.deploymentFile,
    backend: postgres ? { kind: "postgres", url: postgres.url } : { kind: "pglite" },
    env: {
      POLLING_INTERVAL_MS: String(POLL_MS),
      SSE_POLL_MS: String(SSE_POLL_MS),
      RATE_LIMIT_PER_MINUTE: UNLIMITED,
      MCP_CALLS_PER_MINUTE: UNLIMITED,
      MCP_SESSIONS_PER_MINUTE: UNLIMITED,
      MCP_MAX_SESSIONS: String(CONCURRENCY + 10),
      EXCHANGE_URL: deadExchange,
      ...(PROFILE_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${PROFILE_DIR}` } : {}),
    },
  });
  await waitIndexed(ponder, await chain.blockNumber(), 180_000);
  log(`chain seeded, Ponder caught up (${postgres ? "PostgreSQL" : "PGlite"})`);
  const base = ponder.url;

  // The read, as a tool call and as the REST call it makes.
  const cases: Record<string, { args: Record<string, unknown>; path: string }> = {
    list_action_logs: { args: { pageSize: 20 }, path: "/api/agents/action-logs?pageSize=20" },
    get_token: { args: { tokenId: String(target) }, path: `/api/launchpad/tokens/${target}` },
  };
  const read = cases[TOOL];
  if (!read) throw new Error(`BENCH_MCP_TOOL must be one of ${Object.keys(cases).join(", ")}`);

  const connect = async (name: string, transport: StreamableHTTPClientTransport | StdioClientTransport) => {
    const client = new Client({ name, version: "0" });
    clients.push(client);
    await client.connect(transport);
    return client;
  };
  const httpClients = await Promise.all(
    Array.from({ length: CONCURRENCY }, (_, i) =>
      connect(`bench-http-${i}`, new StreamableHTTPClientTransport(new URL(`${base}/mcp`))),
    ),
  );
  const stdioTransport = STDIO
    ? new StdioClientTransport({
        command: process.execPath,
        args: [join(ROOT, "mcp/main.ts")],
        cwd: ROOT,
        env: {
          ...getDefaultEnvironment(),
          ECOSYSTEM_API_URL: base,
          EXCHANGE_URL: deadExchange,
          MCP_CALLS_PER_MINUTE: UNLIMITED,
        },
        stderr: "pipe",
      })
    : undefined;
  const stdioClient = stdioTransport ? await connect("bench-stdio", stdioTransport) : undefined;

  const callTool = async (client: Client) =>
    (await client.callTool({ name: TOOL, arguments: read.args }, undefined, { timeout: 30_000 })) as CallToolResult;
  const callRest = async () => {
    const response = await fetch(`${base}${read.path}`);
    const body = await response.json();
    return { ok: response.ok, body };
  };

  // The tool answers what REST answers (nothing is written meanwhile).
  const rest = await callRest();
  if (!rest.ok) throw new Error(`${read.path}: ${JSON.stringify(rest.body)}`);
  for (const client of [httpClients[0]!, ...(stdioClient ? [stdioClient] : [])]) {
    const result = await callTool(client);
    if (result.isError) throw new Error(`${TOOL}: ${JSON.stringify(result.content)}`);
    deepStrictEqual(result.structuredContent, rest.body, `${TOOL} answers what ${read.path} answers`);
  }

  /** CONCURRENCY workers calling `call(worker)` until ROUND_MS has passed. */
  async function runRound(path: PathName, round: number, call: (worker: number) => Promise<boolean>): Promise<Round> {
    const latencies: number[] = [];
    let errors = 0;
    const apiPid = ponder!.service.pid!;
    const stdioPid = stdioTransport?.pid ?? undefined;
    const cpu0 = {
      api: cpuSeconds(apiPid),
      stdio: stdioPid ? cpuSeconds(stdioPid) : 0,
      bench: process.cpuUsage(),
    };
    const start = performance.now();
    const deadline = start + ROUND_MS;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, worker) => {
        while (performance.now() < deadline) {
          const t0 = performance.now();
          const ok = await call(worker).catch(() => false);
          latencies.push(performance.now() - t0);
          if (!ok) errors++;
        }
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    const bench = process.cpuUsage(cpu0.bench);
    return {
      path,
      round,
      calls: latencies.length,
      errors,
      seconds,
      latencies,
      cpu: {
        api: cpuSeconds(apiPid) - cpu0.api,
        stdio: stdioPid ? cpuSeconds(stdioPid) - cpu0.stdio : 0,
        bench: (bench.user + bench.system) / 1e6,
      },
    };
  }

  const paths: [PathName, (worker: number) => Promise<boolean>][] = [
    ["REST", async () => (await callRest()).ok],
    ["MCP HTTP", async (worker) => !(await callTool(httpClients[worker]!)).isError],
  ];
  if (stdioClient) paths.push(["MCP stdio", async () => !(await callTool(stdioClient)).isError]);

  // Warm-up (round 0, untimed): JIT, connection pools, the database's caches.
  for (const [path, call] of paths) await runRound(path, 0, call);
  const rounds: Round[] = [];
  for (let round = 1; round <= ROUNDS; round++)
    for (const [path, call] of paths) {
      const r = await runRound(path, round, call);
      rounds.push(r);
      log(
        `${path}, round ${round}: ${(r.calls / r.seconds).toFixed(0)} calls/s, p99 ${percentile(r.latencies, 99).toFixed(1)} ms${r.errors ? `, ${r.errors} errors` : ""}`,
      );
    }

  // ---- Lag: an action's block to notifications/resources/updated.
  const lagClient = await connect("bench-lag-http", new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  const heard: Record<string, number[]> = { "MCP HTTP": [] };
  lagClient.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    if (n.params.uri === ACTION_LOG) heard["MCP HTTP"]!.push(performance.now());
  });
  await lagClient.subscribeResource({ uri: ACTION_LOG });
  if (stdioClient) {
    heard["MCP stdio"] = [];
    stdioClient.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      if (n.params.uri === ACTION_LOG) heard["MCP stdio"]!.push(performance.now());
    });
    await stdioClient.subscribeResource({ uri: ACTION_LOG });
  }
  // Each shared SSE stream connects on the first subscription.
  await sleep(1000);
  const listeners = Object.keys(heard);

  const client = createPublicClient({ transport: http(chain.url) }) as PublicClient;
  const scout = mnemonicToAccount(MNEMONIC, { addressIndex: 11 });
  const fees = await client.estimateFeesPerGas();
  let nonce = await client.getTransactionCount({ address: scout.address, blockTag: "pending" });
  const samples: { fromReceipt: Record<string, number>; fromBlock: Record<string, number> }[] = [];
  // The seed moves the chain's clock ahead (voting delays) and Hardhat follows the wall clock from
  // there: chain ms = wall ms + an offset. Each block bounds it (mined between send and receipt, its
  // timestamp the chain's second then); the bounds of all blocks together narrow it down.
  let offsetLo = Number.NEGATIVE_INFINITY;
  let offsetHi = Number.POSITIVE_INFINITY;
  let missed = 0;
  let extra = 0;
  log(`lag phase: ${LAG_ACTIONS} actions, one at a time`);
  for (let i = 0; i < LAG_ACTIONS; i++) {
    const data = encodeFunctionData({
      abi: ActionLogAbi,
      functionName: "record",
      args: [target, "flag", stringToHex(JSON.stringify({ signal: "bench-mcp", i })), "BENCH"],
    });
    const gas = await client.estimateGas({ account: scout.address, to: contracts.ActionLog, data });
    const raw = await scout.signTransaction({
      type: "eip1559",
      chainId: 31337,
      nonce: nonce++,
      to: contracts.ActionLog,
      data,
      gas: (gas * 12n) / 10n,
      ...fees,
    });
    for (const name of listeners) heard[name]!.length = 0;
    const sentAt = performance.now();
    const sentWall = Date.now();
    const hash = await client.sendRawTransaction({ serializedTransaction: raw });
    let receipt: Awaited<ReturnType<PublicClient["getTransactionReceipt"]>> | undefined;
    while (!receipt) {
      receipt = await client.getTransactionReceipt({ hash }).catch(() => undefined);
      if (!receipt) await sleep(10);
    }
    const receiptAt = performance.now();
    const receiptWall = Date.now();
    if (receipt.status !== "success") throw new Error(`record ${i} reverted`);
    const block = await client.getBlock({ blockHash: receipt.blockHash });
    const blockWallMs = Number(block.timestamp) * 1000;
    offsetLo = Math.max(offsetLo, blockWallMs - receiptWall);
    offsetHi = Math.min(offsetHi, blockWallMs + 1000 - sentWall);
    const until = performance.now() + 15_000;
    while (listeners.some((name) => heard[name]!.length === 0) && performance.now() < until) await sleep(5);
    const sample = { fromReceipt: {} as Record<string, number>, fromBlock: {} as Record<string, number> };
    for (const name of listeners) {
      const at = heard[name]![0];
      if (at === undefined || at < sentAt) {
        missed++;
        continue;
      }
      sample.fromReceipt[name] = at - receiptAt;
      // The notification's wall time against the block's own timestamp (on the chain's clock: the
      // offset is added below).
      sample.fromBlock[name] = receiptWall + (at - receiptAt) - blockWallMs;
    }
    samples.push(sample);
    // Blocks at least a second apart (two in one second would put the second one's timestamp a
    // second ahead), then a random pause up to the gap: the next action lands anywhere in the
    // indexer's polling cycle.
    await sleep(Math.max(0, receiptAt + 1000 - performance.now()) + LAG_GAP_MS * Math.random());
    for (const name of listeners) extra += Math.max(0, heard[name]!.length - 1);
  }

  // ---- Report.
  const total = (path: PathName) => {
    const r = rounds.filter((x) => x.path === path);
    const calls = r.reduce((s, x) => s + x.calls, 0);
    const seconds = r.reduce((s, x) => s + x.seconds, 0);
    const latencies = r.flatMap((x) => x.latencies);
    const cpu = (key: keyof Round["cpu"]) => (r.reduce((s, x) => s + x.cpu[key], 0) * 1000) / calls;
    return {
      calls,
      errors: r.reduce((s, x) => s + x.errors, 0),
      perSecond: calls / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      cpuApi: cpu("api"),
      cpuStdio: cpu("stdio"),
      cpuBench: cpu("bench"),
    };
  };
  const restAll = total("REST");
  const fmt = (n: number, digits = 1) => n.toFixed(digits);
  console.log("");
  console.log(`${TOOL} ${JSON.stringify(read.args)} against GET ${read.path}, ${CONCURRENCY} in flight`);
  console.log("path                 calls  errors  calls/s  x REST  p50 ms  p99 ms  p99 x REST");
  console.log("-------------------  -----  ------  -------  ------  ------  ------  ----------");
  for (const r of rounds) {
    const restRound = rounds.find((x) => x.path === "REST" && x.round === r.round)!;
    const perSecond = r.calls / r.seconds;
    const p99 = percentile(r.latencies, 99);
    const vs = (a: number, b: number) => (r.path === "REST" ? "" : `${(a / b).toFixed(2)}x`);
    console.log(
      `${`${r.path}, round ${r.round}`.padEnd(19)}  ${String(r.calls).padStart(5)}  ${String(r.errors).padStart(6)}  ${fmt(perSecond, 0).padStart(7)}  ${vs(perSecond, restRound.calls / restRound.seconds).padStart(6)}  ${fmt(percentile(r.latencies, 50)).padStart(6)}  ${fmt(p99).padStart(6)}  ${vs(p99, percentile(restRound.latencies, 99)).padStart(10)}`,
    );
  }
  const totals = paths.map(([path]) => [path, total(path)] as const);
  for (const [path, t] of totals) {
    const vs = (a: number, b: number) => (path === "REST" ? "" : `${(a / b).toFixed(2)}x`);
    console.log(
      `${`${path}, all`.padEnd(19)}  ${String(t.calls).padStart(5)}  ${String(t.errors).padStart(6)}  ${fmt(t.perSecond, 0).padStart(7)}  ${vs(t.perSecond, restAll.perSecond).padStart(6)}  ${fmt(t.p50).padStart(6)}  ${fmt(t.p99).padStart(6)}  ${vs(t.p99, restAll.p99).padStart(10)}`,
    );
  }
  console.log("");
  console.log("CPU ms per call      API process  stdio server  bench script");
  for (const [path, t] of totals)
    console.log(
      `${path.padEnd(19)}  ${fmt(t.cpuApi, 2).padStart(11)}  ${(path === "MCP stdio" ? fmt(t.cpuStdio, 2) : "").padStart(12)}  ${fmt(t.cpuBench, 2).padStart(12)}`,
    );

  console.log("");
  console.log(
    `lag to notifications/resources/updated on ${ACTION_LOG} (indexer polling ${POLL_MS} ms, SSE_POLL_MS ${SSE_POLL_MS}), ${LAG_ACTIONS} actions:`,
  );
  // Two blocks in one second would push one a second ahead and leave no offset fitting all.
  const offsetKnown = offsetLo <= offsetHi;
  const offsetMs = (offsetLo + offsetHi) / 2;
  const lagOf = (name: string, key: "fromReceipt" | "fromBlock") =>
    samples.flatMap((s) => (s[key][name] === undefined ? [] : [s[key][name]! + (key === "fromBlock" ? offsetMs : 0)]));
  for (const name of listeners) {
    const fromReceipt = lagOf(name, "fromReceipt");
    const fromBlock = lagOf(name, "fromBlock");
    console.log(
      `  ${name.padEnd(9)} from receipt: p50 ${fmt(percentile(fromReceipt, 50), 0)} ms  p99 ${fmt(percentile(fromReceipt, 99), 0)} ms  max ${fmt(Math.max(...fromReceipt), 0)} ms  (${fromReceipt.length} heard)`,
    );
    if (offsetKnown)
      console.log(
        `  ${"".padEnd(9)} from the block's timestamp: p50 ${fmt(percentile(fromBlock, 50), 0)} ms  p99 ${fmt(percentile(fromBlock, 99), 0)} ms  max ${fmt(Math.max(...fromBlock), 0)} ms  (+-${fmt((offsetHi - offsetLo) / 2, 0)} ms)`,
      );
  }
  console.log(
    offsetKnown
      ? `  block timestamps are whole seconds of the chain's clock, ${fmt(offsetMs / 1000, 1)} s ahead of the wall clock (the seed moved it): taken off`
      : "  from the block's timestamp: n/a (no one offset between the chain's clock and the wall clock fits every block)",
  );
  if (missed) console.log(`  ${missed} notifications not heard within 15 s`);
  if (extra) console.log(`  ${extra} notifications beyond one per action`);

  const httpAll = totals.find(([path]) => path === "MCP HTTP")![1];
  const ratio = httpAll.perSecond / restAll.perSecond;
  const httpLag = percentile(lagOf("MCP HTTP", "fromReceipt"), 99);
  console.log("");
  console.log(
    `calls/s: MCP HTTP >= ${TARGET}x REST                          ${ratio.toFixed(2)}x  ${ratio >= TARGET ? "MET" : "MISSED"}`,
  );
  if (stdioClient) {
    const stdioRatio = totals.find(([path]) => path === "MCP stdio")![1].perSecond / restAll.perSecond;
    console.log(`calls/s: MCP stdio (report only)                           ${stdioRatio.toFixed(2)}x`);
  }
  console.log(
    `lag p99 (HTTP, from receipt) <= 2 polls + SSE poll (${LAG_TARGET_MS} ms)  ${fmt(httpLag, 0)} ms  ${httpLag <= LAG_TARGET_MS && missed === 0 ? "MET" : "MISSED"}`,
  );
  await deployed.close();
} finally {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await ponder?.stop().catch(() => {});
  await stopAll();
  await dropDatabase?.().catch((error: unknown) => console.error(`could not drop the database: ${error}`));
}
process.exit(0);
