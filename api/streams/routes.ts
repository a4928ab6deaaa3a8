import { z } from "zod";
import { defineRoute, type ErrorDoc } from "../../lib/http/index.ts";
import { voteSchema } from "../agents/proposals-routes.ts";
import { actionLogEntry, actionLogFilters, sinceNotAfterUntil } from "../agents/routes.ts";
import { poolTrade, trade } from "../launchpad/routes.ts";
import { addressParam } from "../shared/params.ts";
import { addressOut, decimalString, integerId, txHashOut, unixTime } from "../shared/schemas.ts";
import { spawnResponse } from "../writes/index.ts";
import { EVENT_ID_PATTERN, eventIdParam } from "./event-id.ts";

/** The two server-sent event streams: requests, and the events they send, as documented. */

export const ACTION_STREAM_PATH = "/api/agents/action-logs/stream";
export const LAUNCHPAD_STREAM_PATH = "/api/launchpad/stream";

export const LAUNCHPAD_EVENTS = ["spawn", "swap", "vote", "boost"] as const;
export type LaunchpadEventName = (typeof LAUNCHPAD_EVENTS)[number];

export const spawnEventData = spawnResponse.extend({ spawnedAt: unixTime });
/** A pool endpoint trade and a trades list item in one (the fields they share agree), plus token and pool. */
export const swapEventData = trade.extend({
  ...poolTrade.shape,
  tokenAddress: addressOut,
  poolAddress: addressOut,
});
export const voteEventData = voteSchema.extend({ tokenAddress: addressOut.describe("The proposal's agent token") });
export const boostEventData = z.object({
  tokenAddress: addressOut,
  agentNftId: integerId,
  buyer: addressOut,
  tier: z.number().int(),
  expiresAt: unixTime,
  paid: decimalString.describe("Native token paid, whole units (18 decimals)"),
  txHash: txHashOut,
  timestamp: unixTime,
});

export type SpawnEventData = z.input<typeof spawnEventData>;
export type SwapEventData = z.input<typeof swapEventData>;
export type VoteEventData = z.input<typeof voteEventData>;
export type BoostEventData = z.input<typeof boostEventData>;

const eventId = z
  .string()
  .regex(EVENT_ID_PATTERN)
  .describe("`<block>-<index>-<last 8 hex digits of the tx hash>`: events come in (block, index) order");

const eventMessage = <N extends string>(event: N, data: z.ZodType, what: string) =>
  z.object({ event: z.literal(event), id: eventId, data }).describe(what);

const retractMessage = z
  .object({
    event: z.literal("retract"),
    data: z.object({ id: eventId.describe("The withdrawn event's id"), event: z.string() }),
  })
  .describe("A reorg withdrew an event sent earlier: drop it. No id: line (Last-Event-ID stays the newest event)");

const resyncMessage = z
  .object({
    event: z.literal("resync"),
    data: z.object({
      reason: z.enum(["unknown_last_event_id", "replay_limit", "slow_client"]),
      lastEventId: z.string().optional(),
      replayedFrom: eventId.optional().describe("replay_limit: the oldest event replayed; older missed ones were not"),
      replayMax: z.number().int().optional(),
      queueMax: z.number().int().optional(),
    }),
  })
  .describe(
    "What the client holds is incomplete: re-read the REST list. unknown_last_event_id and replay_limit: the stream goes on; slow_client: it ends",
  );

const lastEventIdHeader = z.object({
  "Last-Event-ID": eventIdParam
    .optional()
    .describe("The id of the last event received; EventSource sends it when it reconnects. Wins over ?lastEventId"),
});

const lastEventIdQuery = eventIdParam
  .optional()
  .describe("As the Last-Event-ID header, for clients that cannot send it (EventSource polyfills)");

const STREAM_ERRORS: ErrorDoc[] = [
  { status: 429, code: "RATE_LIMITED", when: "this client already holds SSE_MAX_CONNECTIONS_PER_IP open streams" },
  {
    status: 503,
    code: "UNAVAILABLE",
    when: "the server holds SSE_MAX_CONNECTIONS streams, or the database did not answer",
  },
];

const STREAM_DOC =
  "Server-sent events (text/event-stream). Each event has `event:`, `id:` and a JSON `data:` line. " +
  "A reconnecting client sends Last-Event-ID and gets the events it missed (at most 1,000), then live ones. " +
  "`retract` withdraws an event a reorg removed; `resync` says what the client holds is incomplete; " +
  "`: ping` comments come every 15 s without events. See api/README.md, Streams.";

export const actionStreamRoute = defineRoute({
  method: "get",
  access: "public",
  path: ACTION_STREAM_PATH,
  tag: "agents",
  summary: "Live action log (server-sent events)",
  description: `Every new action-log entry, as the indexer commits it, filtered as GET /api/agents/action-logs. ${STREAM_DOC}`,
  query: sinceNotAfterUntil(actionLogFilters.extend({ lastEventId: lastEventIdQuery })),
  requestHeaders: lastEventIdHeader,
  response: z.union([
    eventMessage("action", actionLogEntry, "An action-log entry, as in GET /api/agents/action-logs"),
    retractMessage,
    resyncMessage,
  ]),
  responseType: "text/event-stream",
  errors: STREAM_ERRORS,
});

const TYPES_PATTERN = new RegExp(`^(${LAUNCHPAD_EVENTS.join("|")})(,(${LAUNCHPAD_EVENTS.join("|")}))*$`);

export const launchpadTypesParam = z
  .string()
  .regex(TYPES_PATTERN, { error: `must be a comma-separated list of ${LAUNCHPAD_EVENTS.join(", ")}` })
  .transform((text) => new Set(text.split(",") as LaunchpadEventName[]))
  .meta({ type: "string", pattern: TYPES_PATTERN.source });

export const launchpadStreamRoute = defineRoute({
  method: "get",
  access: "public",
  path: LAUNCHPAD_STREAM_PATH,
  tag: "launchpad",
  summary: "Live launchpad events: spawns, swaps, votes, boosts (server-sent events)",
  description: `Every new spawn, swap in an agent pool, vote and boost, as the indexer commits it, in chain order. ${STREAM_DOC}`,
  query: z.object({
    types: launchpadTypesParam.optional().describe("Only these events, e.g. spawn,swap (default: all four)"),
    tokenAddress: addressParam.optional().describe("Only events of this agent token"),
    lastEventId: lastEventIdQuery,
  }),
  requestHeaders: lastEventIdHeader,
  response: z.union([
    eventMessage("spawn", spawnEventData, "A new agent token: the spawn answer's shape plus spawnedAt"),
    eventMessage(
      "swap",
      swapEventData,
      "A swap in an agent pool: a pool endpoint trade and a trades list item in one, plus token and pool",
    ),
    eventMessage("vote", voteEventData, "A vote: a proposal's vote item plus the token"),
    eventMessage("boost", boostEventData, "A boost bought for a token"),
    retractMessage,
    resyncMessage,
  ]),
  responseType: "text/event-stream",
  errors: STREAM_ERRORS,
});

export const streamRoutes = [actionStreamRoute, launchpadStreamRoute];
