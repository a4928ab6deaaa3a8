import { z } from "zod";
import { MEV_PROTECTIONS, SOURCE_TIERS, WORKER_STATUSES } from "../../indexer/enums.ts";
import {
  actionTypeParam,
  addressParam,
  nftIdParam,
  pageQuery,
  sourceTierParam,
  tokenRefParam,
  unixSecondsParam,
  workerStatusParam,
} from "../shared/params.ts";
import { defineRoute } from "../../lib/http/index.ts";
import {
  addressOut,
  count,
  integerId,
  jsonObjectOrNull,
  pageSchema,
  suspendedUntil,
  txHashOut,
  unixTime,
} from "../shared/schemas.ts";
import { proposalRoutes } from "./proposals-routes.ts";

/** The agents endpoints: requests and answers, as validated, typed and documented. */

export const AGENTS_BASE = "/api/agents";
/** The lookups by token answer 404 for an unknown token. */
const NOT_FOUND = { status: 404, code: "NOT_FOUND", when: "no agent token has this address or NFT id" } as const;
const tag = "agents";

const workerStatus = z.enum(WORKER_STATUSES);
const mevProtection = z.enum(MEV_PROTECTIONS);
const sourceTier = z.enum(SOURCE_TIERS);

export const overviewResponse = z.object({
  hive: z.object({ totalTokens: count, totalWorkers: count, totalQueens: count, totalScouts: count }),
  swarm: z.object({
    activeWorkers: count,
    lastActivityAt: unixTime.nullable().describe("Time of the newest action; null before any"),
  }),
  ecosystem: z.object({
    totalAgentTokensSpawned: count,
    tokensSpawnedLast24h: count,
    tokensSpawnedLast7d: count,
    totalActions24h: count,
    totalOverrides24h: count,
  }),
});

export const overviewRoute = defineRoute({
  method: "get",
  access: "public",
  path: `${AGENTS_BASE}/overview`,
  tag,
  summary: "Hive and swarm summary",
  response: overviewResponse,
});

export const workerListItem = z.object({
  workerId: integerId,
  agentNftId: integerId,
  tokenAddress: addressOut,
  tokenSymbol: z.string(),
  status: workerStatus,
  lastActiveAt: unixTime,
  actionCount24h: count,
  config: z.object({ slippageCapBps: z.number().int(), mevProtection }),
});

export const workersRoute = defineRoute({
  method: "get",
  access: "public",
  path: `${AGENTS_BASE}/workers`,
  tag,
  summary: "List workers",
  description: "Sorted by workerId ascending.",
  query: pageQuery.extend({
    status: workerStatusParam.optional(),
    tokenAddress: addressParam.optional().describe("Only the worker of this agent token"),
  }),
  response: pageSchema(workerListItem),
});

export const workerAction = z.object({
  txHash: txHashOut,
  actionType: z.string(),
  params: jsonObjectOrNull.describe("The decoded JSON payload; null when the bytes are not a JSON object"),
  reasonCode: z.string(),
  blockNumber: integerId,
  blockTimestamp: unixTime,
});

export const workerDetailResponse = z.object({
  worker: z.object({
    id: integerId,
    agentNftId: integerId,
    tokenAddress: addressOut,
    deployedAt: unixTime,
    status: workerStatus,
    suspendedUntil,
    lastActiveAt: unixTime,
  }),
  config: z.object({ slippageCapBps: z.number().int(), mevProtection, signalSubscriptions: z.array(z.string()) }),
  recentActions: z.array(workerAction).describe("The 20 newest actions on the token, newest first"),
  stats: z.object({
    totalActions: count,
    lastOverrideAt: unixTime.nullable(),
    overridingTier: sourceTier.nullable(),
  }),
  votes: z.object({
    activeProposals: count.describe(
      "Proposals open for voting now (startTime <= now < endTime); pending ones, before their voting delay ends, count in neither figure",
    ),
    recentlyClosed: count.describe("Proposals whose voting ended in the last 7 days"),
  }),
});

const tokenPathParams = z.object({
  tokenId: tokenRefParam.describe("The agent token's address or its registry NFT id"),
});

export const workerDetailRoute = defineRoute({
  method: "get",
  access: "public",
  path: `${AGENTS_BASE}/workers/{tokenId}`,
  tag,
  summary: "Worker detail for one agent token",
  params: tokenPathParams,
  response: workerDetailResponse,
  errors: [NOT_FOUND],
});

export const actionLogEntry = z.object({
  entryId: integerId,
  sourceAgentId: z
    .string()
    .regex(/^(queen|scout|worker):\d+$/)
    .describe('"<tier>:<id>": a worker id for workers, an agent NFT id for queens and scouts'),
  sourceTier,
  targetTokenId: integerId.describe("Registry NFT id of the target agent token"),
  actionType: z.string(),
  actionPayload: jsonObjectOrNull.describe("The decoded JSON payload; null when the bytes are not a JSON object"),
  reasonCode: z.string(),
  blockNumber: integerId,
  timestamp: unixTime,
  txHash: txHashOut,
});

/** The action log's filters: the list's, and its stream's (api/streams). */
export const actionLogFilters = z.object({
  tokenId: nftIdParam.optional().describe("Registry NFT id of the target agent token"),
  actionType: actionTypeParam.optional().describe("e.g. config_update, override, flag, directive"),
  sourceTier: sourceTierParam.optional(),
  since: unixSecondsParam.optional().describe("Inclusive lower bound on timestamp (Unix seconds)"),
  until: unixSecondsParam.optional().describe("Inclusive upper bound on timestamp (Unix seconds)"),
});

/** A time window that ends before it starts is refused, naming `since`. */
export const sinceNotAfterUntil = <S extends z.ZodType<{ since?: number; until?: number }>>(schema: S) =>
  schema.refine((q) => q.since === undefined || q.until === undefined || q.since <= q.until, {
    path: ["since"],
    error: "must not be greater than until",
  });

export const actionLogsQuery = sinceNotAfterUntil(pageQuery.extend(actionLogFilters.shape));

export const actionLogsRoute = defineRoute({
  method: "get",
  access: "public",
  path: `${AGENTS_BASE}/action-logs`,
  tag,
  summary: "Filtered action log",
  description: "Sorted by entryId descending (newest first).",
  query: actionLogsQuery,
  response: pageSchema(actionLogEntry),
});

export const agentRoutes = [overviewRoute, workersRoute, workerDetailRoute, actionLogsRoute, ...proposalRoutes];

export type Overview = z.input<typeof overviewResponse>;
export type WorkerListItem = z.input<typeof workerListItem>;
export type WorkerAction = z.input<typeof workerAction>;
export type ActionLogEntry = z.input<typeof actionLogEntry>;
