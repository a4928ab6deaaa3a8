/**
 * `npm start`: the platform on this machine. Starts a local Hardhat node, deploys every
 * contract, seeds demo activity, then runs the indexer and ecosystem API (Ponder), the
 * exchange (with its demo market), the market-making bot and the web app (built first when its
 * sources are newer than web/dist), prints what it did and keeps
 * running until Ctrl-C (or SIGTERM), which stops everything it started. Once the platform runs,
 * a service that crashes is restarted while the others keep serving (scripts/lib/supervisor.ts);
 * the chain is not, since its state lived in its memory.
 * Logs of long-running services go to .data/logs/, their states and pids to .data/logs/status.json.
 */
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createPublicClient, hexToString, http } from "viem";
import { ActionLogAbi } from "../indexer/abis.ts";
import { readDeployment } from "../lib/deployments.ts";
import { exchangeEnv, parseEnv, startEnv, webEnv } from "../config/env.ts";
import { localUrl } from "../lib/local-url.ts";
import { indexedBlock } from "../lib/ponder-status.ts";
import { waitFor } from "../lib/wait.ts";
import { forgetChainSyncData } from "./lib/ponder-sync.ts";
import { rpcAnswers, Supervisor } from "./lib/supervisor.ts";
import { webBuildDecision } from "./lib/web-build.ts";

const env = parseEnv(startEnv);
const exchange = parseEnv(exchangeEnv);
const rpcUrl = `http://127.0.0.1:${env.CHAIN_PORT}`;
const apiUrl = `http://127.0.0.1:${env.PORT}`;
const exchangeUrl = localUrl(exchange.EXCHANGE_HOST, exchange.EXCHANGE_PORT);
// The exchange writes the demo users' keys next to its data; the bot reads them from there.
const credentialsFile = exchange.DEMO_CREDENTIALS ?? join(dirname(exchange.EXCHANGE_DATA_DIR), "demo-credentials.json");
const web = parseEnv(webEnv);
const webUrl = localUrl(web.WEB_HOST, web.WEB_PORT);
// The APIs answer CORS to the web app's origin only; unless told otherwise, that is where it runs here.
process.env.WEB_ORIGIN ||= [
  ...new Set([webUrl, `http://127.0.0.1:${web.WEB_PORT}`, `http://localhost:${web.WEB_PORT}`]),
].join(",");
const hardhat = "./node_modules/.bin/hardhat";
const LOCAL_CHAIN_ID = 31337;
const WORKER_TIER = 1; // IAgentRegistry.Tier.Worker

if (await rpcAnswers(rpcUrl).catch(() => false)) {
  console.error(`Something already answers JSON-RPC at ${rpcUrl}; stop it or set CHAIN_PORT.`);
  process.exit(1);
}
if (await exchangeAnswers().catch(() => false)) {
  console.error(`Something already answers at ${exchangeUrl}; stop it or set EXCHANGE_PORT.`);
  process.exit(1);
}

const webBuild = await webBuildDecision("web");
if (await webAnswers("/").catch(() => false)) {
  console.error(`Something already answers at ${webUrl}; stop it or set WEB_PORT.`);
  process.exit(1);
}

async function exchangeAnswers(): Promise<boolean> {
  return (await fetch(`${exchangeUrl}/api/healthcheck`, { signal: AbortSignal.timeout(2000) })).ok;
}

/** Any HTTP answer at all from the web app's port (a 503 "not built" counts: it is the server). */
async function webAnswers(path: string, ok = (_status: number) => true): Promise<boolean> {
  return ok((await fetch(`${webUrl}${path}`, { signal: AbortSignal.timeout(2000) })).status);
}

async function webReady(): Promise<boolean> {
  const pageStatuses = webBuild.reason === "no-app" ? [200, 503] : [200];
  return (
    (await webAnswers("/config.json", (status) => status === 200)) &&
    (await webAnswers("/", (status) => pageStatuses.includes(status)))
  );
}

