import type { StreamEnv } from "../../../config/env.ts";
import type { StreamLimits } from "./ws-server.ts";

/** The WebSocket limits of the environment (config/env.ts streamEnv), for the exchange and gateways alike. */
export function streamLimits(env: StreamEnv): StreamLimits {
  return {
    maxConnectionsPerIp: env.WS_MAX_CONNECTIONS_PER_IP,
    maxConnections: env.WS_MAX_CONNECTIONS,
    maxSubscriptions: env.WS_MAX_SUBSCRIPTIONS,
    maxMessagesPerSecond: env.WS_MAX_MESSAGES_PER_SECOND,
    maxBufferedBytes: env.WS_MAX_BUFFERED_BYTES,
    pingIntervalMs: env.WS_PING_INTERVAL_MS,
    idleTimeoutMs: env.WS_IDLE_TIMEOUT_MS,
  };
}
