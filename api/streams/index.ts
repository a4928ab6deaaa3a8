import type { Context } from "hono";
import { clientIp, createRouteServer, OpenAPIHono, parseInput } from "../../lib/http/index.ts";
import type { ActionLogEntry } from "../agents/routes.ts";
import type { Db } from "../db.ts";
import { actionSource, matchesActionFilter, replayActions } from "./action-feed.ts";
import { createConnectionGuard } from "./connection-guard.ts";
import { eventIdParam } from "./event-id.ts";
import { createFeed } from "./feed.ts";
import { type LaunchpadData, launchpadSource, matchesLaunchpadFilter, replayLaunchpad } from "./launchpad-feed.ts";
import { actionStreamRoute, launchpadStreamRoute } from "./routes.ts";
import { openStream } from "./session.ts";

export { streamRoutes } from "./routes.ts";

export interface StreamSettings {
  /** How often each stream's shared poller reads new rows (SSE_POLL_MS). */
  pollMs: number;
  /** Blocks that may still be reorged: sent events this recent are re-checked (SSE_REORG_WINDOW_BLOCKS). */
  reorgWindowBlocks: number;
  /** Open streams per client IP (SSE_MAX_CONNECTIONS_PER_IP). */
  maxConnectionsPerIp: number;
  /** Open streams in all (SSE_MAX_CONNECTIONS). */
  maxConnections: number;
  /** Messages a client may fall behind before `resync` and the end of its stream. */
  queueMax?: number;
  /** Most events replayed to a reconnecting client. */
  replayMax?: number;
  heartbeatMs?: number;
  /** Most ms one database read of the streams may take. */
  dbTimeoutMs?: number;
}

export const DEFAULT_STREAM_SETTINGS: StreamSettings = {
  pollMs: 250,
  reorgWindowBlocks: 240,
  maxConnectionsPerIp: 10,
  maxConnections: 1_000,
};

export interface StreamsDeps {
  db: Db;
  trustProxy: boolean;
  settings: StreamSettings;
  log?: (message: string, error?: unknown) => void;
}

const serve = createRouteServer();

/** The client's Last-Event-ID: the header EventSource sends on reconnecting wins over the query. */
function lastEventIdOf(c: Context, query: string | undefined): string | undefined {
  const header = c.req.header("Last-Event-ID");
  return header === undefined || header === "" ? query : parseInput(eventIdParam, header, "Last-Event-ID");
}

/**
 * GET /api/agents/action-logs/stream and GET /api/launchpad/stream: one shared poller per
 * stream (created here, started by the first client), one connection guard for both.
 */
export function streamsApi({ db, trustProxy, settings, log }: StreamsDeps) {
  const feedOptions = {
    pollMs: settings.pollMs,
    windowBlocks: settings.reorgWindowBlocks,
    dbTimeoutMs: settings.dbTimeoutMs,
    log,
  };
  const actions = createFeed<ActionLogEntry>({ name: "action-logs", source: actionSource(db), ...feedOptions });
  const launchpad = createFeed<LaunchpadData>({ name: "launchpad", source: launchpadSource(db), ...feedOptions });
  const guard = createConnectionGuard({ perIp: settings.maxConnectionsPerIp, total: settings.maxConnections });
  const session = (c: Context) => ({
    guard,
    clientIp: clientIp(c, { trustProxy }),
    queueMax: settings.queueMax ?? 1_000,
    replayMax: settings.replayMax ?? 1_000,
    heartbeatMs: settings.heartbeatMs ?? 15_000,
    retryMs: 2_000,
    log,
  });

  const actionLogs = new OpenAPIHono();
  serve(actionLogs, "/api/agents/action-logs", actionStreamRoute, ({ query, c }) => {
    const { lastEventId, ...filter } = query;
    return openStream(
      c,
      {
        feed: actions,
        matches: (event) => matchesActionFilter(filter, event),
        replay: (after, upTo, limit) => replayActions(db, filter, after, upTo, limit),
        lastEventId: lastEventIdOf(c, lastEventId),
      },
      session(c),
    );
  });

  const launchpadApp = new OpenAPIHono();
  serve(launchpadApp, "/api/launchpad", launchpadStreamRoute, ({ query, c }) => {
    const { lastEventId, ...filter } = query;
    return openStream(
      c,
      {
        feed: launchpad,
        matches: (event) => matchesLaunchpadFilter(filter, event),
        replay: (after, upTo, limit) => replayLaunchpad(db, filter, after, upTo, limit),
        lastEventId: lastEventIdOf(c, lastEventId),
      },
      session(c),
    );
  });

  return {
    /** Mounted at /api/agents/action-logs. */
    actionLogs,
    /** Mounted at /api/launchpad. */
    launchpad: launchpadApp,
    /** Open streams now (tests, metrics). */
    get open() {
      return guard.open;
    },
  };
}
