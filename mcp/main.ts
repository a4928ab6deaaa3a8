#!/usr/bin/env node
// The MCP server over stdio (npm run --silent mcp, or the agent-ecosystem-mcp bin): a client of a
// running platform over HTTP, since the indexer's embedded database lives in the Ponder process.
// stdout carries JSON-RPC, so every log goes to stderr.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { chainActionContext } from "../agents/sdk/index.ts";
import { mcpEnv, parseEnv } from "../config/env.ts";
import { createLiveFeeds } from "./live-feed.ts";
import { limitRequests } from "./request-limit.ts";
import { createMcpServer } from "./server.ts";
import { DEFAULT_SPEC_PATH } from "./spec-path.ts";

const log = (message: string) => process.stderr.write(`[mcp] ${message}\n`);
// A library writing to stdout would corrupt the protocol.
console.log = console.info = console.debug = (...parts: unknown[]) => log(parts.map(String).join(" "));

const env = parseEnv(mcpEnv);
const trimmed = (url: string) => url.replace(/\/+$/, "");
const ecosystem = { fetch: globalThis.fetch, base: trimmed(env.ECOSYSTEM_API_URL) };
const feeds = createLiveFeeds({ ...ecosystem, log });
// The deployment's addresses are read from this checkout's deployments/ (as the SDK does).
const agentChain = env.AGENT_PRIVATE_KEY
  ? await chainActionContext({
      rpcUrl: env.RPC_URL,
      privateKey: env.AGENT_PRIVATE_KEY as `0x${string}`,
      deploymentsRoot: env.DEPLOYMENTS_ROOT ?? resolve(dirname(fileURLToPath(import.meta.url)), ".."),
      timeoutMs: env.MCP_TIMEOUT_MS,
    })
  : undefined;
const server = createMcpServer(
  {
    ecosystem,
    exchange: { fetch: globalThis.fetch, base: trimmed(env.EXCHANGE_URL) },
    feeds,
    specPath: env.MCP_SPEC_PATH ?? DEFAULT_SPEC_PATH,
    timeoutMs: env.MCP_TIMEOUT_MS,
    log,
  },
  {
    callsPerMinute: env.MCP_CALLS_PER_MINUTE,
    exchangeKeys:
      env.API_PUBLIC_KEY && env.API_PRIVATE_KEY
        ? { publicKey: env.API_PUBLIC_KEY, privateKey: env.API_PRIVATE_KEY }
        : undefined,
    agentChain,
  },
);
const transport = new StdioServerTransport();
await server.connect(transport);
limitRequests(transport, env.MCP_CALLS_PER_MINUTE);
log(`ready on stdio (ecosystem ${ecosystem.base})`);

const shutdown = async () => {
  feeds.close();
  await server.close();
  process.exit(0);
};
process.stdin.on("end", shutdown);
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
