import { createServer, type Server } from "node:http";
import type { GatewayEnv } from "../../config/env.ts";
import { ExchangeInternalClient } from "../../lib/exchange-internal-client.ts";
import { ApiError, clientIpOfRequest, createAuthFailureGuard } from "../../lib/http/index.ts";
import {
  attachStreamServer,
  connectNats,
  Hub,
  type LoginParams,
  type LoginResult,
  relayFromNats,
  type RevocationWatch,
  type StreamServer,
  streamLimits,
  watchRevocations,
  wsFrame,
} from "../adapters/stream/index.ts";

/**
 * A WebSocket gateway (`npm run gateway`): the exchange's /ws protocol served from NATS, so client
 * connections spread over processes and machines while matching stays in the exchange. Pairs
 * come from the exchange's REST API; logins are verified by the exchange (/internal/verify-
 * signature), so the gateway holds no user secret; a key revoked later ends its logins here as on
 * the exchange (revocations.ts). Depth snapshots stay on the exchange's GET /api/depth.
 */

export interface RunningGateway {
  readonly url: string;
  readonly streamServer: StreamServer;
  close(): Promise<void>;
}

const REQUEST_TIMEOUT_MS = 5_000;

export interface GatewayOptions {
  /** How often the keys of the logins served are re-checked with the exchange (tests shorten it). */
  readonly revocationCheckMs?: number;
}

export async function startGateway(
  env: GatewayEnv,
  log: (message: string) => void = console.log,
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  const nc = await connectNats(env.NATS_URL, "exchange-gateway");
  let pairs = new Set<string>();
  const loadPairs = async () => {
    const response = await fetch(`${env.EXCHANGE_URL}/api/currencies/pairs`, {
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    if (!response.ok) throw new Error(`the exchange answered ${response.status} for its pairs`);
    pairs = new Set(((await response.json()) as { code: string }[]).map((pair) => pair.code));
  };
  await loadPairs();
  const refresh = setInterval(() => loadPairs().catch(() => {}), 60_000);
  refresh.unref();

  let hub: Hub;
  const relay = relayFromNats(
    nc,
    () => hub,
    () => {
      // Messages published while NATS was away are lost to these clients: they reconnect and resync.
      log("gateway: NATS connection lost; closing client connections so they resync");
      streamServer.closeAll(1012, "NATS connection lost: reconnect and resync");
    },
    { subjectPrefix: env.NATS_SUBJECT_PREFIX },
  );
  hub = new Hub(relay, { encode: wsFrame, flushMs: env.WS_FLUSH_MS });
  // Subscribed before the first LOGIN can be served: no revocation pushed from then on is missed.
  const revocations = watchRevocations(nc, {
    subjectPrefix: env.NATS_SUBJECT_PREFIX,
    loginKeys: () => streamServer.loginKeys(),
    revoke: (publicKey) => streamServer.closeLogins(publicKey),
    checkMs: options.revocationCheckMs,
    timeoutMs: REQUEST_TIMEOUT_MS,
    log,
  });

  const server: Server = createServer((request, response) => {
    const ready = request.url === "/ready";
    response.writeHead(ready ? (nc.isClosed() ? 503 : 200) : 404, { "content-type": "application/json" });
    response.end(
      JSON.stringify(ready ? { ready: !nc.isClosed() } : { code: "NOT_FOUND", message: "this gateway serves /ws" }),
    );
  });
  const streamServer = attachStreamServer(server, {
    hub,
    limits: streamLimits(env),
    isPair: (code) => pairs.has(code),
    clientIp: (request) => clientIpOfRequest(request, { trustProxy: env.TRUST_PROXY }),
    publicUrl: env.GATEWAY_PUBLIC_URL,
    // The exchange publishes a user's stream only once asked: a LOGIN waits for its answer.
    userStreamReady: (stream) => relay.ready(stream),
    verifyLogin: env.EXCHANGE_SERVICE_SECRET ? verifyThroughExchange(env, revocations) : undefined,
    // The exchange sees the gateway's address, not the client's: the gateway counts its clients' failures.
    loginGuard: createAuthFailureGuard({ limit: env.AUTH_FAILURE_LIMIT_PER_MINUTE }),
    log,
  });
  await new Promise<void>((resolve) => server.listen(env.GATEWAY_PORT, env.GATEWAY_HOST, resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : env.GATEWAY_PORT;
  const url = `ws://${env.GATEWAY_HOST}:${port}/ws`;
  return {
    url,
    streamServer,
    close: async () => {
      clearInterval(refresh);
      revocations.close();
      await streamServer.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await nc.close();
    },
  };
}

/** A LOGIN checked by the exchange, as a GET of the gateway's WebSocket URL with a timestamp. */
function verifyThroughExchange(env: GatewayEnv, revocations: Pick<RevocationWatch, "wasRevoked">) {
  // The ecosystem API's client too: checks made while one is out share the next request.
  const exchange = new ExchangeInternalClient({
    baseUrl: env.EXCHANGE_URL,
    serviceSecret: env.EXCHANGE_SERVICE_SECRET!,
    timeoutMs: REQUEST_TIMEOUT_MS,
  });
  return async (login: LoginParams, url: string): Promise<LoginResult> => {
    // Tickets live in the exchange process that issued them: a web page logs in on its /ws.
    if ("ticket" in login)
      return { ok: false, error: { code: "UNAUTHORIZED", message: "tickets are served by the exchange's own /ws" } };
    // Required here as on the exchange's own /ws: an untimestamped login could be replayed.
    if (!/^\d{1,16}$/.test(login.timestamp))
      return { ok: false, error: { code: "UNAUTHORIZED", message: "LOGIN needs a timestamp (epoch ms)" } };
    try {
      const caller = await exchange.verify({
        method: "GET",
        url,
        body: "",
        headers: { "API-PublicKey": login.apiKey, "API-Signature": login.signature, "API-Timestamp": login.timestamp },
      });
      // Verified before a revocation whose push got here first: closeLogins has already run.
      if (revocations.wasRevoked(login.apiKey))
        return { ok: false, error: { code: "UNAUTHORIZED", message: "Unknown or revoked API key" } };
      return { ok: true, userId: caller.userId };
    } catch (error) {
      if (error instanceof ApiError && error.status === 401)
        return { ok: false, error: { code: "UNAUTHORIZED", message: error.message } };
      return { ok: false, error: { code: "UNAVAILABLE", message: "the exchange could not verify the login; retry" } };
    }
  };
}
