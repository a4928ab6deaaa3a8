import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { sdkRefusal, toolError } from "./errors.ts";
import type { LiveFeeds } from "./live-feed.ts";
import { registerResources } from "./resources.ts";
import type { ChainActionContext } from "../agents/sdk/actions.ts";
import { registerChainWrites } from "./tools/chain-writes.ts";
import { registerEcosystemReads } from "./tools/ecosystem.ts";
import { registerEcosystemWrites } from "./tools/ecosystem-writes.ts";
import { registerExchangeReads } from "./tools/exchange.ts";
import { type ApiKeyPair, registerExchangeWrites } from "./tools/exchange-writes.ts";
import { registerQuoteTool } from "./tools/quote.ts";
import { createGuard, READ_TOOLS_PARSED, type ToolContext } from "./tools/tool.ts";

export const SERVER_INFO = { name: "agent-ecosystem", version: "0.1.0" };

/** Shared by every session of a process: where the platform answers, and the live streams. */
export interface McpDeps {
  ecosystem: ToolContext["ecosystem"];
  exchange: ToolContext["exchange"];
  feeds: LiveFeeds;
  specPath: string;
  /** Most ms one call out may take. */
  timeoutMs: number;
  log?: (message: string) => void;
  now?: () => number;
}

export interface McpSession {
  /** Tool calls per minute in this session. */
  callsPerMinute: number;
  /** The caller's exchange key pair: without it no signed write tool is listed. */
  exchangeKeys?: ApiKeyPair;
  /** The agent's own chain key, as the SDK's actions take it: without it no on-chain tool is listed. */
  agentChain?: ChainActionContext;
}

const INSTRUCTIONS =
  "Agent-token ecosystem: read tools for tokens, pools, workers, the action log, proposals and the " +
  "exchange's market data. Errors are {code,message} with SPEC.md's codes. Resources: ecosystem://spec " +
  "(SPEC.md), ecosystem://action-log and ecosystem://tokens/{address}/trades (subscribable).";

type OutputCheck = (tool: unknown, result: CallToolResult, name: string) => Promise<void>;

/**
 * A read tool's answer is its output schema's own parse of the REST answer, or in process the
 * value the REST route itself serves (tool.ts): the SDK's check of it against the same schema is
 * a second parse per call, a fifth of what an MCP read cost beyond REST (bench:mcp's profile).
 * Other tools keep it. validateToolOutput is private in 1.32's typings; server.test.ts fails if
 * the hook disappears.
 */
function skipSecondOutputCheck(server: McpServer) {
  const hook = server as unknown as { validateToolOutput: OutputCheck };
  const check = hook.validateToolOutput.bind(server);
  hook.validateToolOutput = (tool, result, name) =>
    READ_TOOLS_PARSED.has(name) ? Promise.resolve() : check(tool, result, name);
}

/** One McpServer per session: an SDK server is bound to exactly one transport. */
export function createMcpServer(deps: McpDeps, session: McpSession): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { resources: { subscribe: true } },
    instructions: INSTRUCTIONS,
    // A cheap bound on what one call's arguments may hold (no tool takes lists).
    maxToolInputElements: 64,
  });
  // The SDK's own refusals (bad arguments, unknown tool) carry SPEC.md codes too. createToolError
  // is private in 1.32's typings; server.test.ts fails if the hook disappears.
  (server as unknown as { createToolError: (text: string) => CallToolResult }).createToolError = (text) =>
    toolError(sdkRefusal(text));
  skipSecondOutputCheck(server);
  const context: ToolContext = {
    ecosystem: deps.ecosystem,
    exchange: deps.exchange,
    timeoutMs: deps.timeoutMs,
    callsPerMinute: session.callsPerMinute,
    now: deps.now,
  };
  const guard = createGuard(context);
  registerEcosystemReads(server, context, guard);
  registerExchangeReads(server, context, guard);
  registerQuoteTool(server, context, guard);
  if (session.exchangeKeys) {
    registerExchangeWrites(server, context, guard, session.exchangeKeys);
    registerEcosystemWrites(server, context, guard, session.exchangeKeys);
  }
  if (session.agentChain) registerChainWrites(server, context, guard, session.agentChain);
  const unsubscribeAll = registerResources(server, {
    context,
    feeds: deps.feeds,
    specPath: deps.specPath,
    log: deps.log,
  });
  server.server.onclose = unsubscribeAll;
  return server;
}
