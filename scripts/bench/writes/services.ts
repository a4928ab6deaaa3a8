import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Address } from "viem";
import {
  type Chain,
  createPrivateDatabase,
  deployAndSeed,
  type Ponder,
  ROOT,
  Service,
  startChain,
  startPonder,
  type Viem,
  waitIndexed,
} from "../../../support/ecosystem/harness.ts";
import { freePort } from "../../../support/net/free-port.ts";
import { waitFor } from "../../../support/wait.ts";
import { SigningClient } from "../../../support/exchange/signing-client.ts";
import type { WritesBenchConfig } from "./config.ts";
import { RpcCounter } from "./rpc-count.ts";

/**
 * Everything the writes benchmark runs against: a Hardhat node on a free port, the ecosystem
 * deployed and seeded, the exchange (identity, balances, fee holds) and Ponder (the read API with
 * its relayer), all in one temp dir. The harness kills its children if this process exits without
 * stopping them.
 *
 * The exchange runs as npm start runs it, in a process of its own (on PGlite). It used to run in
 * this process, where its work (HTTP, PGlite commits: 58% of this thread in the API's spawn
 * rounds) delayed the clients' own timing and next requests: an API-path-only cost no
 * deployment has.
 */

const SERVICE_SECRET = "service-secret-for-the-writes-bench";
const ADMIN_TOKEN = "admin-token-for-the-writes-bench";

export interface Services {
  chain: Chain;
  viem: Viem;
  closeViem: () => Promise<void>;
  contracts: Record<string, Address>;
  /** The deployment's relayer account (Hardhat account #1 locally). */
  relayer: Address;
  alpha: Address;
  alphaWorkerId: bigint;
  /** The exchange's process and URL. */
  exchange: { url: string; service: Service };
  ponder: Ponder;
  /** Admin calls on the exchange (users, keys, deposits). */
  admin: SigningClient;
  /** Signed calls on the ecosystem API. */
  api: SigningClient;
  /** With DATABASE_URL: drops the private database Ponder used. */
  dropDatabase?: () => Promise<void>;
  /** With BENCH_WRITES_COUNT_RPC: the proxy Ponder reaches the chain through. */
  rpc?: RpcCounter;
}

/** What has been started so far, for the clean-up after a failure half-way. */
export type StartedSoFar = { -readonly [K in keyof Services]?: Services[K] };

export async function startServices(
  cfg: WritesBenchConfig,
  tmp: string,
  started: StartedSoFar,
  log: (msg: string) => void,
): Promise<Services> {
  log("starting a Hardhat node, deploying and seeding...");
  started.chain = await startChain(tmp);
  const deployed = await deployAndSeed(started.chain, tmp);
  started.viem = deployed.viem;
  started.closeViem = deployed.close;
  // The node prints and decodes every transaction otherwise: CPU both paths would pay for.
  await started.chain.rpc("hardhat_setLoggingEnabled", [false]);
  const deployment = JSON.parse(await readFile(deployed.deploymentFile, "utf8"));
  started.contracts = deployment.contracts as Record<string, Address>;
  started.relayer = deployment.accounts.relayer.toLowerCase() as Address;
  const alpha = deployed.summary!.tokens.find((t) => t.symbol === "ALPHA")!;
  started.alpha = alpha.token.toLowerCase() as Address;
  started.alphaWorkerId = alpha.workerId;

  log("starting the exchange (a process of its own) and Ponder...");
  started.exchange = await startExchangeProcess(tmp);
  if (cfg.BENCH_WRITES_COUNT_RPC) {
    started.rpc = new RpcCounter(started.chain.url);
    await started.rpc.start();
  }
  // With DATABASE_URL, Ponder (indexed tables and the relayer's journal) runs on PostgreSQL, in a
  // private database dropped afterwards; without it, on embedded PGlite.
  const postgres = process.env.DATABASE_URL
    ? await createPrivateDatabase(process.env.DATABASE_URL, "bench_writes")
    : undefined;
  started.dropDatabase = postgres?.drop;
  started.ponder = await startPonder({
    name: "bench-writes",
    runDir: tmp,
    chain: started.rpc ? { ...started.chain, url: started.rpc.url } : started.chain,
    deploymentFile: deployed.deploymentFile,
    backend: postgres ? { kind: "postgres", url: postgres.url } : { kind: "pglite" },
    env: {
      EXCHANGE_URL: started.exchange.url,
      EXCHANGE_SERVICE_SECRET: SERVICE_SECRET,
      RATE_LIMIT_PER_MINUTE: "100000000",
      VOTE_RATE_LIMIT_PER_MINUTE: "100000",
      RELAYER_POLL_MS: String(cfg.RELAYER_POLL_MS),
      RELAYER_DB_SCHEMA: "relayer_bench",
    },
  });
  await waitIndexed(started.ponder, await started.chain.blockNumber(), 120_000);
  started.admin = new SigningClient(started.exchange.url, ADMIN_TOKEN);
  started.api = new SigningClient(started.ponder.url, ADMIN_TOKEN);
  return started as Services;
}

export { writesReady } from "../../../support/ecosystem/writes.ts";

/** Stops what `started` holds, in reverse order; never throws. */
export async function stopServices(started: StartedSoFar): Promise<void> {
  const quietly = (what: Promise<unknown> | undefined) => what?.catch(() => {});
  await quietly(started.ponder?.stop());
  await quietly(started.exchange?.service.stop());
  await quietly(started.rpc?.close());
  await quietly(started.closeViem?.());
  await quietly(started.chain?.stop());
  await quietly(started.dropDatabase?.());
}

/** `node exchange/server/main.ts` with the demo market's reference data, on a free port, once it answers. */
async function startExchangeProcess(tmp: string): Promise<{ url: string; service: Service }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { DATABASE_URL: _own, ...inherited } = process.env;
  const service = new Service("exchange", process.execPath, ["exchange/server/main.ts"], join(tmp, "exchange.log"), {
    cwd: ROOT,
    env: {
      ...inherited,
      EXCHANGE_HOST: "127.0.0.1",
      EXCHANGE_PORT: String(port),
      EXCHANGE_DATA_DIR: join(tmp, "exchange", "data"),
      EXCHANGE_DEMO: "true",
      DEMO_CREDENTIALS: join(tmp, "exchange", "demo-credentials.json"),
      EXCHANGE_SERVER_KEY: "22".repeat(32),
      EXCHANGE_ADMIN_TOKEN: ADMIN_TOKEN,
      EXCHANGE_SERVICE_SECRET: SERVICE_SECRET,
      RATE_LIMIT_PER_MINUTE: "100000000",
      SIGNED_RATE_LIMIT_PER_MINUTE: "100000000",
    },
  });
  await waitFor(
    `the exchange on port ${port}`,
    async () => (await fetch(`${url}/api/healthcheck`).catch(() => undefined))?.ok,
    { timeoutMs: 120_000, alive: [service] },
  );
  return { url, service };
}
