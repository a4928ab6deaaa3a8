import { readFile } from "node:fs/promises";
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  ErrorCode,
  McpError,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { readJson } from "./http-client.ts";
import type { LiveFeeds } from "./live-feed.ts";
import type { ToolContext } from "./tools/tool.ts";

export const SPEC_URI = "ecosystem://spec";
export const ACTION_LOG_URI = "ecosystem://action-log";
const TRADES_URI = /^ecosystem:\/\/tokens\/(0x[0-9a-f]{40})\/trades$/;
/** Most resources one session may watch at once. */
export const MAX_SUBSCRIPTIONS = 20;
const LATEST = 20;

/** The SSE stream that announces changes of a subscribable resource, or undefined. */
export function streamOf(uri: string): string | undefined {
  if (uri === ACTION_LOG_URI) return "/api/agents/action-logs/stream";
  const trades = TRADES_URI.exec(uri);
  return trades ? `/api/launchpad/stream?types=swap&tokenAddress=${trades[1]}` : undefined;
}

export interface ResourceDeps {
  context: ToolContext;
  feeds: LiveFeeds;
  /** SPEC.md, served as the `ecosystem://spec` resource. */
  specPath: string;
  log?: (message: string) => void;
}

/** The REST read behind a resource, or a JSON-RPC error carrying the SPEC.md code. */
async function restJson(context: ToolContext, path: string, query: Record<string, number>) {
  const answer = await readJson(context.ecosystem, path, query, AbortSignal.timeout(context.timeoutMs));
  if (!answer.ok) throw new McpError(ErrorCode.InvalidParams, JSON.stringify(answer.error), answer.error);
  return JSON.stringify(answer.body);
}

/** SPEC.md, the live action log and each token's live trades; the last two are subscribable. */
export function registerResources(server: McpServer, deps: ResourceDeps) {
  const { context } = deps;
  server.registerResource(
    "spec",
    SPEC_URI,
    {
      title: "SPEC.md",
      description: "The platform's service specification (REST contract, codes, limits)",
      mimeType: "text/markdown",
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "text/markdown", text: await readFile(deps.specPath, "utf8") }],
    }),
  );
  server.registerResource(
    "action-log",
    ACTION_LOG_URI,
    {
      title: "Live action log",
      description: `The ${LATEST} newest action-log entries (a page of GET /api/agents/action-logs); subscribe for updates`,
      mimeType: "application/json",
    },
    async (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "application/json",
          text: await restJson(context, "/api/agents/action-logs", { pageSize: LATEST }),
        },
      ],
    }),
  );
  server.registerResource(
    "token-trades",
    new ResourceTemplate("ecosystem://tokens/{address}/trades", { list: undefined }),
    {
      title: "A token's live trades",
      description: `The ${LATEST} newest swaps of a token's pool (address in lower case); subscribe for updates`,
      mimeType: "application/json",
    },
    async (uri) => {
      const address = TRADES_URI.exec(uri.href)?.[1];
      if (!address)
        throw new McpError(ErrorCode.InvalidParams, "the token address must be 0x and 40 lower-case hex digits");
      const text = await restJson(context, `/api/launchpad/tokens/${address}/trades`, { pageSize: LATEST });
      return { contents: [{ uri: uri.href, mimeType: "application/json", text }] };
    },
  );

  // The SDK has no high-level subscriptions: the session keeps its own, fed by the shared streams.
  const subscriptions = new Map<string, () => void>();
  server.server.setRequestHandler(SubscribeRequestSchema, async ({ params }) => {
    const path = streamOf(params.uri);
    if (path === undefined) throw new McpError(ErrorCode.InvalidParams, `not a subscribable resource: ${params.uri}`);
    if (subscriptions.has(params.uri)) return {};
    if (subscriptions.size >= MAX_SUBSCRIPTIONS)
      throw new McpError(ErrorCode.InvalidParams, `at most ${MAX_SUBSCRIPTIONS} subscriptions per session`);
    const uri = params.uri;
    subscriptions.set(
      uri,
      deps.feeds.subscribe(path, () => {
        server.server.sendResourceUpdated({ uri }).catch((error) => deps.log?.(`notify failed: ${String(error)}`));
      }),
    );
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async ({ params }) => {
    subscriptions.get(params.uri)?.();
    subscriptions.delete(params.uri);
    return {};
  });
  return () => {
    for (const unsubscribe of subscriptions.values()) unsubscribe();
    subscriptions.clear();
  };
}
