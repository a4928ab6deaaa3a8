import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Address } from "viem";
import { exchangeEnv, parseEnv } from "../../../config/env.ts";
import { seedDemoBeforeLoad } from "../../../exchange/demo/reference-data.ts";
import { type RunningExchange, startExchange } from "../../../exchange/server/start.ts";
import {
  type Chain,
  deployAndSeed,
  type Ponder,
  startChain,
  createPrivateDatabase,
  startPonder,
  type Viem,
  waitIndexed,
} from "../../../test/support/ecosystem/harness.ts";
import { ExchangeClient } from "../../../test/support/exchange/signing-client.ts";
import type { WritesBenchConfig } from "./config.ts";
import { RpcCounter } from "./rpc-count.ts";

/**
 * Everything the writes benchmark runs against, as test/ecosystem/writes.test.ts starts it: a
 * Hardhat node on a free port, the ecosystem deployed and seeded, the exchange in this process
 * (identity, balances, fee holds) and Ponder (the read API with its relayer) on PGlite, all in
 * one temp dir. The harness kills its children if this process exits without stopping them.
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
  exchange: RunningExchange;
  ponder: Ponder;
  /** Admin calls on the exchange (users, keys, deposits). */
  admin: ExchangeClient;
  /** Signed calls on the ecosystem API. */
  api: ExchangeClient;
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

  log("starting the exchange (in this process) and Ponder...");
  started.exchange = await startExchange(
    parseEnv(exchangeEnv, {
      EXCHANGE_PORT: "0",
      EXCHANGE_DATA_DIR: join(tmp, "exchange", "data"),
      EXCHANGE_SERVER_KEY: "22".repeat(32),
      EXCHANGE_ADMIN_TOKEN: ADMIN_TOKEN,
      EXCHANGE_SERVICE_SECRET: SERVICE_SECRET,
      RATE_LIMIT_PER_MINUTE: "100000000",
      SIGNED_RATE_LIMIT_PER_MINUTE: "100000000",
    }),
    { log: () => {}, beforeLoad: seedDemoBeforeLoad },
  );
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
  started.admin = new ExchangeClient(started.exchange.url, ADMIN_TOKEN);
  started.api = new ExchangeClient(started.ponder.url, ADMIN_TOKEN);
  return started as Services;
}

export { writesReady } from "../../../test/support/ecosystem/writes.ts";

/** Stops what `started` holds, in reverse order; never throws. */
export async function stopServices(started: StartedSoFar): Promise<void> {
  const quietly = (what: Promise<unknown> | undefined) => what?.catch(() => {});
  await quietly(started.ponder?.stop());
  await quietly(started.exchange?.close());
  await quietly(started.rpc?.close());
  await quietly(started.closeViem?.());
  await quietly(started.chain?.stop());
  await quietly(started.dropDatabase?.());
}
