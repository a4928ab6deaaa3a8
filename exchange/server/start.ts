import { setTimeout as sleep } from "node:timers/promises";
import { serve, type ServerType } from "@hono/node-server";
import { join, dirname } from "node:path";
import type { ExchangeEnv } from "../../config/env.ts";
import { createExchangeApp } from "../adapters/http/app.ts";
import { WsTickets } from "../adapters/http/ws-tickets.ts";
import { createKeyVault, createReplayGuard, generateApiKeyPair, parseServerKey } from "../adapters/auth/index.ts";
import { MarketData } from "../adapters/marketdata/market-data.ts";
import { Exchange, type ListingOutcome, type TokenToList } from "../application/index.ts";
import {
  createCommitter,
  exchangeStore,
  migrate,
  openDb,
  type Db,
  type GroupCommitter,
} from "../adapters/store/index.ts";
import { startListingFollower, type ListingFollower } from "../adapters/listing/follower.ts";
import { type ChainGateway, resolveChainGatewayConfig, startChainGateway } from "../adapters/chain/index.ts";
import { resolveSecrets, type ExchangeSecrets } from "./secrets.ts";
import { startWithdrawalSender, type WithdrawalSender } from "../adapters/chain/withdrawals/index.ts";
import type { Server } from "node:http";
import { clientIp, clientIpOfRequest, createAuthFailureGuard } from "../../lib/http/index.ts";
import { verifySignedRequest } from "../adapters/auth/index.ts";
import {
  attachStreamServer,
  type ExchangeStreams,
  connectNats,
  publishRevocations,
  publishToNats,
  type UserInterest,
  type StreamServer,
  startExchangeStreams,
  streamLimits,
} from "../adapters/stream/index.ts";

/** How often keys' last uses are written (the key list may lag the last request by this much). */
const KEY_USE_FLUSH_MS = 5_000;
/** How often ticket logins are checked against their web sessions' expiry. */
const SESSION_SWEEP_MS = 60_000;
export interface RunningExchange {
  readonly url: string;
  readonly exchange: Exchange;
  readonly secrets: ExchangeSecrets;
  readonly db: Db;
  readonly committer: GroupCommitter;
  /** The market and user streams (their hub also serves `/ws`; NATS may be added as a sink). */
  readonly streams: ExchangeStreams;
  readonly streamServer: StreamServer;
  /** With NATS_URL: which user streams gateways want (and when a catch-all period ends). */
  readonly natsInterest?: UserInterest;
  /** With ECOSYSTEM_API_URL: the follower listing the agent tokens the ecosystem API indexed. */
  readonly listing?: ListingFollower;
  /** With CHAIN_GATEWAY: deposit addresses, the deposit watcher and reserves on the chain. */
  readonly gateway?: ChainGateway;
  /** Stops taking requests, waits for every pending commit, closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  readonly log?: (message: string) => void;
  /** Called when a command throws midway (a bug): memory may then be out of step, so the process must exit. */
  readonly onFatal?: (error: unknown) => void;
  /** Backoff of the probe that waits for a lost database (default 100 ms doubling to 5 s). */
  readonly recoveryDelayMs?: { readonly min: number; readonly max: number };
  /** Runs after the schema is migrated and before the books are loaded (demo reference data). */
  readonly beforeLoad?: (db: Db) => Promise<void>;
  /** Where deployments/<CHAIN_ID>.json is (CHAIN_GATEWAY): default the working directory. */
  readonly deploymentsRoot?: string;
  /** How long a gateway's interest in a user stream lasts unless renewed (nats.ts; tests shorten it). */
  readonly natsInterestTtlMs?: number;
  /**
   * With ECOSYSTEM_API_URL: called with the currency of each token the follower finds listed
   * (newly or before), once per token and process (the demo credits its users). A failure is logged.
   */
  readonly onListed?: (currency: string) => Promise<void>;
}

