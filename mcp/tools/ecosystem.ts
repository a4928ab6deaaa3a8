import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { PROPOSAL_STATUS_FILTERS, proposalDetailResponse, proposalSchema } from "../../api/agents/proposals-routes.ts";
import { actionLogEntry, overviewResponse, workerDetailResponse, workerListItem } from "../../api/agents/routes.ts";
import {
  candle,
  holder,
  poolResponse,
  poolTrade,
  TOKEN_SORTS,
  tokenDetailResponse,
  tokenListItem,
  tokenWorkerResponse,
} from "../../api/launchpad/routes.ts";
import { pageSchema } from "../../api/shared/schemas.ts";
import { CANDLE_INTERVALS } from "../../indexer/candles.ts";
import { POOL_SIDES, SOURCE_TIERS, WORKER_STATUSES } from "../../indexer/enums.ts";
import { address, type Guard, page, pageSize, registerReadTool, type ToolContext, tokenRef } from "./tool.ts";

const unixSeconds = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const time = z
  .union([z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/), unixSeconds])
  .describe("ISO 8601 UTC without offset (2026-04-29T12:00:00) or Unix seconds");
const ref = (id: string) => encodeURIComponent(id);

/** The ecosystem API's reads (api/README.md), one tool per GET, answers as REST gives them. */
export function registerEcosystemReads(server: McpServer, context: ToolContext, guard: Guard) {
  const read = <I extends z.ZodObject, O extends z.ZodObject>(spec: Parameters<typeof registerReadTool<I, O>>[3]) =>
    registerReadTool(server, context, guard, spec);

  read({
    name: "get_overview",
    title: "Ecosystem overview",
    description: "Hive, swarm and ecosystem counters (GET /api/agents/overview).",
    input: z.object({}),
    output: overviewResponse,
    side: "ecosystem",
    request: () => ({ path: "/api/agents/overview" }),
  });
  read({
    name: "list_tokens",
    title: "List and search agent tokens",
    description:
      "Agent tokens, paged (GET /api/launchpad/tokens). sort: recent (default), volume, tvl, holders; " +
      "boosted true/false; poolSide STABLE/WRAPPED_NATIVE.",
    input: z.object({
      sort: z.enum(TOKEN_SORTS).optional(),
      boosted: z.boolean().optional(),
      poolSide: z.enum(POOL_SIDES).optional(),
      page,
      pageSize,
    }),
    output: pageSchema(tokenListItem),
    side: "ecosystem",
    request: (q) => ({ path: "/api/launchpad/tokens", query: q }),
  });
  read({
    name: "get_token",
    title: "Agent token",
    description: "One agent token with its pool, worker and boost (GET /api/launchpad/tokens/:id).",
    input: z.object({ tokenId: tokenRef }),
    output: tokenDetailResponse,
    side: "ecosystem",
    request: ({ tokenId }) => ({ path: `/api/launchpad/tokens/${ref(tokenId)}` }),
  });
  read({
    name: "get_token_pool",
    title: "Token pool",
    description: "A token's pool: reserves, price, tvl, volume, the 20 newest trades (GET .../pool).",
    input: z.object({ tokenId: tokenRef }),
    output: poolResponse,
    side: "ecosystem",
    request: ({ tokenId }) => ({ path: `/api/launchpad/tokens/${ref(tokenId)}/pool` }),
  });
  read({
    name: "get_token_worker",
    title: "Token worker",
    description: "A token's worker with its recent actions (GET .../worker).",
    input: z.object({ tokenId: tokenRef }),
    output: tokenWorkerResponse,
    side: "ecosystem",
    request: ({ tokenId }) => ({ path: `/api/launchpad/tokens/${ref(tokenId)}/worker` }),
  });
  read({
    name: "list_token_trades",
    title: "Pool trades",
    description: "A token pool's swaps, newest first, paged (GET .../trades).",
    input: z.object({ tokenId: tokenRef, page, pageSize }),
    output: pageSchema(poolTrade),
    side: "ecosystem",
    request: ({ tokenId, ...q }) => ({ path: `/api/launchpad/tokens/${ref(tokenId)}/trades`, query: q }),
  });
  read({
    name: "get_token_candles",
    title: "Pool candles",
    description: "Candles of a pool's trade price, oldest first, at most 5,000 intervals per call (GET .../candles).",
    input: z.object({ tokenId: tokenRef, interval: z.enum(CANDLE_INTERVALS), start: time, end: time }),
    output: z.object({ items: z.array(candle) }),
    side: "ecosystem",
    wrap: "items",
    request: ({ tokenId, ...q }) => ({ path: `/api/launchpad/tokens/${ref(tokenId)}/candles`, query: q }),
  });
  read({
    name: "list_token_holders",
    title: "Token holders",
    description: "A token's balances, largest first, paged (GET .../holders).",
    input: z.object({ tokenId: tokenRef, page, pageSize }),
    output: pageSchema(holder),
    side: "ecosystem",
    request: ({ tokenId, ...q }) => ({ path: `/api/launchpad/tokens/${ref(tokenId)}/holders`, query: q }),
  });
  read({
    name: "list_workers",
    title: "Workers",
    description: "Workers by workerId, paged; filters status, tokenAddress (GET /api/agents/workers).",
    input: z.object({ status: z.enum(WORKER_STATUSES).optional(), tokenAddress: address.optional(), page, pageSize }),
    output: pageSchema(workerListItem),
    side: "ecosystem",
    request: (q) => ({ path: "/api/agents/workers", query: q }),
  });
  read({
    name: "get_worker",
    title: "Worker detail",
    description: "A token's worker: config, recent actions, override stats, votes (GET /api/agents/workers/:tokenId).",
    input: z.object({ tokenId: tokenRef }),
    output: workerDetailResponse,
    side: "ecosystem",
    request: ({ tokenId }) => ({ path: `/api/agents/workers/${ref(tokenId)}` }),
  });
  read({
    name: "list_action_logs",
    title: "Action log",
    description:
      "The agents' action log, newest first, paged; filters tokenId (NFT id), actionType, sourceTier, " +
      "since/until (inclusive Unix seconds) (GET /api/agents/action-logs).",
    input: z.object({
      tokenId: z
        .string()
        .regex(/^[0-9]{1,78}$/)
        .optional()
        .describe("Registry NFT id of the target token"),
      actionType: z
        .string()
        .regex(/^[a-z0-9_]{1,32}$/)
        .optional(),
      sourceTier: z.enum(SOURCE_TIERS).optional(),
      since: unixSeconds.optional(),
      until: unixSeconds.optional(),
      page,
      pageSize,
    }),
    output: pageSchema(actionLogEntry),
    side: "ecosystem",
    request: (q) => ({ path: "/api/agents/action-logs", query: q }),
  });
  read({
    name: "list_proposals",
    title: "Worker proposals",
    description:
      "Proposals on a worker's config with their tallies, newest first; status open|pending|closed " +
      "(GET /api/agents/workers/:tokenId/proposals).",
    input: z.object({ tokenId: tokenRef, status: z.enum(PROPOSAL_STATUS_FILTERS).optional(), page, pageSize }),
    output: pageSchema(proposalSchema),
    side: "ecosystem",
    request: ({ tokenId, ...q }) => ({ path: `/api/agents/workers/${ref(tokenId)}/proposals`, query: q }),
  });
  read({
    name: "get_proposal",
    title: "Proposal",
    description: "One proposal with its tally and a page of its votes (GET /api/agents/proposals/:proposalId).",
    input: z.object({ proposalId: z.string().regex(/^[0-9]{1,78}$/), page, pageSize }),
    output: proposalDetailResponse,
    side: "ecosystem",
    request: ({ proposalId, ...q }) => ({ path: `/api/agents/proposals/${proposalId}`, query: q }),
  });
}
