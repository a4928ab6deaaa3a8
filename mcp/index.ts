/** The MCP server: every read of the platform as MCP tools and live resources (mcp/README.md). */
export { createMcpServer, type McpDeps, type McpSession, SERVER_INFO } from "./server.ts";
export { mcpHttpApi, type McpHttpOptions } from "./http.ts";
export { exchangeKeyCheck, type McpHttpAuthMode } from "./http-auth.ts";
export { createLiveFeeds, type LiveFeeds } from "./live-feed.ts";
export { limitRequests, RATE_LIMITED_RPC } from "./request-limit.ts";
export { ACTION_LOG_URI, SPEC_URI } from "./resources.ts";
export { DEFAULT_SPEC_PATH } from "./spec-path.ts";
export type { Fetcher, LocalRead } from "./http-client.ts";
export type { ApiKeyPair } from "./tools/exchange-writes.ts";
