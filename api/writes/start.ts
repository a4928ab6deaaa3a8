import { createPublicClient, type Hex, http, type PublicClient } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { readDeployment } from "../../lib/deployments.ts";
import { createRateLimiter } from "../../lib/http/index.ts";
import { type OpenRelayer, openRelayer, relayerClients } from "../../relayer/index.ts";
import type { WritesRuntime } from "./http/app.ts";
import { WriteChain } from "./chain.ts";
import { UnavailableError } from "../../lib/unavailable.ts";
import { SIGNED_WRITES } from "./outcome.ts";
import { ExchangeClient } from "./exchange-client.ts";
import { Writes } from "./service.ts";

/**
 * Puts the writes together in the API process: the chain client, the relayer account, its
 * journal, the exchange client. Start-up work that needs another service (the journal's
 * database, the chain) is retried in the background with backoff, so the read API serves at once
 * and the writes answer 503 until they are ready; a missing setting is said once, clearly.
 */

export interface WritesConfig {
  readonly rpcUrl: string;
  readonly chainId: number;
  readonly rpcTimeoutMs: number;
  readonly relayerPrivateKey?: Hex;
  readonly exchangeUrl: string;
  readonly exchangeServiceSecret?: string;
  readonly exchangeTimeoutMs: number;
  readonly databaseUrl?: string;
  readonly dataDir: string;
  readonly schema: string;
  readonly dbTimeoutMs: number;
  readonly receiptTimeoutMs: number;
  readonly replaceAfterMs: number;
  readonly pollMs: number;
  readonly minBalanceWei: bigint;
  readonly feeCurrency: string;
  readonly votesPerMinute: number;
  /** Where an embedded journal runs (lib/db): the writes' own thread opens it "here". Default "thread". */
  readonly embeddedJournal?: "thread" | "here";
  /** How often open writes are looked at again (a late receipt, an exchange that was away). */
  readonly reconcileIntervalMs?: number;
  readonly log?: (message: string, error?: unknown) => void;
  /** Told each time the writes' readiness changes: undefined once they serve, else why not. */
  readonly onState?: (notReady: string | undefined) => void;
}