/** Opens the database, migrates it, rebuilds the books and the ledger, and serves HTTP. */
export async function startExchange(env: ExchangeEnv, options: StartOptions = {}): Promise<RunningExchange> {
  // This process accepted nothing signed before now; its predecessor may have, up to its end +
  // SIGNATURE_MAX_FUTURE_MS, so timestamps before startedAt + that are refused (auth/verify.ts).
  const replay = createReplayGuard({ startedAt: Date.now() });
  const log = options.log ?? ((message: string) => console.log(message));
  const secrets = await resolveSecrets(env, join(dirname(env.EXCHANGE_DATA_DIR), "exchange-secrets.json"));
  const db = await openDb({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.EXCHANGE_DATA_DIR,
    schema: env.EXCHANGE_DB_SCHEMA,
    connectTimeoutMs: env.EXCHANGE_DB_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: env.EXCHANGE_DB_QUERY_TIMEOUT_MS,
  });
  await migrate(db);
  await options.beforeLoad?.(db);
  const onFatal =
    options.onFatal ??
    ((error: unknown) => {
      console.error(
        "exchange: memory may be out of step with the database (a command failed midway); exiting so a restart reloads it",
        error,
      );
      process.exit(1);
    });
  // A failed or hung commit is not fatal: the exchange refuses writes and reloads when the database is back.
  // On its own connection (db.writer), so a burst of reads cannot hold up a commit.
  // A committed-batch listener that throws is a bug like a command failing midway: onFatal.
  const committer = createCommitter(db.writer, {
    timeoutMs: env.EXCHANGE_COMMIT_TIMEOUT_MS,
    maxPending: env.EXCHANGE_COMMIT_QUEUE_MAX,
    onFatal,
  });
  const exchange = await Exchange.open({
    store: exchangeStore(db),
    committer,
    vault: createKeyVault(parseServerKey(secrets.serverKey)),
    generateKeyPair: generateApiKeyPair,
    defaultSelfTradePrevention: env.SELF_TRADE_PREVENTION,
    onFatal,
    log: (message) => log(message),
    recoveryDelayMs: options.recoveryDelayMs,
  });
  const chainConfig = env.CHAIN_GATEWAY ? await resolveChainGatewayConfig(env, options.deploymentsRoot) : undefined;
  // Joined to the chain: deposits seen there are credited (adapters/chain). Credited deposit
  // addresses are swept into the hot wallet through the sender's relayer. The gateway comes first:
  // its client of the node and its deposit addresses are the sender's too.
  let withdrawalSender: WithdrawalSender | undefined;
  const gateway = chainConfig
    ? await startChainGateway({
        exchange,
        db,
        config: chainConfig,
        log,
        sendFromHotWallet: (call) => withdrawalSender!.sendOther("sweep", call),
        sweepIntervalMs: env.DEPOSIT_SWEEP_INTERVAL_MS,
      })
    : undefined;
  // ---- Chain gateway: withdrawals sent by the hot wallet (adapters/chain/withdrawals) ----
  // Started before the HTTP server, so its check of withdrawal addresses is in place from the
  // first request; it opens its relayer in the background (an RPC away is retried, not fatal).
  withdrawalSender =
    gateway && chainConfig
      ? startWithdrawalSender({
          exchange,
          config: chainConfig,
          client: gateway.client,
          addresses: gateway.addresses,
          log,
          journal: {
            databaseUrl: env.DATABASE_URL,
            dataDir: `${env.EXCHANGE_DATA_DIR}-hot-wallet`,
            schema: `${env.EXCHANGE_DB_SCHEMA}_hot_wallet`,
            timeoutMs: env.EXCHANGE_DB_QUERY_TIMEOUT_MS,
          },
          faultAt: env.WITHDRAWAL_FAULT_AT,
          paused: env.WITHDRAWALS_PAUSED,
        })
      : undefined;
  // ---- end of the withdrawal sender ----
  const marketData = await MarketData.open(exchange);
  const streams = startExchangeStreams(exchange, marketData, { flushMs: env.WS_FLUSH_MS });
  // With NATS, the streams are also published there for gateway processes (npm run gateway):
  // market streams always, a user's while a gateway serves it.
  const nats = env.NATS_URL ? await connectNats(env.NATS_URL, "exchange") : undefined;
  const natsInterest = nats
    ? publishToNats(streams, nats, {
        ttlMs: options.natsInterestTtlMs,
        subjectPrefix: env.NATS_SUBJECT_PREFIX,
        log,
      })
    : undefined;
  // Gateways end their logins with a revoked key too: pushed, and re-checked (revocations.ts).
  if (nats)
    publishRevocations(nats, {
      subjectPrefix: env.NATS_SUBJECT_PREFIX,
      onKeyRevoked: (listener) => exchange.onKeyRevoked(listener),
      isLive: (publicKey) => exchange.resolveKey(publicKey) !== undefined,
    });
  // One count of failed authentications per client IP for signed HTTP requests and /ws LOGINs.
  const authFailures = createAuthFailureGuard({
    limit: env.AUTH_FAILURE_LIMIT_PER_MINUTE,
    keyOf: (c) => clientIp(c, { trustProxy: env.TRUST_PROXY }),
  });
  // A web session's /ws LOGIN: the ticket the session asked for over REST, redeemed once here.
  const wsTickets = new WsTickets();
  const app = createExchangeApp({
    wsTickets,
    exchange,
    marketData,
    adminToken: secrets.adminToken,
    serviceSecret: secrets.serviceSecret,
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    signedRateLimitPerMinute: env.SIGNED_RATE_LIMIT_PER_MINUTE,
    authFailureLimitPerMinute: env.AUTH_FAILURE_LIMIT_PER_MINUTE,
    authFailures,
    trustProxy: env.TRUST_PROXY,
    webOrigins: env.WEB_ORIGIN,
    chainId: env.CHAIN_ID,
    gateway,
    publicUrl: env.EXCHANGE_PUBLIC_URL,
    timestampWindowMs: env.SIGNATURE_WINDOW_MS,
    timestampMaxFutureMs: env.SIGNATURE_MAX_FUTURE_MS,
    requireTimestamp: env.REQUIRE_SIGNATURE_TIMESTAMP,
    replay,
  });
  // Listening only once a client with a correct clock can pass the start rule: start-up usually
  // takes longer than SIGNATURE_MAX_FUTURE_MS anyway, so this rarely waits.
  const acceptsFrom = replay.startedAt + env.SIGNATURE_MAX_FUTURE_MS;
  while (Date.now() < acceptsFrom) await sleep(acceptsFrom - Date.now());
  const server = await new Promise<ServerType>((resolve) => {
    const started = serve({ fetch: app.fetch, port: env.EXCHANGE_PORT, hostname: env.EXCHANGE_HOST }, () =>
      resolve(started),
    );
  });
  const streamServer = attachStreamServer(server as Server, {
    hub: streams.hub,
    limits: streamLimits(env),
    isPair: (code) => exchange.reference.pairs.get(code)?.row.active === true,
    clientIp: (request) => clientIpOfRequest(request, { trustProxy: env.TRUST_PROXY }),
    loginGuard: authFailures,
    publicUrl: env.EXCHANGE_PUBLIC_URL,
    // The LOGIN signs the WebSocket URL as a GET of it, with a timestamp (required: a login
    // message could otherwise be replayed), once, like any timestamped request.
    verifyLogin: async (login, url) => {
      if ("ticket" in login) {
        const redeemed = wsTickets.redeem(login.ticket);
        return redeemed === undefined || !exchange.webSessions.isLive(redeemed.session)
          ? { ok: false, error: { code: "UNAUTHORIZED", message: "unknown, used or expired ticket" } }
          : { ok: true, userId: redeemed.userId, session: redeemed.session };
      }
      const { apiKey, timestamp, signature } = login;
      const verdict = await verifySignedRequest({
        method: "GET",
        url,
        body: "",
        headers: { publicKey: apiKey, signature, timestamp },
        resolveKey: (publicKey) => exchange.resolveKey(publicKey),
        now: Date.now,
        windowMs: env.SIGNATURE_WINDOW_MS,
        maxFutureMs: env.SIGNATURE_MAX_FUTURE_MS,
        requireTimestamp: true,
        replay,
      });
      return verdict.ok
        ? { ok: true, userId: verdict.userId }
        : { ok: false, error: { code: "UNAUTHORIZED", message: verdict.reason } };
    },
    log,
  });
  // A revoked key's WebSocket logins end with it (a gateway's: publishRevocations above).
  exchange.onKeyRevoked((publicKey) => streamServer.closeLogins(publicKey));
  // A ticket login ends with its web session: at once on sign-out, and within a minute of expiry.
  const closeEndedSessions = () => streamServer.closeEndedSessions((session) => exchange.webSessions.isLive(session));
  exchange.webSessions.onEnded(closeEndedSessions);
  const sessionSweep = setInterval(closeEndedSessions, SESSION_SWEEP_MS);
  sessionSweep.unref();
  // Keys' last uses (the web account's key list) are written in batches, not per request.
  const flushKeyUses = () =>
    exchange.flushKeyUses().catch((error: unknown) => log(`exchange: key last-use not written yet: ${error}`));
  const keyUseTimer = setInterval(() => void flushKeyUses(), KEY_USE_FLUSH_MS);
  keyUseTimer.unref();
  // Spawned agent tokens are listed as the ecosystem API indexes them (adapters/listing).
  const listToken = async (token: TokenToList): Promise<ListingOutcome> => {
    const outcome = await exchange.listToken(token);
    if (outcome.status !== "refused")
      await options
        .onListed?.(outcome.currency)
        .catch((error: unknown) =>
          log(`exchange: after listing ${outcome.currency}: ${(error as Error)?.message ?? error}`),
        );
    return outcome;
  };
  const listing = env.ECOSYSTEM_API_URL
    ? startListingFollower({ apiUrl: env.ECOSYSTEM_API_URL, listToken, log })
    : undefined;
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : env.EXCHANGE_PORT;
  const url = `http://${env.EXCHANGE_HOST}:${port}`;
  log(
    `exchange: serving ${url} (${db.kind}${env.DATABASE_URL ? `, schema ${env.EXCHANGE_DB_SCHEMA}` : ` in ${env.EXCHANGE_DATA_DIR}`})`,
  );
  return {
    url,
    exchange,
    secrets,
    db,
    committer,
    streams,
    streamServer,
    natsInterest,
    listing,
    gateway,
    close: async () => {
      clearInterval(sessionSweep);
      await listing?.close();
      await withdrawalSender?.close();
      await gateway?.close();
      streams.close();
      await streamServer.close();
      await nats?.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      clearInterval(keyUseTimer);
      await flushKeyUses();
      await exchange.close();
      await committer.close();
      await db.close();
    },
  };
}