async function bookHasBothSides(pair: string): Promise<boolean> {
  const response = await fetch(`${exchangeUrl}/api/orderbook?currencyPairCode=${pair}`, {
    signal: AbortSignal.timeout(2000),
  });
  if (!response.ok) return false;
  const levels = (await response.json()) as { isBid: boolean }[];
  return levels.some((level) => level.isBid) && levels.some((level) => !level.isBid);
}

const supervisor = new Supervisor();
try {
  await supervisor.task("build", hardhat, ["build", "--quiet"]);
  if (webBuild.build) {
    console.log(
      webBuild.reason === "no-dist"
        ? "web: building the app (web/dist is missing)"
        : `web: rebuilding the app (${webBuild.newer} is newer than web/dist)`,
    );
    await supervisor.task("build:web", "npm", ["run", "build:web"]);
  } else if (webBuild.reason === "no-app")
    console.log("web: not building the app: web/index.html does not exist in this checkout; serving web/dist as it is");
  supervisor.service({
    name: "chain",
    command: hardhat,
    // The demo network: the node's clock starts days back, so the seed's history lies in the past.
    args: ["node", "--network", "demo", "--hostname", "127.0.0.1", "--port", String(env.CHAIN_PORT)],
    // A new node would be a different, empty chain under the same id and addresses: the index,
    // the agents' journal and the relayer's would describe transactions it never had.
    restart: false,
    notRestarted:
      "the chain's state lived in that process's memory, and a new node would be another chain. " +
      "The exchange keeps trading and the ecosystem API keeps serving what it indexed; the agents " +
      "and the signed writes wait for a chain that will not return. Press Ctrl-C and npm start again for a fresh chain.",
  });
  await waitFor(`the local chain at ${rpcUrl}`, () => rpcAnswers(rpcUrl), { intervalMs: 250 });
  // A local node's accounts are unlocked: never sign with a key from the caller's environment here.
  const chainEnvVars = { RPC_URL: rpcUrl, DEPLOYER_PRIVATE_KEY: "" };
  await supervisor.task(
    "deploy",
    hardhat,
    ["run", "scripts/deploy.ts", "--network", "rpc", "--no-compile"],
    chainEnvVars,
  );
  // The web app needs only the deployment record (its /config.json); the browser reads the rest
  // from the APIs, which answer as they come up. Ready: the page and its configuration answer
  // (the page with 503 "not built" while this checkout has no app). It comes up while the
  // others start, and is waited for last.
  supervisor.service({
    name: "web",
    command: process.execPath,
    args: ["web/server/main.ts"],
    env: { RPC_URL: rpcUrl, CHAIN_ID: String(LOCAL_CHAIN_ID), PORT: String(env.PORT), EXCHANGE_URL: exchangeUrl },
    ready: webReady,
  });
  await supervisor.task("seed", hardhat, ["run", "scripts/seed.ts", "--network", "rpc", "--no-compile"], chainEnvVars);
  // "Running" means the indexer has caught up with everything the seed wrote, not merely that
  // Ponder answers: its first answers otherwise describe a chain from before the seed ended.
  const chainClient = createPublicClient({ transport: http(rpcUrl, { timeout: 5_000 }) });
  const seedHead = await chainClient.getBlockNumber();

  // The exchange keeps its data (PGlite in EXCHANGE_DATA_DIR, or its schema in DATABASE_URL)
  // across restarts, unlike the chain; EXCHANGE_DEMO fills an empty one with the demo market.
  // A restarted exchange reloads its books from that store before it answers /api/ready.
  supervisor.service({
    name: "exchange",
    command: process.execPath,
    args: ["exchange/server/main.ts"],
    // It lists the tokens the ecosystem API indexes (retrying until that API, started below, answers).
    env: {
      EXCHANGE_DEMO: "true",
      DEMO_CREDENTIALS: credentialsFile,
      ECOSYSTEM_API_URL: apiUrl,
      // Joined to the chain: deposit addresses, the watcher, withdrawals, sweeps.
      CHAIN_GATEWAY: "true",
      RPC_URL: rpcUrl,
    },
    ready: async () => (await fetch(`${exchangeUrl}/api/ready`, { signal: AbortSignal.timeout(2000) })).ok,
  });
  await waitFor(`the exchange at ${exchangeUrl}`, exchangeAnswers, { timeoutMs: 120_000, intervalMs: 250 });
  // The ecosystem API verifies signed writes through the exchange with its service secret: the
  // environment's, or the one the exchange generated next to its data.
  const serviceSecret =
    exchange.EXCHANGE_SERVICE_SECRET ??
    (
      JSON.parse(await readFile(join(dirname(exchange.EXCHANGE_DATA_DIR), "exchange-secrets.json"), "utf8")) as {
        serviceSecret: string;
      }
    ).serviceSecret;

  // The chain is new on every start, so the previous run's indexed data describes a chain that
  // no longer exists: start the embedded database afresh, or clear this chain from Postgres.
  if (!env.DATABASE_URL) await rm(env.PONDER_DATA_DIR, { recursive: true, force: true });
  else {
    await supervisor.task("prune", "./node_modules/.bin/ponder", ["db", "prune"]);
    await forgetChainSyncData(env.DATABASE_URL, LOCAL_CHAIN_ID);
  }
  // A restarted indexer resumes from its checkpoint in the same schema (after Ponder's lock of
  // the killed process expires, 25 s at most); ready is Ponder's /ready, its backfill done.
  supervisor.service({
    name: "indexer",
    command: "./node_modules/.bin/ponder",
    args: ["start", "--schema", env.DATABASE_SCHEMA, "--port", String(env.PORT)],
    env: {
      RPC_URL: rpcUrl,
      CHAIN_ID: String(LOCAL_CHAIN_ID),
      EXCHANGE_URL: exchangeUrl,
      EXCHANGE_SERVICE_SECRET: serviceSecret,
    },
    ready: async () => (await fetch(`${apiUrl}/ready`, { signal: AbortSignal.timeout(2000) })).ok,
  });
  await waitFor(
    `the ecosystem API at ${apiUrl}`,
    async () => (await fetch(`${apiUrl}/health`, { signal: AbortSignal.timeout(2000) })).ok,
    { timeoutMs: 120_000, intervalMs: 250 },
  );
  await waitFor(
    `the indexer to reach block ${seedHead}, where the seed ended`,
    async () => BigInt(await indexedBlock(apiUrl)) >= seedHead,
    { timeoutMs: 180_000, intervalMs: 250 },
  );
  // The signed writes answer 503 until the relayer's journal and the chain are ready, then 401
  // to a request without a signature.
  await waitFor(
    "the signed writes (relayer) to be ready",
    async () =>
      (await fetch(`${apiUrl}/api/launchpad/spawn`, { method: "POST", signal: AbortSignal.timeout(2000) })).status ===
      401,
    { timeoutMs: 60_000, intervalMs: 250 },
  );

  // The agent runtime: every worker, the queen and the scouts, acting with the node's accounts.
  // Running means acting: a worker's first trade is on the chain and indexed. Watched on the chain
  // and Ponder's /status, so the wait spends none of the user's API quota.
  // A restarted runtime first finishes the intents its journal holds, then acts again.
  supervisor.service({
    name: "agents",
    command: process.execPath,
    args: ["agents/runtime/main.ts"],
    env: { RPC_URL: rpcUrl, CHAIN_ID: String(LOCAL_CHAIN_ID) },
    ready: /agents: running/,
  });
  const { contracts } = await readDeployment(LOCAL_CHAIN_ID);
  let firstAgentBlock = -1n;
  await waitFor(
    "the agents' first worker trade on the chain",
    async () => {
      const logs = await chainClient.getContractEvents({
        address: contracts.ActionLog,
        abi: ActionLogAbi,
        eventName: "ActionRecorded",
        fromBlock: seedHead + 1n,
      });
      const first = logs.find(
        (log) => log.args.sourceTier === WORKER_TIER && hexToString(log.args.payload!).includes('"swapTx"'),
      );
      if (first) firstAgentBlock = first.blockNumber;
      return first !== undefined;
    },
    { timeoutMs: 90_000, intervalMs: 250 },
  );
  await waitFor(
    `the indexer to reach block ${firstAgentBlock}, the agents' first trade`,
    async () => BigInt(await indexedBlock(apiUrl)) >= firstAgentBlock,
    { timeoutMs: 60_000, intervalMs: 250 },
  );

  // The bot waits for valid keys in the file itself (the exchange writes them just after it listens).
  // A restarted bot cancels its leftover quotes, then quotes again.
  supervisor.service({
    name: "bot",
    command: process.execPath,
    args: ["exchange/bot/main.ts"],
    env: { EXCHANGE_URL: exchangeUrl, DEMO_CREDENTIALS: credentialsFile },
    ready: /bot: quoting/,
  });
  await waitFor(`the demo credentials in ${credentialsFile}`, async () => existsSync(credentialsFile), {
    timeoutMs: 30_000,
    intervalMs: 250,
  });
  await waitFor("the bot's first quotes on ETH_USDT", () => bookHasBothSides("ETH_USDT"), {
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  await waitFor(`the web app at ${webUrl}`, webReady, { timeoutMs: 60_000, intervalMs: 250 });
} catch (error) {
  console.error((error as Error).message);
  await supervisor.stop(1);
}
supervisor.supervise();

console.log(`
Platform running:
  web app                               ${webUrl}
  chain (Hardhat node, chain id 31337)  ${rpcUrl}
  ecosystem API (Ponder + Hono)         ${apiUrl}/api/agents/overview
                                        ${apiUrl}/api/launchpad/tokens
  explorers: GraphQL ${apiUrl}/graphql   SQL ${apiUrl}/sql   OpenAPI ${apiUrl}/openapi.json
  database: ${env.DATABASE_URL ? `PostgreSQL, schema ${env.DATABASE_SCHEMA}` : `embedded PGlite in ${env.PONDER_DATA_DIR}`}
  contracts: deployments/31337.json

  exchange (spot, demo market)          ${exchangeUrl}/api/tickers
                                        ${exchangeUrl}/swagger
    data kept across restarts in ${exchange.DATABASE_URL ? `PostgreSQL schema ${exchange.EXCHANGE_DB_SCHEMA}` : exchange.EXCHANGE_DATA_DIR} (delete it for a fresh market)
    demo users' API keys: ${credentialsFile}   admin: npm run admin -- --help
    market-making bot trading on it (BOT_SEED in .data/logs/bot.log)
  signed writes (spawn, vote, propose)  ${apiUrl}/api/launchpad/spawn  (relayer: deployments/31337.json accounts.relayer)
  agents (workers, queen, scouts)       ${apiUrl}/api/agents/action-logs  (npm run agents; journal in .data/agents)
  logs: .data/logs/{chain,indexer,exchange,bot,agents,web}.log   states and pids: .data/logs/status.json
  a service that crashes is restarted (not the chain: its state is in memory); Ctrl-C stops all

A signed order as trader-1 (signature = HMAC-SHA256 of publicKey + URL + body + timestamp, lowercase hex;
the timestamp makes it single-use and valid for 30 s):
  KEYS='JSON.parse(require("fs").readFileSync(${JSON.stringify(credentialsFile)})).find(u => u.label === "trader-1")'
  PK=$(node -p "$KEYS.publicKey"); SK=$(node -p "$KEYS.privateKey")
  URL=${exchangeUrl}/api/orders
  BODY='{"isBid":true,"currencyPairCode":"ETH_USDT","amount":"0.01","price":"2900.00"}'
  TS=$(node -p 'Date.now()')
  SIG=$(printf '%s' "$PK$URL$BODY$TS" | openssl dgst -sha256 -hmac "$SK" | sed 's/^.* //')
  curl -s -X POST "$URL" -H "API-PublicKey: $PK" -H "API-Signature: $SIG" -H "API-Timestamp: $TS" -H 'content-type: application/json' -d "$BODY"
The same keys sign the ecosystem API's writes, relayed on-chain (README, "Signed writes"): with
URL=${apiUrl}/api/launchpad/spawn and BODY='{"name":"My Agent","symbol":"MINE"}' as trader-2, or
URL=${apiUrl}/api/agents/workers/<ALPHA address>/vote and BODY='{"proposalId":"4","vote":"yes"}'.
Press Ctrl-C to stop.`);