export interface StartedWrites extends WritesRuntime {
  /** Resolves once the writes serve (never rejects; retries until closed). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/** Hardhat's default accounts: the local node's relayer signs with its well-known key. */
const HARDHAT_MNEMONIC = "test test test test test test test test test test test junk";
const LOCAL_CHAIN_ID = 31337;
const READS_PER_BATCH = 4;

export function startWrites(config: WritesConfig): StartedWrites {
  const log = config.log ?? ((message: string, error?: unknown) => console.error(message, error ?? ""));
  const exchange = exchangeClientOf(config);
  let service: Writes | undefined;
  let notReady = "signed writes are starting";
  const setNotReady = (reason: string) => {
    notReady = reason;
    config.onState?.(reason);
  };
  let closed = false;
  let opened: OpenRelayer | undefined;
  let timer: NodeJS.Timeout | undefined;

  if (exchange === undefined) setNotReady("signed writes are not configured: EXCHANGE_SERVICE_SECRET is not set");

  const client = createPublicClient({
    // Reads issued together (a write's pre-checks, the tally and block after its receipt) go as
    // one JSON-RPC batch: one round trip instead of three or four. At most four calls a batch: a
    // batch answers when its slowest call does, and unbounded, the estimates of every write that
    // arrived together (32 in bench:writes) went as one and finished together, in lock-step.
    transport: http(config.rpcUrl, {
      timeout: config.rpcTimeoutMs,
      retryCount: 1,
      batch: { wait: 0, batchSize: READS_PER_BATCH },
    }),
  }) as PublicClient;
  // The relayer's broadcasts go through clients of their own, never batched with these reads.
  const clients = relayerClients(config);

  const init = async (exchangeClient: ExchangeClient) => {
    const deployment = await readDeployment(config.chainId);
    const account = relayerAccount(config, deployment.accounts.relayer);
    if (account === undefined) {
      setNotReady(
        "signed writes are not configured: RELAYER_PRIVATE_KEY is not set (only a local chain's relayer key is known)",
      );
      return false;
    }
    const genesis = await client.getBlock({ blockNumber: 0n });
    opened = await openRelayer({
      clients,
      account,
      chainId: config.chainId,
      journal: {
        databaseUrl: config.databaseUrl,
        dataDir: config.dataDir,
        schema: config.schema,
        timeoutMs: config.dbTimeoutMs,
        embedded: config.embeddedJournal,
      },
      genesisHash: genesis.hash,
      receiptTimeoutMs: config.receiptTimeoutMs,
      replaceAfterMs: config.replaceAfterMs,
      pollMs: config.pollMs,
      minBalanceWei: config.minBalanceWei,
    });
    const { relayer, journal } = opened;
    const chain = new WriteChain(
      client,
      {
        spawner: deployment.contracts.AgentSpawner,
        voting: deployment.contracts.WorkerVoting,
        registry: deployment.contracts.AgentRegistry,
      },
      account.address,
      // A pre-check's call waits at most this in all: one timeout, whatever the transport retries.
      { deadlineMs: config.rpcTimeoutMs },
    );
    const writes = new Writes({
      chain,
      relayer,
      journal,
      exchange: exchangeClient,
      feeCurrency: config.feeCurrency,
      voteLimiter: createRateLimiter({ limit: config.votesPerMinute }),
      log,
    });
    if (opened.chain === "changed") {
      log("relayer: the chain is not the one the journal knew; releasing its open fee holds and starting afresh");
      await writes.forgetChain();
    }
    await writes.reconcile();
    service = writes;
    config.onState?.(undefined);
    timer = setInterval(() => void writes.reconcile(), config.reconcileIntervalMs ?? 5_000);
    timer.unref();
    return true;
  };

  const ready = (async () => {
    if (exchange === undefined) return;
    for (let delay = 500; !closed; delay = Math.min(delay * 2, 15_000)) {
      try {
        await init(exchange);
        return;
      } catch (error) {
        await opened?.close().catch(() => {});
        opened = undefined;
        setNotReady(`signed writes are starting: ${(error as Error).message.split("\n")[0]}`);
        log(`relayer: not ready yet, retrying in ${delay} ms`, error);
        await new Promise((resolve) => setTimeout(resolve, delay).unref());
      }
    }
  })();

  const unavailable = () => new UnavailableError(SIGNED_WRITES, notReady);
  return {
    ready,
    service: () => service ?? throwing(unavailable()),
    exchange: () => exchange ?? throwing(unavailable()),
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await service?.completions();
      await service?.reconcile().catch(() => {});
      await opened?.close().catch(() => {});
    },
  };
}

/** The exchange as the writes reach it (signature checks, fee holds), or undefined without its secret. */
export function exchangeClientOf(config: WritesConfig): ExchangeClient | undefined {
  return config.exchangeServiceSecret === undefined
    ? undefined
    : new ExchangeClient({
        baseUrl: config.exchangeUrl,
        serviceSecret: config.exchangeServiceSecret,
        timeoutMs: config.exchangeTimeoutMs,
      });
}

function throwing(error: Error): never {
  throw error;
}

/** RELAYER_PRIVATE_KEY; on a local node, the well-known key of the deployment's relayer account. */
function relayerAccount(config: WritesConfig, relayerAddress: string) {
  if (config.relayerPrivateKey) return privateKeyToAccount(config.relayerPrivateKey);
  if (config.chainId !== LOCAL_CHAIN_ID) return undefined;
  for (let index = 0; index < 20; index++) {
    const account = mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex: index });
    if (account.address.toLowerCase() === relayerAddress.toLowerCase()) return account;
  }
  return undefined;
}
